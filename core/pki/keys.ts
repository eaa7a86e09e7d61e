/**
 * Private/public key pairs on WebCrypto, encoded the way kubeadm (client-go `keyutil`) writes
 * them: `RSA PRIVATE KEY` (PKCS#1) and `EC PRIVATE KEY` (SEC1 with the curve OID and public
 * point), `PUBLIC KEY` (SubjectPublicKeyInfo) for `sa.pub`. Reading also accepts PKCS#8
 * (`PRIVATE KEY`).
 *
 * WebCrypto only exports PKCS#8/JWK/SPKI, so PKCS#1 is the inner OCTET STRING of the PKCS#8
 * export and SEC1 is rebuilt from the JWK; imports wrap the other way round.
 *
 * @module
 */
import * as asn1js from "asn1js";
import type { EncryptionAlgorithm } from "../config/types.ts";
import { PkiError } from "../errors.ts";
import {
  bitString,
  concatBytes,
  explicit,
  integer,
  nullValue,
  octetString,
  oid,
  sequence,
} from "./der.ts";
import { CURVE_OIDS, OID } from "./oid.ts";
import { decodePem, encodePem } from "./pem.ts";

/** Supported named curves. */
export type NamedCurve = "P-256" | "P-384" | "P-521";

/** The shape of a key: RSA with its modulus size, or ECDSA on a named curve. */
export type KeySpec =
  | { type: "RSA"; modulusLength: number }
  | { type: "ECDSA"; namedCurve: NamedCurve };

/** A usable signing key: both halves as extractable CryptoKeys, plus their shape. */
export interface KeyPair {
  spec: KeySpec;
  /** Signing key (RSASSA-PKCS1-v1_5/SHA-256 for RSA, ECDSA for EC). */
  privateKey: CryptoKey;
  /** Verification key. */
  publicKey: CryptoKey;
}

/** PEM label of a PKCS#1 RSA private key. */
export const RSA_PRIVATE_KEY_BLOCK = "RSA PRIVATE KEY";
/** PEM label of a SEC1 EC private key. */
export const EC_PRIVATE_KEY_BLOCK = "EC PRIVATE KEY";
/** PEM label of a PKCS#8 private key. */
export const PRIVATE_KEY_BLOCK = "PRIVATE KEY";
/** PEM label of a SubjectPublicKeyInfo public key. */
export const PUBLIC_KEY_BLOCK = "PUBLIC KEY";

/** Maps kubeadm's `encryptionAlgorithm` to a key shape (empty means RSA-2048, as upstream). */
export function keySpecFor(algorithm: EncryptionAlgorithm | "" | undefined): KeySpec {
  switch (algorithm) {
    case "ECDSA-P256":
      return { type: "ECDSA", namedCurve: "P-256" };
    case "ECDSA-P384":
      return { type: "ECDSA", namedCurve: "P-384" };
    case "RSA-3072":
      return { type: "RSA", modulusLength: 3072 };
    case "RSA-4096":
      return { type: "RSA", modulusLength: 4096 };
    case "RSA-2048":
    case "":
    case undefined:
      return { type: "RSA", modulusLength: 2048 };
    default:
      throw new PkiError(
        `cannot obtain key size from unknown RSA algorithm: ${JSON.stringify(algorithm)}`,
        {
          field: "encryptionAlgorithm",
          value: String(algorithm),
        },
      );
  }
}

/** The `encryptionAlgorithm` value a key corresponds to, if any (e.g. RSA-1024 has none). */
export function encryptionAlgorithmOf(spec: KeySpec): EncryptionAlgorithm | undefined {
  if (spec.type === "ECDSA") {
    return spec.namedCurve === "P-256"
      ? "ECDSA-P256"
      : spec.namedCurve === "P-384"
      ? "ECDSA-P384"
      : undefined;
  }
  return ({ 2048: "RSA-2048", 3072: "RSA-3072", 4096: "RSA-4096" } as const)[
    spec.modulusLength as 2048 | 3072 | 4096
  ];
}

function importParams(spec: KeySpec): RsaHashedImportParams | EcKeyImportParams {
  return spec.type === "RSA"
    ? { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }
    : { name: "ECDSA", namedCurve: spec.namedCurve };
}

