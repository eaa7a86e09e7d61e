/**
 * The cluster CA bundle found in `cluster-info`: parsing every certificate, checking them
 * against the `--discovery-token-ca-cert-hash` pins (upstream `validateClusterCA`), and a
 * JSON-friendly summary of each certificate (what kubeadm logs at `-v=1` after discovery).
 *
 * @module
 */
import type { Hashing } from "../ports/crypto.ts";
import { childrenOf, oidOf, readDer } from "../pki/der_reader.ts";
import { DiscoveryError, errorMessage } from "../errors.ts";
import { type Certificate, parseCertificatesPEM } from "../pki/cert.ts";
import { formatName } from "../pki/name.ts";
import { OID } from "../pki/oid.ts";
import { certificatePin, type PinSet } from "../pki/pin.ts";

/** What a CA certificate is, for humans and for `-o json`. */
export interface CaCertSummary {
  /** Subject as Go prints `pkix.Name` (`CN=kubernetes`). */
  subject: string;
  /** Issuer, same form. */
  issuer: string;
  /** Serial number in decimal (as Go's `%v` of a big.Int). */
  serialNumber: string;
  /** Start of validity, RFC 3339 UTC. */
  notBefore: string;
  /** End of validity, RFC 3339 UTC. */
  notAfter: string;
  /** Signature algorithm name (`SHA256-RSA`, `ECDSA-SHA256`, ...) or dotted OID. */
  signatureAlgorithm: string;
  /** Public key algorithm (`RSA`, `ECDSA`, ...) or dotted OID. */
  publicKeyAlgorithm: string;
  /** Whether BasicConstraints says CA:TRUE. */
  isCA: boolean;
  /** `sha256:<hex>` of the SubjectPublicKeyInfo: the value for `--discovery-token-ca-cert-hash`. */
  pin: string;
}

const SIGNATURE_NAMES: Record<string, string> = {
  [OID.sha1WithRSAEncryption]: "SHA1-RSA",
  [OID.sha256WithRSAEncryption]: "SHA256-RSA",
  [OID.sha384WithRSAEncryption]: "SHA384-RSA",
  [OID.sha512WithRSAEncryption]: "SHA512-RSA",
  [OID.ecdsaWithSHA256]: "ECDSA-SHA256",
  [OID.ecdsaWithSHA384]: "ECDSA-SHA384",
  [OID.ecdsaWithSHA512]: "ECDSA-SHA512",
  "1.3.101.112": "Ed25519",
};

const PUBLIC_KEY_NAMES: Record<string, string> = {
  [OID.rsaEncryption]: "RSA",
  [OID.ecPublicKey]: "ECDSA",
  "1.3.101.112": "Ed25519",
};

function publicKeyAlgorithmOid(spki: Uint8Array): string {
  try {
    return oidOf(childrenOf(childrenOf(readDer(spki))[0])[0]) ?? "";
  } catch {
    return "";
  }
}

function rfc3339(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** Summarises one parsed certificate. */
export async function summarizeCertificate(
  cert: Certificate,
  crypto: Hashing,
): Promise<CaCertSummary> {
  const keyOid = publicKeyAlgorithmOid(cert.spki);
  return {
    subject: formatName(cert.subject),
    issuer: formatName(cert.issuer),
    serialNumber: cert.serialNumber.toString(),
    notBefore: rfc3339(cert.notBefore),
    notAfter: rfc3339(cert.notAfter),
    signatureAlgorithm: SIGNATURE_NAMES[cert.signatureAlgorithm] ?? cert.signatureAlgorithm,
    publicKeyAlgorithm: PUBLIC_KEY_NAMES[keyOid] ?? keyOid,
    isCA: cert.isCA,
    pin: await certificatePin(cert, crypto),
  };
}

/** Summarises every certificate of a PEM bundle (throws when there is none). */
export async function summarizeCaBundle(pem: string, crypto: Hashing): Promise<CaCertSummary[]> {
  return await Promise.all(parseCertificatesPEM(pem).map((c) => summarizeCertificate(c, crypto)));
}

/**
 * Parses all certificates of the cluster-info CA bundle and requires one of them to be pinned
 * (upstream `validateClusterCA`). Throws with upstream's wrapped texts:
 * `failed to parse cluster CA from the cluster-info ConfigMap: ...` or
 * `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys ... are pinned`.
 */
export async function validateClusterCA(
  caPem: string,
  pins: Pick<PinSet, "checkAny">,
): Promise<Certificate[]> {
  let certs: Certificate[];
  try {
    certs = parseCertificatesPEM(caPem);
  } catch (e) {
    throw new DiscoveryError(
      `failed to parse cluster CA from the cluster-info ConfigMap: ${errorMessage(e)}`,
      { cause: e },
    );
  }
  try {
    await pins.checkAny(certs);
  } catch (e) {
    throw new DiscoveryError(
      `cluster CA found in cluster-info ConfigMap is invalid: ${errorMessage(e)}`,
      {
        cause: e,
      },
    );
  }
  return certs;
}
