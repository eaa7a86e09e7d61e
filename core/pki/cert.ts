/**
 * X.509 certificates as kubeadm makes and checks them (upstream `pkiutil`).
 *
 * - Self-signed CAs: X509KeyUsage digitalSignature|keyEncipherment|keyCertSign (critical),
 *   BasicConstraints CA:TRUE (critical, no pathLen), a SubjectKeyId (SHA-1 of the public key
 *   bits, Go's rule) and a DNS SAN equal to the CN.
 * - CA-signed leaves: X509KeyUsage digitalSignature|keyEncipherment (critical), the requested
 *   ExtKeyUsages, BasicConstraints CA:FALSE (critical), the SANs, and an AuthorityKeyId equal
 *   to the issuer's SubjectKeyId.
 * - Random serial uniform in [1, 2^63-1); signature algorithm chosen from the signer key.
 *
 * Certificates are returned parsed (see {@link Certificate}); parsing works on any X.509 v1-v3
 * certificate so external CAs can be loaded and verified.
 *
 * @module
 */
import { bigintFromBytes } from "../bigint.ts";
import type { RandomSource } from "../ports/random.ts";
import { PkiError } from "../errors.ts";
import { ipEqual, parseIP } from "../net/ip.ts";
import { bitString, explicit, integer, sequence, x509Time } from "./der.ts";
import {
  asMalformed,
  bitStringOf,
  childrenOf,
  type DerElement,
  integerOf,
  isContext,
  isUniversal,
  oidOf,
  readDer,
  TAG,
  timeOf,
} from "./der_reader.ts";
import {
  authorityKeyIdExtension,
  basicConstraintsExtension,
  type DecodedExtensions,
  decodeExtensions,
  dedupeAltNames,
  type EncodedExtension,
  encodeExtension,
  type ExtKeyUsage,
  extKeyUsageExtension,
  keyUsageExtension,
  type RawExtension,
  readExtensions,
  subjectAltNameExtension,
  subjectKeyIdExtension,
  type X509KeyUsage,
} from "./extensions.ts";
import { ecPointProblem, type PrimeCurveName } from "./ec_curve.ts";
import { exportSPKI, type KeyPair, samePublicKey } from "./keys.ts";
import type { CryptoPort, Hashing } from "../ports/crypto.ts";
import { encodeName, type ParsedName, parseName } from "./name.ts";
import { OID } from "./oid.ts";
import { decodePem, encodePem } from "./pem.ts";
import { certificatePin } from "./pin.ts";
import { signatureAlgorithmFor, signData, verifySignature } from "./signature.ts";

/** PEM label of a certificate. */
const CERTIFICATE_BLOCK = "CERTIFICATE";

/** What to put in a certificate (upstream's `certutil.Config` + validity). */
export interface CertConfig {
  commonName: string;
  organization?: string[];
  /** DNS SANs; de-duplicated and sorted before use, as upstream does. */
  dnsNames?: string[];
  /** IP SANs (text); de-duplicated in first-seen order, as upstream does. */
  ips?: string[];
  /**
   * Extended key usages (leaves must have at least one): {@link ExtKeyUsage} names, or dotted
   * OIDs of the other usages Go knows (kept when a certificate is renewed).
   */
  usages?: (ExtKeyUsage | string)[];
  /** Defaults: the CA's NotBefore for leaves; required for CAs. */
  notBefore?: Date;
  /** Defaults: NotBefore + 1 year for leaves, + 10 years for CAs. */
  notAfter?: Date;
}

/** A parsed certificate. */
export interface Certificate extends DecodedExtensions {
  /** The whole certificate, DER. */
  der: Uint8Array;
  /** The signed TBSCertificate bytes. */
  tbs: Uint8Array;
  /** X.509 version (1..3). */
  version: number;
  /** Serial number. */
  serialNumber: bigint;
  /** Subject name. */
  subject: ParsedName;
  /** Issuer name. */
  issuer: ParsedName;
  /** Start of validity. */
  notBefore: Date;
  /** End of validity. */
  notAfter: Date;
  /** SubjectPublicKeyInfo DER (what pins hash). */
  spki: Uint8Array;
  /** Dotted OID of the signature algorithm. */
  signatureAlgorithm: string;
  /** The signature value. */
  signature: Uint8Array;
}

