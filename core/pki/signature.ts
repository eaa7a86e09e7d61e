/**
 * X.509 signatures: which algorithm a signer key implies (Go's choice: SHA-256 with RSA,
 * ECDSA with the curve's hash) and signing/verifying DER-encoded signatures on WebCrypto.
 *
 * WebCrypto's ECDSA works on raw `r||s`; X.509 carries `SEQUENCE { r, s }`, so both
 * directions convert here.
 *
 * @module
 */
import * as asn1js from "asn1js";
import { PkiError } from "../errors.ts";
import { integer, nullValue, oid, sequence } from "./der.ts";
import { importSPKI, type KeyPair, type KeySpec } from "./keys.ts";
import { OID } from "./oid.ts";

/** WebCrypto hash names used by X.509 signatures. */
export type HashName = "SHA-1" | "SHA-256" | "SHA-384" | "SHA-512";

/** A signature algorithm: its OID, its AlgorithmIdentifier DER and its hash. */
export interface SignatureAlgorithm {
  oid: string;
  /** DER of the AlgorithmIdentifier (RSA carries a NULL parameter, ECDSA none). */
  algorithmIdentifier: Uint8Array;
  hash: HashName;
}

/** The algorithm Go's x509 picks for a signer key: SHA256WithRSA, ECDSAWithSHA256/384/512. */
export function signatureAlgorithmFor(spec: KeySpec): SignatureAlgorithm {
  if (spec.type === "RSA") {
    return {
      oid: OID.sha256WithRSAEncryption,
      algorithmIdentifier: sequence(oid(OID.sha256WithRSAEncryption), nullValue()),
      hash: "SHA-256",
    };
  }
  const [o, hash] = spec.namedCurve === "P-256"
    ? [OID.ecdsaWithSHA256, "SHA-256" as const]
    : spec.namedCurve === "P-384"
    ? [OID.ecdsaWithSHA384, "SHA-384" as const]
    : [OID.ecdsaWithSHA512, "SHA-512" as const];
  return { oid: o, algorithmIdentifier: sequence(oid(o)), hash };
}

function curveBytes(spec: KeySpec): number {
  if (spec.type !== "ECDSA") return 0;
  return spec.namedCurve === "P-256" ? 32 : spec.namedCurve === "P-384" ? 48 : 66;
}

/** Converts WebCrypto's raw ECDSA `r||s` into DER `SEQUENCE { INTEGER r, INTEGER s }`. */
export function ecdsaRawToDer(raw: Uint8Array): Uint8Array {
  const half = raw.length / 2;
  return sequence(integer(raw.slice(0, half)), integer(raw.slice(half)));
}

/** Converts a DER ECDSA signature into raw `r||s` of the curve's size. */
export function ecdsaDerToRaw(der: Uint8Array, size: number): Uint8Array {
  const parsed = asn1js.fromBER(der.slice());
  const seq = parsed.result;
  if (
    parsed.offset === -1 || !(seq instanceof asn1js.Sequence) || seq.valueBlock.value.length !== 2
  ) {
    throw new PkiError("x509: ECDSA signature is not a valid DER sequence");
  }
  const out = new Uint8Array(size * 2);
  seq.valueBlock.value.forEach((v, i) => {
    let bytes = (v as asn1js.Integer).valueBlock.valueHexView;
    while (bytes.length > size && bytes[0] === 0) bytes = bytes.subarray(1);
    if (bytes.length > size) throw new PkiError("x509: ECDSA signature integer too large");
    out.set(bytes, i * size + size - bytes.length);
  });
  return out;
}

/** Signs `data` with the key's algorithm; returns the signature as X.509 carries it. */
export async function signData(key: KeyPair, data: Uint8Array): Promise<Uint8Array> {
  const alg = signatureAlgorithmFor(key.spec);
  if (key.spec.type === "RSA") {
    return new Uint8Array(
      await crypto.subtle.sign({ name: "RSASSA-PKCS1-v1_5" }, key.privateKey, data.slice()),
    );
  }
  const raw = new Uint8Array(
    await crypto.subtle.sign({ name: "ECDSA", hash: alg.hash }, key.privateKey, data.slice()),
  );
  return ecdsaRawToDer(raw);
}

const RSA_HASHES: Record<string, HashName> = {
  [OID.sha1WithRSAEncryption]: "SHA-1",
  [OID.sha256WithRSAEncryption]: "SHA-256",
  [OID.sha384WithRSAEncryption]: "SHA-384",
  [OID.sha512WithRSAEncryption]: "SHA-512",
};
const ECDSA_HASHES: Record<string, HashName> = {
  [OID.ecdsaWithSHA256]: "SHA-256",
  [OID.ecdsaWithSHA384]: "SHA-384",
  [OID.ecdsaWithSHA512]: "SHA-512",
};

/**
 * Verifies an X.509-style signature over `data` with a SubjectPublicKeyInfo. Throws a
 * {@link PkiError} for algorithms it cannot check; returns false when the signature is wrong.
 */
export async function verifySignature(
  spki: Uint8Array,
  signatureAlgorithmOid: string,
  data: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  const { spec } = await importSPKI(spki);
  if (spec.type === "RSA") {
    const hash = RSA_HASHES[signatureAlgorithmOid];
    if (!hash) {
      throw new PkiError(
        `x509: cannot verify signature: algorithm ${signatureAlgorithmOid} is unsupported`,
      );
    }
    const key = await crypto.subtle.importKey(
      "spki",
      spki.slice(),
      { name: "RSASSA-PKCS1-v1_5", hash },
      false,
      [
        "verify",
      ],
    );
    return crypto.subtle.verify(
      { name: "RSASSA-PKCS1-v1_5" },
      key,
      signature.slice(),
      data.slice(),
    );
  }
  const hash = ECDSA_HASHES[signatureAlgorithmOid];
  if (!hash) {
    throw new PkiError(
      `x509: cannot verify signature: algorithm ${signatureAlgorithmOid} is unsupported`,
    );
  }
  const key = await crypto.subtle.importKey(
    "spki",
    spki.slice(),
    { name: "ECDSA", namedCurve: spec.namedCurve },
    false,
    [
      "verify",
    ],
  );
  let raw: Uint8Array;
  try {
    raw = ecdsaDerToRaw(signature, curveBytes(spec));
  } catch {
    return false;
  }
  return crypto.subtle.verify({ name: "ECDSA", hash }, key, raw.slice(), data.slice());
}
