/**
 * Certificates and keys on the node's disk (upstream `pkiutil` file helpers), read and
 * written only through the {@link FileReader}/{@link FileSystem} ports.
 *
 * Loading distinguishes "missing" (returns `undefined` from the `read*` helpers) from "present
 * but unusable" (throws, naming the file in upstream's words). Modes follow upstream: keys,
 * public keys 0600, certificates 0644.
 *
 * @module
 */
import type { FileReader, FileSystem } from "../ports/files.ts";
import { errorMessage, ExistingFileError, KubeadmError, PkiError } from "../errors.ts";
import {
  type Certificate,
  certPeriodProblem,
  encodeCertificatePEM,
  keyMatchesCertificate,
  parseCertificatesPEM,
} from "../pki/cert.ts";
import {
  encodePrivateKeyPEM,
  encodePublicKeyPEM,
  type KeyPair,
  parsePrivateKeyPEM,
} from "../pki/keys.ts";
import type { CryptoPort } from "../ports/crypto.ts";
import { certPath, keyPath, publicKeyPath } from "./certlist.ts";
import { ParsedFiles } from "../files/parsed_files.ts";

/** The certificates of the PEM files a run reads and writes (see `ParsedFiles`). */
const parsedCerts = new ParsedFiles<readonly Certificate[]>();
/** The keys of its key files, per crypto port (a key is bound to the port that made it). */
const parsedKeys = new WeakMap<CryptoPort, ParsedFiles<KeyPair>>();

function parsedKeysOf(crypto: CryptoPort): ParsedFiles<KeyPair> {
  // Weakly held: a caller may make a port per request, and each goes with its runs.
  let memo = parsedKeys.get(crypto);
  if (!memo) parsedKeys.set(crypto, memo = new ParsedFiles());
  return memo;
}

/** File mode of private and public keys. */
export const KEY_FILE_MODE = 0o600;
/** File mode of certificates. */
export const CERT_FILE_MODE = 0o644;

function notFound(path: string): string {
  return `open ${path}: no such file or directory`;
}

/** True when the certificate or the key file of `baseName` exists (upstream `CertOrKeyExist`). */
export async function certOrKeyExists(
  files: FileReader,
  certDir: string,
  baseName: string,
): Promise<boolean> {
  const [c, k] = await Promise.all([
    files.read(certPath(certDir, baseName)),
    files.read(keyPath(certDir, baseName)),
  ]);
  return c !== undefined || k !== undefined;
}

/** True when a file exists. */
export async function fileExists(files: FileReader, path: string): Promise<boolean> {
  return (await files.read(path)) !== undefined;
}

/**
 * Reads every certificate of a PEM file (client-go `certutil.CertsFromFile`). Throws a
 * {@link PkiError} in its words: `open <path>: no such file or directory` when missing,
 * `error reading <path>: ...` when it holds no certificate.
 */
export async function readCertsFile(files: FileReader, path: string): Promise<Certificate[]> {
  const data = await files.read(path);
  if (data === undefined) throw new PkiError(notFound(path), { field: path });
  try {
    return [...parsedCerts.of(files, data, parseCertificatesPEM)];
  } catch (e) {
    throw new PkiError(`error reading ${path}: ${errorMessage(e)}`, { field: path, cause: e });
  }
}

/**
 * Loads `<base>.crt` (first certificate, then any intermediates). Throws a {@link PkiError}
 * `couldn't load the certificate file <path>: ...` when missing or unreadable.
 */
export async function loadCertChain(
  files: FileReader,
  certDir: string,
  baseName: string,
): Promise<{ cert: Certificate; intermediates: Certificate[]; path: string }> {
  const path = certPath(certDir, baseName);
  try {
    const [cert, ...intermediates] = await readCertsFile(files, path);
    return { cert, intermediates, path };
  } catch (e) {
    throw new PkiError(`couldn't load the certificate file ${path}: ${errorMessage(e)}`, {
      field: path,
      cause: e,
    });
  }
}

/** Loads the first certificate of `<base>.crt` (upstream `TryLoadCertFromDisk`). */
export async function loadCert(
  files: FileReader,
  certDir: string,
  baseName: string,
): Promise<Certificate> {
  return (await loadCertChain(files, certDir, baseName)).cert;
}