const YEAR_MS = 365 * 24 * 3600 * 1000;
/** Upstream's fallback leaf validity (`CertificateValidityPeriod`, 8760h). */
const DEFAULT_CERT_VALIDITY_MS = YEAR_MS;
/** Upstream's fallback CA validity (`CACertificateValidityPeriod`, 87600h). */
const DEFAULT_CA_CERT_VALIDITY_MS = 10 * YEAR_MS;

const MAX_SERIAL_EXCLUSIVE = (1n << 63n) - 2n;

/** A uniformly random serial number in [1, 2^63-1), drawn from the injected random source. */
export function randomSerialNumber(random: RandomSource): bigint {
  for (;;) {
    const v = bigintFromBytes(random.bytes(8)) & ((1n << 63n) - 1n);
    if (v < MAX_SERIAL_EXCLUSIVE) return v + 1n;
  }
}

function publicKeyBits(spki: Uint8Array): Uint8Array {
  return bitStringOf(childrenOf(readDer(spki))[1]).slice();
}

/** Go's SubjectKeyId for CA templates: SHA-1 of the subjectPublicKey BIT STRING contents. */
function subjectKeyIdFor(spki: Uint8Array, crypto: Hashing): Promise<Uint8Array> {
  return crypto.digest("SHA-1", publicKeyBits(spki));
}

interface TbsInput {
  serial: bigint;
  issuer: Uint8Array;
  subject: Uint8Array;
  notBefore: Date;
  notAfter: Date;
  spki: Uint8Array;
  extensions: EncodedExtension[];
}

async function signCertificate(tbsIn: TbsInput, signer: KeyPair): Promise<Certificate> {
  const alg = signatureAlgorithmFor(signer.spec);
  const tbs = sequence(
    explicit(0, integer(2n)),
    integer(tbsIn.serial),
    alg.algorithmIdentifier,
    tbsIn.issuer,
    sequence(x509Time(tbsIn.notBefore), x509Time(tbsIn.notAfter)),
    tbsIn.subject,
    tbsIn.spki,
    explicit(3, sequence(...tbsIn.extensions.map(encodeExtension))),
  );
  const signature = await signData(signer, tbs);
  return parseCertificate(sequence(tbs, alg.algorithmIdentifier, bitString(signature)));
}

/** Creates a self-signed CA certificate for `key` (upstream `NewSelfSignedCACert`). */
export async function createSelfSignedCACert(
  cfg: CertConfig,
  key: KeyPair,
  random: RandomSource,
  crypto: Hashing,
): Promise<Certificate> {
  if (!cfg.notBefore) throw new PkiError("a CA certificate needs an explicit NotBefore");
  const notBefore = cfg.notBefore;
  const notAfter = cfg.notAfter ?? new Date(notBefore.getTime() + DEFAULT_CA_CERT_VALIDITY_MS);
  const spki = await exportSPKI(key);
  const subject = encodeName({ commonName: cfg.commonName, organization: cfg.organization });
  const extensions: EncodedExtension[] = [
    keyUsageExtension(["digitalSignature", "keyEncipherment", "keyCertSign"]),
    basicConstraintsExtension(true),
    subjectKeyIdExtension(await subjectKeyIdFor(spki, crypto)),
  ];
  if (cfg.commonName) extensions.push(subjectAltNameExtension([cfg.commonName], []));
  return signCertificate({
    serial: randomSerialNumber(random),
    issuer: subject,
    subject,
    notBefore,
    notAfter,
    spki,
    extensions,
  }, key);
}

/**
 * Creates a certificate for `publicKey` signed by the CA (upstream `NewSignedCert`). With
 * `isCA` it makes an intermediate CA (kubeadm `init` never does). Throws Go's `x509: provided
 * PrivateKey doesn't match parent's PublicKey` when `caKey` is not the CA certificate's key.
 */
