/**
 * PKI for tests that need a CA and leaves of their own (upstream's `NewCertificateAuthority` and
 * `NewCertAndKey` shapes, made by the core's signing functions), and the proof-of-possession
 * check of a CSR (kubeadm only writes CSRs; their signers check them). WebCrypto unless a test
 * passes another crypto port.
 *
 * @module
 */
import type { EncryptionAlgorithm } from "../../core/config/types.ts";
import type { RandomSource } from "../../core/ports/random.ts";
import type { CryptoPort } from "../../core/ports/crypto.ts";
import { webCryptoPort } from "../../adapters/crypto/webcrypto.ts";
import {
  type CertConfig,
  type Certificate,
  createSelfSignedCACert,
  createSignedCert,
} from "../../core/pki/cert.ts";
import type { CertificateRequest } from "../../core/pki/csr.ts";
import { generateKeyPair, type KeyPair, type KeySpec } from "../../core/pki/keys.ts";
import { verifySignature } from "../../core/pki/signature.ts";

/** A certificate with the key pair that goes with it. */
export interface CertAndKey {
  cert: Certificate;
  key: KeyPair;
}

/** A self-signed CA certificate for `key`. */
export async function newCertificateAuthority(
  cfg: CertConfig,
  key: KeyPair,
  random: RandomSource,
  crypto: CryptoPort = webCryptoPort,
): Promise<CertAndKey> {
  return { cert: await createSelfSignedCACert(cfg, key, random, crypto), key };
}

/** A leaf certificate signed by the CA, with a new key of that algorithm unless one is given. */
export async function newCertAndKey(
  ca: Certificate,
  caKey: KeyPair,
  cfg: CertConfig,
  key: KeyPair | EncryptionAlgorithm | KeySpec,
  random: RandomSource,
  crypto: CryptoPort = webCryptoPort,
): Promise<CertAndKey> {
  const pair = typeof key === "string" || !("sign" in key)
    ? await generateKeyPair(key, { crypto, random })
    : key;
  return { cert: await createSignedCert(cfg, pair, ca, caKey, random, crypto), key: pair };
}

/** True when the CSR is signed by the key it carries (proof of possession). */
export async function verifyCSRSignature(
  csr: CertificateRequest,
  crypto: CryptoPort = webCryptoPort,
): Promise<boolean> {
  const { spki, signatureAlgorithm, info, signature } = csr;
  try {
    return await verifySignature(spki, signatureAlgorithm, info, signature, crypto);
  } catch {
    return false;
  }
}