/** Generates a new extractable key pair (`RSA-*` with e = 65537, or ECDSA on P-256/P-384). */
export async function generateKeyPair(algorithm: EncryptionAlgorithm | KeySpec): Promise<KeyPair> {
  const spec = typeof algorithm === "string" ? keySpecFor(algorithm) : algorithm;
  const params: RsaHashedKeyGenParams | EcKeyGenParams = spec.type === "RSA"
    ? {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: spec.modulusLength,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    }
    : { name: "ECDSA", namedCurve: spec.namedCurve };
  const pair = await crypto.subtle.generateKey(params, true, ["sign", "verify"]) as CryptoKeyPair;
  return { spec, privateKey: pair.privateKey, publicKey: pair.publicKey };
}

/** Base64url without padding (JWK). */
function b64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64url(s: string): Uint8Array {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function curveByteLength(curve: NamedCurve): number {
  return curve === "P-256" ? 32 : curve === "P-384" ? 48 : 66;
}

function leftPad(bytes: Uint8Array, len: number): Uint8Array {
  if (bytes.length >= len) return bytes.slice(bytes.length - len);
  const out = new Uint8Array(len);
  out.set(bytes, len - bytes.length);
  return out;
}

/** The SubjectPublicKeyInfo DER of a key (or key pair). */
export async function exportSPKI(key: KeyPair | CryptoKey): Promise<Uint8Array> {
  const k = key instanceof CryptoKey ? key : key.publicKey;
  return new Uint8Array(await crypto.subtle.exportKey("spki", k));
}

/** The private key in kubeadm's on-disk DER form: PKCS#1 for RSA, SEC1 for ECDSA. */
export async function exportPrivateKeyDER(
  key: KeyPair,
): Promise<{ type: string; der: Uint8Array }> {
  if (key.spec.type === "RSA") {
    const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", key.privateKey));
    const parsed = asn1js.fromBER(pkcs8.slice());
    const inner = (parsed.result as asn1js.Sequence).valueBlock.value[2] as asn1js.OctetString;
    return { type: RSA_PRIVATE_KEY_BLOCK, der: inner.valueBlock.valueHexView.slice() };
  }
  const jwk = await crypto.subtle.exportKey("jwk", key.privateKey);
  const size = curveByteLength(key.spec.namedCurve);
  const d = leftPad(unb64url(jwk.d!), size);
  const point = concatBytes(
    new Uint8Array([4]),
    leftPad(unb64url(jwk.x!), size),
    leftPad(unb64url(jwk.y!), size),
  );
  const der = sequence(
    integer(1n),
    octetString(d),
    explicit(0, oid(CURVE_OIDS[key.spec.namedCurve])),
    explicit(1, bitString(point)),
  );
  return { type: EC_PRIVATE_KEY_BLOCK, der };
}

/** `RSA PRIVATE KEY` or `EC PRIVATE KEY` PEM, exactly the blocks upstream writes for `*.key`. */
export async function encodePrivateKeyPEM(key: KeyPair): Promise<string> {
  const { type, der } = await exportPrivateKeyDER(key);
  return encodePem(type, der);
}

/** `PUBLIC KEY` PEM (SubjectPublicKeyInfo), as written to `sa.pub`. */
export async function encodePublicKeyPEM(key: KeyPair | CryptoKey): Promise<string> {
  return encodePem(PUBLIC_KEY_BLOCK, await exportSPKI(key));
}

function fail(message: string): never {
  throw new PkiError(message);
}

function parseDer(der: Uint8Array): asn1js.AsnType {
  const parsed = asn1js.fromBER(der.slice());
  if (parsed.offset === -1) fail("asn1: structure error");
  return parsed.result;
}

function oidText(block: unknown): string | undefined {
  return block instanceof asn1js.ObjectIdentifier ? block.valueBlock.toString() : undefined;
}

async function completePair(spec: KeySpec, privateKey: CryptoKey): Promise<KeyPair> {
  const jwk = await crypto.subtle.exportKey("jwk", privateKey);
  const pubJwk: JsonWebKey = spec.type === "RSA"
    ? { kty: "RSA", n: jwk.n, e: jwk.e, alg: "RS256", ext: true }
    : { kty: "EC", crv: jwk.crv, x: jwk.x, y: jwk.y, ext: true };
  const publicKey = await crypto.subtle.importKey("jwk", pubJwk, importParams(spec), true, [
    "verify",
  ]);
  return { spec, privateKey, publicKey };
}

/** Imports a PKCS#1 RSAPrivateKey DER. */
async function importPKCS1(der: Uint8Array): Promise<KeyPair> {
  const seq = parseDer(der);
  if (!(seq instanceof asn1js.Sequence) || seq.valueBlock.value.length < 9) {
    fail("asn1: structure error: not a PKCS#1 RSA private key");
  }
  const pkcs8 = sequence(
    integer(0n),
    sequence(oid(OID.rsaEncryption), nullValue()),
    octetString(der),
  );
  const probe: KeySpec = { type: "RSA", modulusLength: 0 };
  const privateKey = await crypto.subtle.importKey(
    "pkcs8",
    pkcs8.slice(),
    importParams(probe),
    true,
    [
      "sign",
    ],
  );
  const modulusLength = (privateKey.algorithm as RsaHashedKeyAlgorithm).modulusLength;
  return completePair({ type: "RSA", modulusLength }, privateKey);
}

/** Imports a SEC1 ECPrivateKey DER; `curveOid` comes from PKCS#8 parameters when present. */
async function importSEC1(der: Uint8Array, curveOid?: string): Promise<KeyPair> {
  const seq = parseDer(der);
  if (!(seq instanceof asn1js.Sequence)) fail("asn1: structure error: not an EC private key");
  const items = seq.valueBlock.value;
  const d = items[1] instanceof asn1js.OctetString ? items[1].valueBlock.valueHexView : undefined;
  if (!d) fail("x509: failed to parse EC private key");
  let point: Uint8Array | undefined;
  for (const item of items.slice(2)) {
    if (item.idBlock.tagClass !== 3) continue;
    const inner = (item as asn1js.Constructed).valueBlock.value?.[0];
    if (item.idBlock.tagNumber === 0) curveOid ??= oidText(inner);
    if (item.idBlock.tagNumber === 1 && inner instanceof asn1js.BitString) {
      point = inner.valueBlock.valueHexView.slice();
    }
  }
  const curve = (Object.entries(CURVE_OIDS) as [NamedCurve, string][]).find(([, o]) =>
    o === curveOid
  )?.[0];
  if (!curve) fail(`x509: unknown elliptic curve ${curveOid ?? "(none)"}`);
  const spec: KeySpec = { type: "ECDSA", namedCurve: curve };
  const size = curveByteLength(curve);
  let privateKey: CryptoKey;
  if (point && point.length === 1 + 2 * size && point[0] === 4) {
    const jwk: JsonWebKey = {
      kty: "EC",
      crv: curve,
      d: b64url(leftPad(d, size)),
      x: b64url(point.slice(1, 1 + size)),
      y: b64url(point.slice(1 + size)),
      ext: true,
    };
    privateKey = await crypto.subtle.importKey("jwk", jwk, importParams(spec), true, ["sign"]);
  } else {
    const pkcs8 = sequence(
      integer(0n),
      sequence(oid(OID.ecPublicKey), oid(CURVE_OIDS[curve])),
      octetString(sequence(integer(1n), octetString(leftPad(d, size)))),
    );
    privateKey = await crypto.subtle.importKey("pkcs8", pkcs8.slice(), importParams(spec), true, [
      "sign",
    ]);
  }
  return completePair(spec, privateKey);
}

/** Result of parsing PKCS#8: a usable pair, or the algorithm OID of a key kubeadm rejects. */
type Pkcs8Result = { pair: KeyPair } | { unsupported: string };

async function importPKCS8(der: Uint8Array): Promise<Pkcs8Result> {
  const seq = parseDer(der);
  if (!(seq instanceof asn1js.Sequence) || seq.valueBlock.value.length < 3) {
    fail("asn1: structure error: not a PKCS#8 private key");
  }
  const [, algId, keyOctets] = seq.valueBlock.value;
  const algItems = (algId as asn1js.Sequence).valueBlock?.value ?? [];
  const algOid = oidText(algItems[0]);
  if (!(keyOctets instanceof asn1js.OctetString) || !algOid) {
    fail("x509: failed to parse PKCS#8 private key");
  }
  const inner = keyOctets.valueBlock.valueHexView.slice();
  if (algOid === OID.rsaEncryption) return { pair: await importPKCS1(inner) };
  if (algOid === OID.ecPublicKey) return { pair: await importSEC1(inner, oidText(algItems[1])) };
  return { unsupported: algOid };
}

/**
 * Reads the first private key of a PEM text: `RSA PRIVATE KEY`, `EC PRIVATE KEY` or
 * `PRIVATE KEY` (PKCS#8). Errors use upstream's wording; `path` names the file in them.
 */
export async function parsePrivateKeyPEM(
  pem: string | Uint8Array,
  path = "<input>",
): Promise<KeyPair> {
  for (const block of decodePem(pem)) {
    // Like client-go's keyutil, a block that fails to parse is skipped, not fatal.
    try {
      if (block.type === RSA_PRIVATE_KEY_BLOCK) return await importPKCS1(block.bytes);
      if (block.type === EC_PRIVATE_KEY_BLOCK) return await importSEC1(block.bytes);
      if (block.type === PRIVATE_KEY_BLOCK) {
        const r = await importPKCS8(block.bytes);
        if ("pair" in r) return r.pair;
        throw new PkiError(`the private key file ${path} is neither in RSA nor ECDSA format`, {
          field: path,
          hint: "kubeadm only uses RSA and ECDSA keys",
        });
      }
    } catch (e) {
      if (e instanceof PkiError && e.message.startsWith("the private key file")) throw e;
    }
  }
  throw new PkiError(
    `error reading private key file ${path}: data does not contain a valid RSA or ECDSA private key`,
    { field: path },
  );
}

/**
 * The SubjectPublicKeyInfo DER of the first `PUBLIC KEY` block of a PEM text (`sa.pub`). Errors
 * use upstream's wording; `path` names the file in them.
 */
export function parsePublicKeyPEM(pem: string | Uint8Array, path = "<input>"): Uint8Array {
  const block = decodePem(pem).find((b) => b.type === PUBLIC_KEY_BLOCK);
  if (!block) {
    throw new PkiError(
      `error reading public key file ${path}: data does not contain any valid RSA or ECDSA public keys`,
      { field: path },
    );
  }
  return block.bytes;
}

/** Imports a SubjectPublicKeyInfo DER as a verification key, deriving its shape. */
export async function importSPKI(spki: Uint8Array): Promise<{ spec: KeySpec; key: CryptoKey }> {
  const seq = parseDer(spki);
  const algItems =
    ((seq as asn1js.Sequence).valueBlock?.value?.[0] as asn1js.Sequence)?.valueBlock?.value ?? [];
  const algOid = oidText(algItems[0]);
  if (algOid === OID.rsaEncryption) {
    const key = await crypto.subtle.importKey(
      "spki",
      spki.slice(),
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
      true,
      ["verify"],
    );
    return {
      spec: { type: "RSA", modulusLength: (key.algorithm as RsaHashedKeyAlgorithm).modulusLength },
      key,
    };
  }
  if (algOid === OID.ecPublicKey) {
    const curveOid = oidText(algItems[1]);
    const curve = (Object.entries(CURVE_OIDS) as [NamedCurve, string][]).find(([, o]) =>
      o === curveOid
    )?.[0];
    if (!curve) fail(`x509: unsupported elliptic curve ${curveOid ?? "(none)"}`);
    const spec: KeySpec = { type: "ECDSA", namedCurve: curve };
    const key = await crypto.subtle.importKey("spki", spki.slice(), importParams(spec), true, [
      "verify",
    ]);
    return { spec, key };
  }
  fail(`x509: unsupported public key algorithm ${algOid ?? "(unknown)"}`);
}

/** True when two public keys (SPKI DER) denote the same key, compared by value not encoding. */
export async function samePublicKey(a: Uint8Array, b: Uint8Array): Promise<boolean> {
  const [ka, kb] = await Promise.all([importSPKI(a), importSPKI(b)]);
  const [ja, jb] = await Promise.all([
    crypto.subtle.exportKey("jwk", ka.key),
    crypto.subtle.exportKey("jwk", kb.key),
  ]);
  return ja.kty === jb.kty && ja.n === jb.n && ja.e === jb.e && ja.crv === jb.crv &&
    ja.x === jb.x &&
    ja.y === jb.y;
}
