/**
 * X.509 signatures: which algorithm a signer key implies (Go's choice: SHA-256 with RSA,
 * ECDSA with the curve's hash), signing with a key and checking a signature through the crypto
 * port.
 *
 * @module
 */
import { PkiError } from "../errors.ts";
import type { CryptoPort, HashName, KeyPair, KeySpec } from "../ports/crypto.ts";
import { nullValue, oid, sequence } from "./der.ts";
import { publicKeyOfSpki } from "./key_der.ts";
import { OID } from "./oid.ts";

export type { HashName } from "../ports/crypto.ts";

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
  const hash = signatureHashFor(spec);
  const o = hash === "SHA-256"
    ? OID.ecdsaWithSHA256
    : hash === "SHA-384"
    ? OID.ecdsaWithSHA384
    : OID.ecdsaWithSHA512;
  return { oid: o, algorithmIdentifier: sequence(oid(o)), hash };
}

/** Signs `data` with the key's algorithm; returns the signature as X.509 carries it. */
export function signData(key: KeyPair, data: Uint8Array): Promise<Uint8Array> {
  return key.sign(data);
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
export function verifySignature(
  spki: Uint8Array,
  signatureAlgorithmOid: string,
  data: Uint8Array,
  signature: Uint8Array,
  crypto: CryptoPort,
): Promise<boolean> {
  const { spec } = publicKeyOfSpki(spki);
  const hash = (spec.type === "RSA" ? RSA_HASHES : ECDSA_HASHES)[signatureAlgorithmOid];
  if (!hash) {
    throw new PkiError(
      `x509: cannot verify signature: algorithm ${signatureAlgorithmOid} is unsupported`,
    );
  }
  return crypto.verify(spki, spec, hash, data, signature);
}

/** The hash Go's x509 signs with for a key (SHA-256 for RSA; the curve's hash for ECDSA). */
export function signatureHashFor(spec: KeySpec): HashName {
  if (spec.type === "RSA") return "SHA-256";
  return spec.namedCurve === "P-256"
    ? "SHA-256"
    : spec.namedCurve === "P-384"
    ? "SHA-384"
    : "SHA-512";
}
