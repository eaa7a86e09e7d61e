/**
 * The DER structures of keys, shared by both crypto implementations: PKCS#1 `RSAPrivateKey`,
 * SEC1 `ECPrivateKey`, PKCS#8 wrapping, and SubjectPublicKeyInfo (built from a private key's
 * material, and read back into its shape and values, which is how two public keys are
 * compared without any crypto engine).
 *
 * @module
 */
import { PkiError } from "../errors.ts";
import type { EcCurve, KeySpec, PrivateKeyMaterial } from "../ports/crypto.ts";
import { curveByteLength } from "./ec_curve.ts";
import { bitString, explicit, integer, nullValue, octetString, oid, sequence } from "./der.ts";
import { CURVE_OIDS, OID } from "./oid.ts";
import {
  bitStringOf,
  childrenOf,
  type DerElement,
  isContext,
  isUniversal,
  oidOf,
  readDer,
  TAG,
} from "./der_reader.ts";

function fail(message: string): never {
  throw new PkiError(message);
}

/** The elements of a DER SEQUENCE; `asn1: structure error` when it is not DER. */
function sequenceItems(der: Uint8Array): DerElement[] | undefined {
  const el = readDer(der);
  return isUniversal(el, TAG.sequence) && el.constructed ? childrenOf(el) : undefined;
}

/** The named curve of a curve OID, if kubeadm knows it. */
function curveOfOid(curveOid: string | undefined): EcCurve | undefined {
  return curveOid === undefined ? undefined : CURVES_BY_OID.get(curveOid);
}

const CURVES_BY_OID = new Map(
  (Object.entries(CURVE_OIDS) as [EcCurve, string][]).map(([curve, o]) => [o, curve]),
);

/** Left-pads (or trims leading bytes of) a big-endian number to `len` bytes. */
export function leftPad(bytes: Uint8Array, len: number): Uint8Array {
  if (bytes.length >= len) return bytes.slice(bytes.length - len);
  const out = new Uint8Array(len);
  out.set(bytes, len - bytes.length);
  return out;
}

function stripZeros(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  return bytes.slice(i);
}

function integerBytes(el: DerElement | undefined): Uint8Array {
  if (!isUniversal(el, TAG.integer)) fail("asn1: structure error: expected an INTEGER");
  return stripZeros(el.content);
}

/** The modulus and public exponent of a PKCS#1 `RSAPrivateKey`. */
export function rsaPublicOfPkcs1(pkcs1: Uint8Array): { n: Uint8Array; e: Uint8Array } {
  const items = sequenceItems(pkcs1);
  if (!items || items.length < 9) fail("asn1: structure error: not a PKCS#1 RSA private key");
  const [, n, e] = items;
  return { n: integerBytes(n), e: integerBytes(e) };
}

/** The modulus size in bits of a big-endian modulus. */
export function modulusBits(n: Uint8Array): number {
  const m = stripZeros(n);
  return m.length === 0 ? 0 : (m.length - 1) * 8 + (32 - Math.clz32(m[0]));
}

/** SubjectPublicKeyInfo of an RSA public key. */
export function rsaSpki(n: Uint8Array, e: Uint8Array): Uint8Array {
  return sequence(
    sequence(oid(OID.rsaEncryption), nullValue()),
    bitString(sequence(integer(n), integer(e))),
  );
}

/** SubjectPublicKeyInfo of an EC public key (uncompressed point). */
export function ecSpki(curve: EcCurve, point: Uint8Array): Uint8Array {
  return sequence(sequence(oid(OID.ecPublicKey), oid(CURVE_OIDS[curve])), bitString(point));
}

/** PKCS#8 `PrivateKeyInfo` around a PKCS#1 key. */
export function pkcs8OfPkcs1(pkcs1: Uint8Array): Uint8Array {
  return sequence(integer(0n), sequence(oid(OID.rsaEncryption), nullValue()), octetString(pkcs1));
}

/** The inner key of a PKCS#8 `PrivateKeyInfo` (PKCS#1 for RSA). */
export function innerOfPkcs8(pkcs8: Uint8Array): Uint8Array {
  const inner = sequenceItems(pkcs8)?.[2];
  if (!isUniversal(inner, TAG.octetString)) fail("asn1: structure error: not a PKCS#8 key");
  return inner.content.slice();
}

/** PKCS#8 `PrivateKeyInfo` of an EC scalar alone (no public point). */
export function pkcs8OfEcScalar(curve: EcCurve, d: Uint8Array): Uint8Array {
  return sequence(
    integer(0n),
    sequence(oid(OID.ecPublicKey), oid(CURVE_OIDS[curve])),
    octetString(sequence(integer(1n), octetString(leftPad(d, curveByteLength(curve))))),
  );
}

/** SEC1 `ECPrivateKey` with the curve OID and the public point, as Go writes `EC PRIVATE KEY`. */
function sec1Der(curve: EcCurve, d: Uint8Array, point: Uint8Array): Uint8Array {
  return sequence(
    integer(1n),
    octetString(leftPad(d, curveByteLength(curve))),
    explicit(0, oid(CURVE_OIDS[curve])),
    explicit(1, bitString(point)),
  );
}

