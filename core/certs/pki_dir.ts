/**
 * The certificates directory of a node (`certificatesDir`, upstream `pkiutil`'s file helpers)
 * as one object: its files (read, and written when the run may write), where it is, and the
 * crypto port its keys are loaded with. Every certificate, key and CSR path, every load, check
 * and write of the tree, the renewal, the external-CA checks and the kubeconfig files goes
 * through a {@link PkiDirectory}, so a certificate is named by its base name (`apiserver`,
 * `etcd/ca`) alone.
 *
 * Loading distinguishes "missing" (the `has*` questions) from "present but unusable" (throws,
 * naming the file in upstream's words). Modes follow upstream: keys, public keys and CSRs 0600,
 * certificates 0644. What a run writes is remembered as written (`files/parsed_files.ts`), so
 * each content is parsed at most once per file system.
 *
 * @module
 */
import type { FileReader, FileSystem, PlannedFile } from "../ports/files.ts";
import type { CryptoPort } from "../ports/crypto.ts";
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

/** File mode of private keys, public keys and CSRs. */
export const KEY_FILE_MODE = 0o600;
/** File mode of certificates. */
export const CERT_FILE_MODE = 0o644;

function notFound(path: string): string {
  return `open ${path}: no such file or directory`;
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

/** A file of the directory to write: PEM text. */
export type PemFile = PlannedFile & { data: string };

/** A certificate with its key, as a CA signs with them. */
export interface CertAndKey {
  cert: Certificate;
  key: KeyPair;
}

/** `<base>.crt`'s certificates: the first, the intermediates after it, and the file. */
export interface CertChain {
  cert: Certificate;
  intermediates: Certificate[];
  path: string;
}

function caName(baseName: string): string {
  return `the ${baseName} certificate authority`;
}

/** Upstream's period warning for a loaded certificate, or `undefined` when it is in its period. */
export function periodWarning(name: string, cert: Certificate, now: Date): string | undefined {
  const problem = certPeriodProblem(cert, now);
  return problem
    ? `WARNING: could not validate bounds for certificate ${name}: ${problem}`
    : undefined;
}

/**
 * A node's certificates directory: `files` (a {@link FileSystem} when the run writes there),
 * `certificatesDir` and the `crypto` port that loads (and made) its keys.
 */
export class PkiDirectory<F extends FileReader = FileReader> {
  readonly #prefix: string;
  /** A walk's reads by path (see {@link PkiDirectory.walk}); absent, every read reaches the files. */
  #reads?: Map<string, Promise<Uint8Array | undefined>>;

  constructor(
    /** The node's files the directory is read (and written) through. */
    readonly files: F,
    /** The directory as configured (messages name it so; paths drop a trailing `/`). */
    readonly certificatesDir: string,
    /** Loads (and made) the directory's keys. */
    readonly crypto: CryptoPort,
  ) {
    this.#prefix = `${certificatesDir.replace(/\/+$/, "")}/`;
  }

  /** The certificates directory of a run's configuration, on its files and crypto port. */
  static of<F extends FileReader>(
    run: { files: F; cfg: { cluster: { certificatesDir: string } }; crypto: CryptoPort },
  ): PkiDirectory<F> {
    return new PkiDirectory(run.files, run.cfg.cluster.certificatesDir, run.crypto);
  }

  /**
   * This directory for one walk over a certificate (its presence, loads and checks, and its
   * CA's): each file is read at most once during the walk, and a file the walk writes is read
   * again afterwards. A walk is short-lived: it does not see what others write meanwhile.
   */
  walk(): PkiDirectory<F> {
    const walk = new PkiDirectory(this.files, this.certificatesDir, this.crypto);
    walk.#reads = new Map();
    return walk;
  }

  /** The content of `<dir>/<name>`, or `undefined` when it does not exist. */
  read(name: string): Promise<Uint8Array | undefined> {
    return this.#readPath(this.path(name));
  }

  #readPath(path: string): Promise<Uint8Array | undefined> {
    if (!this.#reads) return this.files.read(path);
    let read = this.#reads.get(path);
    if (!read) this.#reads.set(path, read = this.files.read(path));
    return read;
  }

  /** Writes `file` through the directory's file system (a walk reads it afresh). */
  async #write(this: PkiDirectory<FileSystem>, file: PlannedFile): Promise<void> {
    this.#reads?.delete(file.path);
    await this.files.write(file);
  }

  /** `<dir>/<name>`: any file of the directory (`sa.key`, `etcd/ca.crt`). */
  path(name: string): string {
    return this.#prefix + name;
  }

  /** `<dir>/<base>.crt`. */
  certPath(baseName: string): string {
    return this.path(`${baseName}.crt`);
  }

  /** `<dir>/<base>.key`. */
  keyPath(baseName: string): string {
    return this.path(`${baseName}.key`);
  }

  /** `<dir>/<base>.pub`. */
  publicKeyPath(baseName: string): string {
    return this.path(`${baseName}.pub`);
  }

  /** `<dir>/<base>.csr`. */
  csrPath(baseName: string): string {
    return this.path(`${baseName}.csr`);
  }

  /** Whether `<dir>/<name>` exists. */
  async has(name: string): Promise<boolean> {
    return (await this.read(name)) !== undefined;
  }

  /** Whether `<base>.crt` exists. */
  hasCert(baseName: string): Promise<boolean> {
    return this.has(`${baseName}.crt`);
  }

  /** Whether `<base>.key` exists. */
  hasKey(baseName: string): Promise<boolean> {
    return this.has(`${baseName}.key`);
  }

  /** Whether the certificate or the key of `baseName` exists (upstream `CertOrKeyExist`). */
  async hasCertOrKey(baseName: string): Promise<boolean> {
    const [cert, key] = await Promise.all([this.hasCert(baseName), this.hasKey(baseName)]);
    return cert || key;
  }

  /** Whether a CA's certificate is here without its key (an external, "keyless" CA). */
  async isKeyless(baseName = "ca"): Promise<boolean> {
    return await this.hasCert(baseName) && !(await this.hasKey(baseName));
  }

  /**
   * Every certificate of `<base>.crt` (client-go `certutil.CertsFromFile`). Throws a
   * {@link PkiError} in its words: `open <path>: no such file or directory` when missing,
   * `error reading <path>: ...` when it holds no certificate.
   */
  async readCerts(baseName: string): Promise<Certificate[]> {
    const path = this.certPath(baseName);
    const data = await this.#readPath(path);
    if (data === undefined) throw new PkiError(notFound(path), { field: path });
    try {
      return [...parsedCerts.of(this.files, data, parseCertificatesPEM)];
    } catch (e) {
      throw new PkiError(`error reading ${path}: ${errorMessage(e)}`, { field: path, cause: e });
    }
  }

  /**
   * Loads `<base>.crt` (first certificate, then any intermediates). Throws a {@link PkiError}
   * `couldn't load the certificate file <path>: ...` when missing or unreadable.
   */
  async loadCertChain(baseName: string): Promise<CertChain> {
    const path = this.certPath(baseName);
    try {
      const [cert, ...intermediates] = await this.readCerts(baseName);
      return { cert, intermediates, path };
    } catch (e) {
      throw new PkiError(`couldn't load the certificate file ${path}: ${errorMessage(e)}`, {
        field: path,
        cause: e,
      });
    }
  }

  /** Loads the first certificate of `<base>.crt` (upstream `TryLoadCertFromDisk`). */
  async loadCert(baseName: string): Promise<Certificate> {
    return (await this.loadCertChain(baseName)).cert;
  }

  /**
   * Loads `<base>.key` (RSA or ECDSA; upstream `TryLoadKeyFromDisk`). Throws a
   * {@link PkiError} `couldn't load the private key file <path>: ...` when missing or unusable.
   */
  async loadKey(baseName: string): Promise<KeyPair> {
    const path = this.keyPath(baseName);
    const data = await this.#readPath(path);
    if (data === undefined) {
      throw new PkiError(`couldn't load the private key file ${path}: ${notFound(path)}`, {
        field: path,
      });
    }
    try {
      return await parsedKeysOf(this.crypto).ofAsync(
        this.files,
        data,
        (pem) => parsePrivateKeyPEM(pem, this.crypto, path),
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
  async loadCertAndKey(baseName: string): Promise<CertAndKey> {
    let cert: Certificate;
    try {
      cert = await this.loadCert(baseName);
    } catch (e) {
      throw new PkiError(`failed to load certificate: ${errorMessage(e)}`, {
        field: this.certPath(baseName),
        cause: e,
      });
    }
    try {
      return { cert, key: await this.loadKey(baseName) };
    } catch (e) {
      throw new PkiError(`failed to load key: ${errorMessage(e)}`, {
        field: this.keyPath(baseName),
        cause: e,
      });
    }
  }

  /**
   * The `restore` advice for a file the cluster trusts: put `what` back, never make a new `keep`
   * (by default a CA, which `why` explains).
   */
  restoreHint(
    what: string,
    keep: string,
    why =
      "the cluster's certificates, kubeconfig files and nodes trust it, and a new one would break them",
  ): string {
    return `restore ${what} from a backup of ${this.certificatesDir} or from another control-plane node; do not remove or regenerate ${keep}: ${why}`;
  }

  /**
   * Loads a CA certificate and key (upstream `LoadCertificateAuthority`): both must load, the
   * certificate must be a CA and the key must be its key (checked before anything is signed).
   * The hints of the refusals follow `recovery` (default `restore`).
   */
  async loadCA(baseName: string, recovery: KeyPairRecovery = "restore"): Promise<CertAndKey> {
    const crtPath = this.certPath(baseName);
    if (!(await this.hasCertOrKey(baseName))) {
      throw new PkiError(
        `couldn't load ${baseName} certificate authority from ${this.certificatesDir}`,
        {
          field: crtPath,
          hint: recovery === "regenerate"
            ? `run "kubeadm init phase certs ${
              baseName === "etcd/ca" ? "etcd-ca" : baseName
            }" first`
            : this.restoreHint(`${crtPath} and ${this.keyPath(baseName)}`, caName(baseName)),
        },
      );
    }
    let pair: CertAndKey;
    try {
      pair = await this.loadCertAndKey(baseName);
    } catch (e) {
      throw new ExistingFileError(
        `failure loading ${baseName} certificate authority: ${errorMessage(e)}`,
        { field: e instanceof KubeadmError ? e.field : undefined, cause: e },
      );
    }
    if (!pair.cert.isCA) {
      throw new ExistingFileError(`${baseName} certificate is not a certificate authority`, {
        field: crtPath,
        hint: recovery === "regenerate"
          ? "replace it with a CA certificate (basicConstraints CA:TRUE) or remove it"
          : this.restoreHint(`the cluster's CA certificate ${crtPath}`, caName(baseName)),
      });
    }
    await this.checkKeyMatches(baseName, pair, recovery);
    return pair;
  }

  /**
   * Refuses a `<base>.key` that is not the key of `<base>.crt` (upstream refuses to sign with
   * such a CA key: `x509: provided PrivateKey doesn't match parent's PublicKey`), naming both
   * files. The hint follows `recovery`: only `regenerate` suggests removing the pair (`restore`
   * is for CAs, whose pair the cluster trusts).
   */
  async checkKeyMatches(
    baseName: string,
    { cert, key }: CertAndKey,
    recovery: KeyPairRecovery = "restore",
  ): Promise<void> {
    if (await keyMatchesCertificate(key, cert)) return;
    const kPath = this.keyPath(baseName);
    const crtPath = this.certPath(baseName);
    throw new ExistingFileError(
      `the private key file ${kPath} does not match the certificate ${crtPath}`,
      {
        field: kPath,
        hint: recovery === "regenerate"
          ? `restore the key ${crtPath} was issued for, or remove both files to have them generated`
          : this.restoreHint(`the key ${crtPath} was issued for`, caName(baseName)),
      },
    );
  }

  /** `<base>.key` (0600) as `RSA PRIVATE KEY` / `EC PRIVATE KEY`, to write. */
  async keyFile(baseName: string, key: KeyPair): Promise<PemFile> {
    return {
      path: this.keyPath(baseName),
      data: await encodePrivateKeyPEM(key),
      mode: KEY_FILE_MODE,
      kind: "key",
    };
  }

  /** `<base>.crt` (0644), to write; a bundle when given several certificates. */
  certFile(baseName: string, cert: Certificate | Certificate[]): PemFile {
    return {
      path: this.certPath(baseName),
      data: encodeCertificatePEM(cert),
      mode: CERT_FILE_MODE,
      kind: "certificate",
    };
  }

  /**
   * Writes `<base>.key` (0600) then `<base>.crt` (0644), as upstream `WriteCertAndKey` does.
   * The key was made or imported with the directory's port: a later {@link loadKey} returns
   * the key itself.
   */
  async writeCertAndKey(
    this: PkiDirectory<FileSystem>,
    baseName: string,
    { cert, key }: CertAndKey,
  ): Promise<void> {
    await this.writeKey(baseName, key);
    const file = this.certFile(baseName, cert);
    await this.#write(file);
    parsedCerts.remember(this.files, file.data, [cert]);
  }

  /** Writes `<base>.key` (0600), remembered as {@link writeCertAndKey} remembers it. */
  async writeKey(this: PkiDirectory<FileSystem>, baseName: string, key: KeyPair): Promise<void> {
    const file = await this.keyFile(baseName, key);
    await this.#write(file);
    parsedKeysOf(this.crypto).remember(this.files, file.data, key);
  }

  /** Writes `<base>.pub` (0600) as `PUBLIC KEY`. */
  async writePublicKey(
    this: PkiDirectory<FileSystem>,
    baseName: string,
    key: KeyPair,
  ): Promise<void> {
    await this.#write({
      path: this.publicKeyPath(baseName),
      data: await encodePublicKeyPEM(key),
      mode: KEY_FILE_MODE,
      kind: "public-key",
    });
  }
}