export async function createSignedCert(
  cfg: CertConfig,
  publicKey: KeyPair | Uint8Array,
  ca: Certificate,
  caKey: KeyPair,
  random: RandomSource,
  crypto: Hashing,
  isCA = false,
): Promise<Certificate> {
  if (!cfg.commonName) throw new PkiError("must specify a CommonName");
  // As Go's x509.CreateCertificate: never issue a certificate its issuer cannot vouch for.
  if (!(await keyMatchesCertificate(caKey, ca))) {
    throw new PkiError("x509: provided PrivateKey doesn't match parent's PublicKey");
  }
  const spki = publicKey instanceof Uint8Array ? publicKey : await exportSPKI(publicKey);
  const { dnsNames, ips } = dedupeAltNames(cfg.dnsNames ?? [], cfg.ips ?? []);
  const notBefore = cfg.notBefore ?? ca.notBefore;
  const notAfter = cfg.notAfter ?? new Date(notBefore.getTime() + DEFAULT_CERT_VALIDITY_MS);
  const keyUsage: X509KeyUsage[] = isCA
    ? ["digitalSignature", "keyEncipherment", "keyCertSign"]
    : ["digitalSignature", "keyEncipherment"];
  const subject = encodeName({ commonName: cfg.commonName, organization: cfg.organization });
  const extensions: EncodedExtension[] = [keyUsageExtension(keyUsage)];
  if (cfg.usages && cfg.usages.length > 0) extensions.push(extKeyUsageExtension(cfg.usages));
  extensions.push(basicConstraintsExtension(isCA));
  if (isCA) extensions.push(subjectKeyIdExtension(await subjectKeyIdFor(spki, crypto)));
  const selfIssued = bytesEqual(ca.subject.der, subject);
  if (!selfIssued && ca.subjectKeyId && ca.subjectKeyId.length > 0) {
    extensions.push(authorityKeyIdExtension(ca.subjectKeyId));
  }
  if (dnsNames.length > 0 || ips.length > 0) {
    extensions.push(subjectAltNameExtension(dnsNames, ips));
  }
  return signCertificate({
    serial: randomSerialNumber(random),
    issuer: ca.subject.der,
    subject,
    notBefore,
    notAfter,
    spki,
    extensions,
  }, caKey);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** One of a Validity's times, with Go's messages. */
function parseTime(el: DerElement | undefined): Date {
  const utc = isUniversal(el, TAG.utcTime) && !el.constructed;
  if (!utc && !(isUniversal(el, TAG.generalizedTime) && !el.constructed)) {
    throw new PkiError("x509: unsupported time format");
  }
  const t = timeOf(el);
  if (!t) throw new PkiError(utc ? "x509: malformed UTCTime" : "x509: malformed GeneralizedTime");
  return t;
}

/** The elements of `el` when it is a SEQUENCE of DER elements; else a PkiError `message`. */
function sequenceItems(el: DerElement | undefined, message: string): DerElement[] {
  if (!isUniversal(el, TAG.sequence) || !el.constructed) throw new PkiError(message);
  return asMalformed(() => childrenOf(el), message);
}

/** An AlgorithmIdentifier: its OID and its one optional parameters element. */
function algorithmOf(items: DerElement[]): { oid: string; params?: DerElement } {
  const oid = oidOf(items[0]);
  if (oid === undefined) throw new PkiError("x509: malformed OID");
  if (items.length > 2) throw new PkiError("x509: malformed parameters");
  return { oid, params: items[1] };
}

const CURVES: Record<string, PrimeCurveName> = {
  "1.3.132.0.33": "P224",
  [OID.prime256v1]: "P256",
  [OID.secp384r1]: "P384",
  [OID.secp521r1]: "P521",
};
const ED25519 = "1.3.101.112";
const RSASSA_PSS = "1.2.840.113549.1.1.10";

/** Whether `el` is a DER NULL (05 00). */
function isNull(el: DerElement | undefined): boolean {
  return el?.raw.length === 2 && el.raw[0] === 0x05 && el.raw[1] === 0;
}

/**
 * Whether AlgorithmIdentifier parameters are absent, NULL or a SEQUENCE, the only forms the
 * algorithms of a certificate kubeadm reads use (NULL for PKCS #1, a SEQUENCE for RSASSA-PSS).
 * Go keeps other parameters unread; openssl refuses some of them (a truncated OID, a NULL with
 * content, a padded INTEGER), so they are refused.
 */
function plainParameters(params: DerElement | undefined): boolean {
  return !params || isNull(params) || (isUniversal(params, TAG.sequence) && params.constructed);
}

/**
 * Go's checks of the public keys kubeadm can use (RSA, ECDSA, Ed25519; an EC point on its
 * curve), with its messages; an RSA key under RSASSA-PSS (which Go keeps unread) is checked as
 * RSA. Any other key algorithm is refused, where Go's ParseCertificate keeps the key unread:
 * such a certificate is of no use to kubeadm (its keys are RSA or ECDSA; a CA with another key
 * cannot verify a TLS peer, so a discovery pin on it leads nowhere), and for untrusted bytes the
 * unread key is where openssl refuses what Go keeps (a curve OID or an OID of more than 586
 * bytes as the algorithm, parameters that are not valid DER: scripts/fuzz-der, issue 25).
 */
function checkPublicKey(alg: { oid: string; params?: DerElement }, key: Uint8Array): void {
  if (alg.oid === OID.rsaEncryption || alg.oid === RSASSA_PSS) {
    if (alg.oid === OID.rsaEncryption && !isNull(alg.params)) {
      throw new PkiError("x509: RSA key missing NULL parameters");
    }
    if (!plainParameters(alg.params)) throw new PkiError("x509: malformed parameters");
    // As Go: the modulus and the exponent are read, what follows them is not.
    const seq = asMalformed(() => readDer(key), "x509: invalid RSA public key");
    if (!isUniversal(seq, TAG.sequence) || !seq.constructed) {
      throw new PkiError("x509: invalid RSA public key");
    }
    const n = asMalformed(() => readDer(seq.content), "x509: invalid RSA modulus");
    const modulus = asMalformed(() => integerOf(n), "x509: invalid RSA modulus");
    const exponent = asMalformed(
      () => integerOf(readDer(seq.content.subarray(n.raw.length))),
      "x509: invalid RSA public exponent",
    );
    if (exponent >= 1n << 63n) throw new PkiError("x509: invalid RSA public exponent");
    if (modulus <= 0n) throw new PkiError("x509: RSA modulus is not a positive number");
    if (exponent <= 0n) throw new PkiError("x509: RSA public exponent is not a positive number");
  } else if (alg.oid === OID.ecPublicKey) {
    const curve = oidOf(alg.params);
    if (curve === undefined) throw new PkiError("x509: invalid ECDSA parameters");
    const name = CURVES[curve];
    if (name === undefined) throw new PkiError("x509: unsupported elliptic curve");
    if (key[0] !== 4) throw new PkiError("ecdsa: invalid uncompressed public key");
    const problem = ecPointProblem(name, key);
    if (problem) throw new PkiError(problem);
  } else if (alg.oid === ED25519) {
    if (alg.params) throw new PkiError("x509: Ed25519 key encoded with illegal parameters");
    if (key.length !== 32) throw new PkiError("x509: wrong Ed25519 public key size");
  } else {
    throw new PkiError("x509: unknown public key algorithm");
  }
}

/**
 * Parses a DER certificate as Go's `x509.ParseCertificate` does, with its checks and messages
 * (a {@link PkiError}): DER only, versions 1 to 3, a non-negative serial, the same signature
 * algorithm inside and out, names of Go's string types, valid times, the public keys Go knows
 * well formed, extensions (read for v3 only) without duplicates and, for those kubeadm reads,
 * well formed. Also refused, as openssl refuses them: anything after the last field of a
 * SEQUENCE (Go ignores it in a few places) and malformed unique identifiers; and, where Go keeps
 * what openssl may refuse, public-key algorithms kubeadm cannot use and algorithm parameters
 * other than absent, NULL or a SEQUENCE.
 */
export function parseCertificate(der: Uint8Array): Certificate {
  const copy = der.slice();
  const top = asMalformed(() => readDer(copy), "x509: malformed certificate");
  const [tbsBlock, sigAlgBlock, sigBlock, ...trailing] = sequenceItems(
    top,
    "x509: malformed certificate",
  );
  if (top.raw.length !== copy.length) throw new PkiError("x509: trailing data");
  const tbsItems = sequenceItems(tbsBlock, "x509: malformed tbs certificate");
  let i = 0;
  let version = 1;
  if (isContext(tbsItems[0], 0) && tbsItems[0].constructed) {
    const [v, ...rest] = explicitItems(tbsItems[0], "x509: malformed version");
    const n = asMalformed(() => integerOf(v), "x509: malformed version");
    if (rest.length > 0 || n < 0n || n >= 1n << 63n) throw new PkiError("x509: malformed version");
    if (n > 2n) throw new PkiError("x509: invalid version");
    version = Number(n) + 1;
    i = 1;
  }
  const serialNumber = asMalformed(
    () => integerOf(tbsItems[i]),
    "x509: malformed serial number",
  );
  if (serialNumber < 0n) throw new PkiError("x509: negative serial number");
  const sigAlgItems = sequenceItems(
    tbsItems[i + 1],
    "x509: malformed signature algorithm identifier",
  );
  sequenceItems(sigAlgBlock, "x509: malformed algorithm identifier");
  if (!bytesEqual(sigAlgBlock.content, tbsItems[i + 1].content)) {
    throw new PkiError("x509: inner and outer signature algorithm identifiers don't match");
  }
  const { oid: signatureAlgorithm, params: sigParams } = algorithmOf(sigAlgItems);
  if (!plainParameters(sigParams)) throw new PkiError("x509: malformed parameters");
  sequenceItems(tbsItems[i + 2], "x509: malformed issuer");
  const issuer = parseName(tbsItems[i + 2]);
  const validity = sequenceItems(tbsItems[i + 3], "x509: malformed validity");
  if (validity.length !== 2) throw new PkiError("x509: malformed validity");
  const notBefore = parseTime(validity[0]);
  const notAfter = parseTime(validity[1]);
  // Go's message for a subject that is not a SEQUENCE names the issuer too.
  sequenceItems(tbsItems[i + 4], "x509: malformed issuer");
  const subject = parseName(tbsItems[i + 4]);
  const [keyAlg, keyBits, ...spkiRest] = sequenceItems(tbsItems[i + 5], "x509: malformed spki");
  const alg = algorithmOf(
    sequenceItems(keyAlg, "x509: malformed public key algorithm identifier"),
  );
  const key = asMalformed(() => bitStringOf(keyBits), "x509: malformed subjectPublicKey");
  if (spkiRest.length > 0) throw new PkiError("x509: malformed spki");
  checkPublicKey(alg, key);
  // [1] issuerUniqueID, [2] subjectUniqueID (BIT STRINGs), [3] extensions, in this order.
  let rest = tbsItems.slice(i + 6);
  for (const [tag, what] of [[1, "issuerUniqueID"], [2, "subjectUniqueID"]] as const) {
    if (!isContext(rest[0], tag)) continue;
    const c = rest[0].content;
    if (rest[0].constructed || c.length === 0 || c[0] > 7) {
      throw new PkiError(`x509: malformed ${what}`);
    }
    rest = rest.slice(1);
  }
  let extensions: RawExtension[] = [];
  if (isContext(rest[0], 3) && rest[0].constructed) {
    const [list, ...more] = explicitItems(rest[0], "x509: malformed extensions");
    if (more.length > 0) throw new PkiError("x509: malformed extensions");
    extensions = readExtensions(sequenceItems(list, "x509: malformed extensions"));
    rest = rest.slice(1);
  }
  if (rest.length > 0) throw new PkiError("x509: malformed tbs certificate");
  const signature = asMalformed(() => bitStringOf(sigBlock), "x509: malformed signature");
  if (trailing.length > 0) throw new PkiError("x509: malformed certificate");
  return {
    der: copy,
    tbs: tbsBlock.raw.slice(),
    version,
    serialNumber,
    subject,
    issuer,
    notBefore,
    notAfter,
    spki: tbsItems[i + 5].raw.slice(),
    signatureAlgorithm,
    signature: signature.slice(),
    // Go reads extensions in version 3 certificates only.
    ...decodeExtensions(version === 3 ? extensions : []),
  };
}

/** The elements inside an explicitly tagged element, or a PkiError `message`. */
function explicitItems(el: DerElement, message: string): DerElement[] {
  return asMalformed(() => childrenOf(el), message);
}

/**
 * Parses every `CERTIFICATE` block without headers of a PEM text (client-go `ParseCertsPEM`);
 * throws `data does not contain any valid RSA or ECDSA certificates` when there is none.
 */
export function parseCertificatesPEM(pem: string | Uint8Array): Certificate[] {
  const blocks = decodePem(pem).filter((b) => b.type === CERTIFICATE_BLOCK && !b.headers);
  const certs = blocks.map((b) => parseCertificate(b.bytes));
  if (certs.length === 0) {
    throw new PkiError("data does not contain any valid RSA or ECDSA certificates");
  }
  return certs;
}

/** PEM of one certificate, or a bundle of several (in order). */
export function encodeCertificatePEM(cert: Certificate | Certificate[]): string {
  return (Array.isArray(cert) ? cert : [cert]).map((c) => encodePem(CERTIFICATE_BLOCK, c.der)).join(
    "",
  );
}

/** True when the certificate's signature verifies with the issuer's public key. */
export async function checkSignatureFrom(
  cert: Certificate,
  issuer: Certificate,
  crypto: CryptoPort,
): Promise<boolean> {
  try {
    return await verifySignature(
      issuer.spki,
      cert.signatureAlgorithm,
      cert.tbs,
      cert.signature,
      crypto,
    );
  } catch {
    return false;
  }
}

/** Go's `time.Time` `%v` form: `2006-01-02 15:04:05 +0000 UTC`. */
function formatGoTime(d: Date): string {
  return `${d.toISOString().slice(0, 19).replace("T", " ")} +0000 UTC`;
}

function rfc3339(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/**
 * Checks the certificate's validity period against `now` (upstream `ValidateCertPeriod`);
 * returns the problem in upstream's words, or `undefined` when valid.
 */
export function certPeriodProblem(cert: Certificate, now: Date): string | undefined {
  const period = () =>
    `NotBefore: ${formatGoTime(cert.notBefore)}, NotAfter: ${formatGoTime(cert.notAfter)}`;
  if (now < cert.notBefore) return `the certificate is not valid yet: ${period()}`;
  if (now > cert.notAfter) return `the certificate has expired: ${period()}`;
  return undefined;
}

function expiryError(cert: Certificate, now: Date): string | undefined {
  if (now < cert.notBefore) {
    return `x509: certificate has expired or is not yet valid: current time ${
      rfc3339(now)
    } is before ${rfc3339(cert.notBefore)}`;
  }
  if (now > cert.notAfter) {
    return `x509: certificate has expired or is not yet valid: current time ${
      rfc3339(now)
    } is after ${rfc3339(cert.notAfter)}`;
  }
  return undefined;
}

function canSign(c: Certificate): boolean {
  if (c.version === 3 && !c.basicConstraintsValid) return false;
  if (c.basicConstraintsValid && !c.isCA) return false;
  return c.keyUsage.length === 0 || c.keyUsage.includes("keyCertSign");
}

/**
 * Verifies that `cert` chains to `root` through `intermediates` at time `now`, like Go's
 * `cert.Verify` with the root as the only trust anchor and any key usage (upstream
 * `VerifyCertChain`). Throws a {@link PkiError} with Go's wording when it does not.
 */
export async function verifyCertChain(
  cert: Certificate,
  intermediates: Certificate[],
  root: Certificate,
  now: Date,
  crypto: CryptoPort,
): Promise<void> {
  const expired = expiryError(cert, now);
  if (expired) throw new PkiError(expired);
  let current = cert;
  let hint: { err: string; name: string } | undefined;
  const pool = [...intermediates];
  for (let depth = 0; depth < 10; depth++) {
    if (bytesEqual(current.issuer.der, root.subject.der)) {
      if (!canSign(root)) {
        hint = {
          err: "x509: invalid signature: parent certificate cannot sign this kind of certificate",
          name: root.subject.commonName,
        };
      } else if (await checkSignatureFrom(current, root, crypto)) {
        const rootExpired = expiryError(root, now);
        if (rootExpired) throw new PkiError(rootExpired);
        return;
      } else {
        hint = { err: signatureErrorText(root), name: root.subject.commonName };
      }
    }
    const next = await findParent(current, pool, crypto);
    if (!next) break;
    const exp = expiryError(next, now);
    if (exp) throw new PkiError(exp);
    pool.splice(pool.indexOf(next), 1);
    current = next;
  }
  let msg = "x509: certificate signed by unknown authority";
  if (hint) {
    msg += ` (possibly because of ${
      JSON.stringify(hint.err)
    } while trying to verify candidate authority certificate ${
      JSON.stringify(hint.name || "serial:" + root.serialNumber)
    })`;
  }
  throw new PkiError(msg);
}

function signatureErrorText(signer: Certificate): string {
  return asn1SpkiIsRSA(signer.spki)
    ? "crypto/rsa: verification error"
    : "x509: ECDSA verification failure";
}

function asn1SpkiIsRSA(spki: Uint8Array): boolean {
  // rsaEncryption OID bytes: 2a 86 48 86 f7 0d 01 01 01
  const needle = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
  outer: for (let i = 0; i + needle.length <= Math.min(spki.length, 32); i++) {
    for (let j = 0; j < needle.length; j++) if (spki[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

async function findParent(
  cert: Certificate,
  pool: Certificate[],
  crypto: CryptoPort,
): Promise<Certificate | undefined> {
  for (const candidate of pool) {
    if (!bytesEqual(cert.issuer.der, candidate.subject.der) || !canSign(candidate)) continue;
    if (await checkSignatureFrom(cert, candidate, crypto)) return candidate;
  }
  return undefined;
}

/** True when the key pair's public half is the certificate's public key. */
export async function keyMatchesCertificate(key: KeyPair, cert: Certificate): Promise<boolean> {
  return samePublicKey(await exportSPKI(key), cert.spki);
}

/** True when the certificate carries the serverAuth extended key usage. */
export function hasServerAuth(cert: Certificate): boolean {
  return cert.extKeyUsage.includes("serverAuth");
}

function validHostnameInput(host: string): boolean {
  if (host.length === 0 || host.startsWith(".")) return false;
  const h = host.endsWith(".") ? host.slice(0, -1) : host;
  return h.split(".").every((label) => label.length > 0 && /^[A-Za-z0-9_-]+$/.test(label));
}

function matchHostnames(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  const h = host.toLowerCase().replace(/\.$/, "");
  if (p.length === 0 || h.length === 0) return false;
  const pp = p.split(".");
  const hp = h.split(".");
  if (pp.length !== hp.length) return false;
  return pp.every((part, i) => (i === 0 && part === "*") || part === hp[i]);
}

/**
 * Checks that the certificate is valid for a DNS name or IP (Go's `VerifyHostname`: SANs only,
 * wildcards in the first label); throws a {@link PkiError} with Go's wording otherwise.
 */
export function verifyHostname(cert: Certificate, host: string): void {
  const candidateIP = host.length >= 3 && host.startsWith("[") && host.endsWith("]")
    ? host.slice(1, -1)
    : host;
  const ip = parseIP(candidateIP);
  if (ip) {
    if (cert.ipAddresses.some((c) => ipEqual(parseIP(c)!, ip))) return;
    if (cert.ipAddresses.length === 0) {
      throw new PkiError(
        `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`,
      );
    }
    throw new PkiError(
      `x509: certificate is valid for ${cert.ipAddresses.join(", ")}, not ${host}`,
    );
  }
  const candidate = host.toLowerCase();
  const valid = validHostnameInput(candidate);
  for (const name of cert.dnsNames) {
    if (valid ? matchHostnames(name, candidate) : name.toLowerCase() === candidate) return;
  }
  if (cert.dnsNames.length === 0) {
    throw new PkiError(`x509: certificate is not valid for any names, but wanted to match ${host}`);
  }
  throw new PkiError(`x509: certificate is valid for ${cert.dnsNames.join(", ")}, not ${host}`);
}

/** The CA pin of every certificate of a PEM bundle, in order (what a join command lists). */
export async function pemCertificatePins(
  pem: string | Uint8Array,
  crypto: Hashing,
): Promise<string[]> {
  return await Promise.all(parseCertificatesPEM(pem).map((c) => certificatePin(c, crypto)));
}