/** The DER form kubeadm writes for a private key: PKCS#1 for RSA, SEC1 for ECDSA. */
export function privateKeyDer(material: PrivateKeyMaterial): Uint8Array {
  if (material.type === "RSA") return material.pkcs1;
  if (!material.point) fail("an EC private key needs its public point to be written");
  return sec1Der(material.namedCurve, material.d, material.point);
}

/** Reads a PKCS#1 `RSAPrivateKey` DER into material. */
export function rsaMaterialOfPkcs1(der: Uint8Array): PrivateKeyMaterial {
  rsaPublicOfPkcs1(der); // validates the structure
  return { type: "RSA", pkcs1: der.slice() };
}

/** Reads a SEC1 `ECPrivateKey` DER; `curveOid` comes from PKCS#8 parameters when present. */
export function ecMaterialOfSec1(der: Uint8Array, curveOid?: string): PrivateKeyMaterial {
  const items = sequenceItems(der);
  if (!items) fail("asn1: structure error: not an EC private key");
  const d = isUniversal(items[1], TAG.octetString) ? items[1].content : undefined;
  if (!d) fail("x509: failed to parse EC private key");
  let point: Uint8Array | undefined;
  for (const item of items.slice(2)) {
    const inner = childrenOf(item)[0];
    if (isContext(item, 0)) curveOid ??= oidOf(inner);
    if (isContext(item, 1) && isUniversal(inner, TAG.bitString)) {
      point = bitStringOf(inner).slice();
    }
  }
  const curve = curveOfOid(curveOid);
  if (!curve) fail(`x509: unknown elliptic curve ${curveOid ?? "(none)"}`);
  const size = curveByteLength(curve);
  const valid = point && point.length === 1 + 2 * size && point[0] === 4;
  return {
    type: "ECDSA",
    namedCurve: curve,
    d: leftPad(d, size),
    point: valid ? point : undefined,
  };
}

/** Reads a PKCS#8 `PrivateKeyInfo`: material, or the algorithm OID of a key kubeadm rejects. */
export function materialOfPkcs8(
  der: Uint8Array,
): { material: PrivateKeyMaterial } | { unsupported: string } {
  const items = sequenceItems(der);
  if (!items || items.length < 3) fail("asn1: structure error: not a PKCS#8 private key");
  const [, algId, keyOctets] = items;
  const algItems = childrenOf(algId);
  const algOid = oidOf(algItems[0]);
  if (!isUniversal(keyOctets, TAG.octetString) || !algOid) {
    fail("x509: failed to parse PKCS#8 private key");
  }
  const inner = keyOctets.content.slice();
  if (algOid === OID.rsaEncryption) return { material: rsaMaterialOfPkcs1(inner) };
  if (algOid === OID.ecPublicKey) {
    return { material: ecMaterialOfSec1(inner, oidOf(algItems[1])) };
  }
  return { unsupported: algOid };
}

/** A public key read from its SubjectPublicKeyInfo: its shape and defining values. */
export type PublicKeyValues =
  | { spec: KeySpec & { type: "RSA" }; n: Uint8Array; e: Uint8Array }
  | { spec: KeySpec & { type: "ECDSA" }; point: Uint8Array };

/** Reads a SubjectPublicKeyInfo DER (RSA or EC on a known curve). */
export function publicKeyOfSpki(spki: Uint8Array): PublicKeyValues {
  const [alg, bits] = childrenOf(readDer(spki));
  const algItems = childrenOf(alg);
  const algOid = oidOf(algItems[0]);
  if (!isUniversal(bits, TAG.bitString)) fail("x509: malformed subject public key");
  const key = bitStringOf(bits).slice();
  if (algOid === OID.rsaEncryption) {
    const [n, e] = childrenOf(readDer(key));
    const nb = integerBytes(n);
    return { spec: { type: "RSA", modulusLength: modulusBits(nb) }, n: nb, e: integerBytes(e) };
  }
  if (algOid === OID.ecPublicKey) {
    const curveOid = oidOf(algItems[1]);
    const curve = curveOfOid(curveOid);
    if (!curve) fail(`x509: unsupported elliptic curve ${curveOid ?? "(none)"}`);
    return { spec: { type: "ECDSA", namedCurve: curve }, point: key };
  }
  fail(`x509: unsupported public key algorithm ${algOid ?? "(unknown)"}`);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** True when two SubjectPublicKeyInfos denote the same key, compared by value not encoding. */
export function samePublicKeyValues(a: Uint8Array, b: Uint8Array): boolean {
  if (sameBytes(a, b)) return true;
  const ka = publicKeyOfSpki(a);
  const kb = publicKeyOfSpki(b);
  if (ka.spec.type === "RSA" && kb.spec.type === "RSA" && "n" in ka && "n" in kb) {
    return sameBytes(ka.n, kb.n) && sameBytes(ka.e, kb.e);
  }
  if (ka.spec.type === "ECDSA" && kb.spec.type === "ECDSA" && "point" in ka && "point" in kb) {
    return ka.spec.namedCurve === kb.spec.namedCurve && sameBytes(ka.point, kb.point);
  }
  return false;
}