/**
 * Loads `<base>.key` (RSA or ECDSA; upstream `TryLoadKeyFromDisk`). Throws a
 * {@link PkiError} `couldn't load the private key file <path>: ...` when missing or unusable.
 */
export async function loadKey(
  files: FileReader,
  certDir: string,
  baseName: string,
  crypto: CryptoPort,
): Promise<KeyPair> {
  const path = keyPath(certDir, baseName);
  const data = await files.read(path);
  if (data === undefined) {
    throw new PkiError(`couldn't load the private key file ${path}: ${notFound(path)}`, {
      field: path,
    });
  }
  try {
    return await parsedKeysOf(crypto).ofAsync(
      files,
      data,
      (pem) => parsePrivateKeyPEM(pem, crypto, path),
    );
  } catch (e) {
    if (errorMessage(e).startsWith("the private key file")) throw e;
    throw new PkiError(`couldn't load the private key file ${path}: ${errorMessage(e)}`, {
      field: path,
      cause: e,
    });
  }
}

/**
 * Loads `<base>.crt` and `<base>.key` (upstream `TryLoadCertAndKeyFromDisk`). Throws a
 * {@link PkiError} `failed to load certificate: ...` or `failed to load key: ...` whose field
 * is the file that did not load.
 */
export async function loadCertAndKey(
  files: FileReader,
  certDir: string,
  baseName: string,
  crypto: CryptoPort,
): Promise<{ cert: Certificate; key: KeyPair }> {
  let cert: Certificate;
  try {
    cert = await loadCert(files, certDir, baseName);
  } catch (e) {
    throw new PkiError(`failed to load certificate: ${errorMessage(e)}`, {
      field: certPath(certDir, baseName),
      cause: e,
    });
  }
  try {
    return { cert, key: await loadKey(files, certDir, baseName, crypto) };
  } catch (e) {
    throw new PkiError(`failed to load key: ${errorMessage(e)}`, {
      field: keyPath(certDir, baseName),
      cause: e,
    });
  }
}

/**
 * What the hint of a refused CA (or service-account key pair) may advise, which depends on the
 * command that found it:
 * - `regenerate`: the run builds the cluster's first PKI (`init`), nothing trusts these files
 *   yet, so removing them to have new ones generated is a way out;
 * - `restore`: the files belong to a running cluster (`certs renew`, `kubeconfig user`, a
 *   control plane joining): every certificate, kubeconfig file and node trusts them, so only
 *   the matching file may be put back; a new CA would break the cluster.
 *
 * A leaf's own pair can always be regenerated; this is about what signs or verifies others.
 */
export type KeyPairRecovery = "regenerate" | "restore";

/**
 * The `restore` advice for a file the cluster trusts: put `what` back, never make a new `keep`
 * (by default a CA, which `why` explains).
 */
export function restoreTrustedHint(
  what: string,
  keep: string,
  certDir: string,
  why =
    "the cluster's certificates, kubeconfig files and nodes trust it, and a new one would break them",
): string {
  return `restore ${what} from a backup of ${certDir} or from another control-plane node; do not remove or regenerate ${keep}: ${why}`;
}

function caName(baseName: string): string {
  return `the ${baseName} certificate authority`;
}

/**
 * Loads a CA certificate and key (upstream `LoadCertificateAuthority`): both must load, the
 * certificate must be a CA and the key must be its key (checked before anything is signed).
 * The hints of the refusals follow `recovery` (default `restore`).
 */
export async function loadCertificateAuthority(
  files: FileReader,
  certDir: string,
  baseName: string,
  crypto: CryptoPort,
  recovery: KeyPairRecovery = "restore",
): Promise<{ cert: Certificate; key: KeyPair }> {
  const crtPath = certPath(certDir, baseName);
  if (!(await certOrKeyExists(files, certDir, baseName))) {
    throw new PkiError(`couldn't load ${baseName} certificate authority from ${certDir}`, {
      field: crtPath,
      hint: recovery === "regenerate"
        ? `run "kubeadm init phase certs ${baseName === "etcd/ca" ? "etcd-ca" : baseName}" first`
        : restoreTrustedHint(
          `${crtPath} and ${keyPath(certDir, baseName)}`,
          caName(baseName),
          certDir,
        ),
    });
  }
  let cert: Certificate;
  let key: KeyPair;
  try {
    ({ cert, key } = await loadCertAndKey(files, certDir, baseName, crypto));
  } catch (e) {
    throw new ExistingFileError(
      `failure loading ${baseName} certificate authority: ${errorMessage(e)}`,
      { field: e instanceof KubeadmError ? e.field : undefined, cause: e },
    );
  }
  if (!cert.isCA) {
    throw new ExistingFileError(`${baseName} certificate is not a certificate authority`, {
      field: crtPath,
      hint: recovery === "regenerate"
        ? "replace it with a CA certificate (basicConstraints CA:TRUE) or remove it"
        : restoreTrustedHint(`the cluster's CA certificate ${crtPath}`, caName(baseName), certDir),
    });
  }
  await checkKeyMatchesCertificate(key, cert, certDir, baseName, recovery);
  return { cert, key };
}

/**
 * Refuses a `<base>.key` that is not the key of `<base>.crt` (upstream refuses to sign with
 * such a CA key: `x509: provided PrivateKey doesn't match parent's PublicKey`), naming both
 * files. The hint follows `recovery`: only `regenerate` suggests removing the pair (`restore`
 * is for CAs, whose pair the cluster trusts).
 */
export async function checkKeyMatchesCertificate(
  key: KeyPair,
  cert: Certificate,
  certDir: string,
  baseName: string,
  recovery: KeyPairRecovery = "restore",
): Promise<void> {
  if (await keyMatchesCertificate(key, cert)) return;
  const kPath = keyPath(certDir, baseName);
  const crtPath = certPath(certDir, baseName);
  throw new ExistingFileError(
    `the private key file ${kPath} does not match the certificate ${crtPath}`,
    {
      field: kPath,
      hint: recovery === "regenerate"
        ? `restore the key ${crtPath} was issued for, or remove both files to have them generated`
        : restoreTrustedHint(`the key ${crtPath} was issued for`, caName(baseName), certDir),
    },
  );
}

/** Upstream's period warning for a loaded certificate, or `undefined` when it is in its period. */
export function periodWarning(name: string, cert: Certificate, now: Date): string | undefined {
  const problem = certPeriodProblem(cert, now);
  return problem
    ? `WARNING: could not validate bounds for certificate ${name}: ${problem}`
    : undefined;
}

/**
 * Writes `<base>.key` (0600) then `<base>.crt` (0644), as upstream `WriteCertAndKey` does;
 * `crypto` as {@link writeKey}'s.
 */
export async function writeCertAndKey(
  files: FileSystem,
  certDir: string,
  baseName: string,
  cert: Certificate,
  key: KeyPair,
  crypto?: CryptoPort,
): Promise<void> {
  await writeKey(files, certDir, baseName, key, crypto);
  await writeCert(files, certDir, baseName, cert);
}

/** Writes `<base>.crt` (0644); a bundle when given several certificates. */
async function writeCert(
  files: FileSystem,
  certDir: string,
  baseName: string,
  cert: Certificate | Certificate[],
): Promise<void> {
  const data = encodeCertificatePEM(cert);
  await files.write({
    path: certPath(certDir, baseName),
    data,
    mode: CERT_FILE_MODE,
    kind: "certificate",
  });
  parsedCerts.remember(files, data, Array.isArray(cert) ? [...cert] : [cert]);
}

/**
 * Writes `<base>.key` (0600) as `RSA PRIVATE KEY` / `EC PRIVATE KEY`. `crypto`, when given, is
 * the port the key was made or imported with: a later {@link loadKey} of the file with that
 * port returns the key itself.
 */
export async function writeKey(
  files: FileSystem,
  certDir: string,
  baseName: string,
  key: KeyPair,
  crypto?: CryptoPort,
): Promise<void> {
  const data = await encodePrivateKeyPEM(key);
  await files.write({ path: keyPath(certDir, baseName), data, mode: KEY_FILE_MODE, kind: "key" });
  if (crypto) parsedKeysOf(crypto).remember(files, data, key);
}

/** Writes `<base>.pub` (0600) as `PUBLIC KEY`. */
export async function writePublicKey(
  files: FileSystem,
  certDir: string,
  baseName: string,
  key: KeyPair,
): Promise<void> {
  await files.write({
    path: publicKeyPath(certDir, baseName),
    data: await encodePublicKeyPEM(key),
    mode: KEY_FILE_MODE,
    kind: "public-key",
  });
}
