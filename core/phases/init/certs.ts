/**
 * The `init` certs phase: the CAs, the certificates they sign and the service-account key pair,
 * created or reused exactly as upstream's `init phase certs <name>` does.
 *
 * Per certificate: an existing file is reused when it fits (CAs: it is a CA; leaves: it
 * verifies against its CA and its key matches), and a file that does not fit is an
 * {@link ExistingFileError} naming it. A CA whose key is absent is "keyless" (external CA): the
 * certificates it would sign must already exist. Nothing is written for what is reused.
 *
 * Speed: the header step starts generating every key the run will need, concurrently (WebCrypto
 * generates off the main thread); each certificate then takes its key and signs/writes in
 * upstream's order.
 *
 * @module
 */
import type { EncryptionAlgorithm } from "../../config/types.ts";
import { errorMessage, ExistingFileError, KubeadmError, PkiError } from "../../errors.ts";
import {
  caSpecOf,
  certConfigFor,
  certListFor,
  certPath,
  type CertSpec,
  certSpec,
  keyPath,
  KUBEADM_CERTS,
  PkiFile,
} from "../../certs/certlist.ts";
import {
  certOrKeyExists,
  checkKeyMatchesCertificate,
  fileExists,
  loadCert,
  loadCertChain,
  loadCertificateAuthority,
  loadKey,
  periodWarning,
  writeCertAndKey,
  writeKey,
  writePublicKey,
} from "../../certs/pki_files.ts";
import {
  type Certificate,
  createSelfSignedCACert,
  createSignedCert,
  hasServerAuth,
  verifyCertChain,
  verifyHostname,
} from "../../pki/cert.ts";
import { keyPoolFor } from "../../pki/key_pool.ts";
import {
  exportSPKI,
  parsePrivateKeyPEM,
  parsePublicKeyPEM,
  samePublicKey,
} from "../../pki/keys.ts";
import { KubeconfigFile } from "../../constants.ts";
import type { InitData } from "./data.ts";

/** Names accepted by {@link runCert}: every certificate plus `sa`. */
export const CERT_PHASE_NAMES: readonly string[] = [...KUBEADM_CERTS.map((c) => c.name), "sa"];

const periodChecked = new WeakMap<object, Set<string>>();

/** Prints upstream's period warning once per certificate name and run. */
function checkPeriod(data: InitData, name: string, cert: Certificate): void {
  let seen = periodChecked.get(data);
  if (!seen) periodChecked.set(data, seen = new Set());
  if (seen.has(name)) return;
  seen.add(name);
  const warning = periodWarning(name, cert, data.clock.now());
  if (warning) data.out.warn(warning);
}

function certDir(data: InitData): string {
  return data.cfg.cluster.certificatesDir;
}

function algorithm(data: InitData): EncryptionAlgorithm {
  return data.cfg.cluster.encryptionAlgorithm;
}

function externalEtcd(data: InitData): boolean {
  return data.cfg.cluster.etcd.external !== undefined;
}

function skipped(data: InitData, phase: string, sub: string): boolean {
  if (data.willRun && !data.willRun(`${phase}/${sub}`)) return true;
  const skip = data.cfg.init.skipPhases ?? [];
  return skip.includes(phase) || skip.includes(`${phase}/${sub}`);
}

/** Pool id of the key of a certificate. */
export function certKeyId(name: string): string {
  return `cert:${name}`;
}

/** Pool id of the client key of a kubeconfig file. */
export function kubeconfigKeyId(fileName: string): string {
  return `kubeconfig:${fileName}`;
}

/**
 * Starts generating, concurrently, every key this run will create: certificates whose files
 * are absent, `sa.key` when absent, and (unless the kubeconfig phase is skipped) the client keys
 * of absent kubeconfig files. Cheap when everything exists.
 */
export async function prefetchKeys(data: InitData): Promise<void> {
  const dir = certDir(data);
  const pool = keyPoolFor(data);
  const alg = algorithm(data);
  const specs = certListFor(data.cfg).filter((s) => !skipped(data, "certs", s.name));
  const present = await Promise.all(specs.map((s) => certOrKeyExists(data.files, dir, s.baseName)));
  const has = new Map(specs.map((s, i) => [s.name, present[i]]));
  // A CA can sign new leaves when it will be generated now, or its key is on disk.
  const caKeyOnDisk = new Map<string, boolean>();
  for (const s of specs.filter((s) => !s.caName)) {
    caKeyOnDisk.set(
      s.name,
      !has.get(s.name) || await fileExists(data.files, keyPath(dir, s.baseName)),
    );
  }
  const ids: string[] = [];
  for (const s of specs) {
    if (has.get(s.name)) continue;
    if (s.caName && caKeyOnDisk.get(s.caName) === false) continue;
    ids.push(certKeyId(s.name));
  }
  if (
    !skipped(data, "certs", "sa") &&
    !(await fileExists(data.files, `${dir}/${PkiFile.saPrivateKey}`))
  ) {
    ids.push(certKeyId("sa"));
  }
  if (!data.cfg.init.skipPhases?.includes("kubeconfig") && caKeyOnDisk.get("ca") !== false) {
    const names = [
      ["admin", KubeconfigFile.admin],
      ["super-admin", KubeconfigFile.superAdmin],
      ["kubelet", KubeconfigFile.kubelet],
      ["controller-manager", KubeconfigFile.controllerManager],
      ["scheduler", KubeconfigFile.scheduler],
    ] as const;
    for (const [phase, file] of names) {
      if (skipped(data, "kubeconfig", phase)) continue;
      if (!(await fileExists(data.files, `${data.kubeconfigDir}/${file}`))) {
        ids.push(kubeconfigKeyId(file));
      }
    }
  }
  pool.prefetchAll(ids, alg);
}

/**
 * The `certs` phase's own step: prints `[certs] Using certificateDir folder "<dir>"` and starts
 * the concurrent key generation for the sub-phases that follow.
 */
export async function runCertsHeader(data: InitData): Promise<void> {
  data.out.info(`[certs] Using certificateDir folder ${JSON.stringify(certDir(data))}`);
  await checkExistingKeyPairs(data);
  await prefetchKeys(data);
}

/**
 * Before any certificate is written: every existing CA key (ca, front-proxy-ca, etcd/ca) must
 * be the key of its certificate, and an existing sa.pub the public half of sa.key, so that a
 * mismatched pair stops `certs all` before the sub-phases ahead of it write anything. Files
 * that do not load are left to their own sub-phase, which reports them.
 */
async function checkExistingKeyPairs(data: InitData): Promise<void> {
  const dir = certDir(data);
  for (const spec of certListFor(data.cfg)) {
    if (spec.caName || skipped(data, "certs", spec.name)) continue;
    let pair;
    try {
      pair = await Promise.all([
        loadCert(data.files, dir, spec.baseName),
        loadKey(data.files, dir, spec.baseName),
      ]);
    } catch {
      continue;
    }
    await checkKeyMatchesCertificate(pair[1], pair[0], dir, spec.baseName);
  }
  if (!skipped(data, "certs", "sa")) await checkServiceAccountPair(data);
}

/** Refuses an existing sa.pub that is not the public half of the existing sa.key. */
async function checkServiceAccountPair(data: InitData): Promise<void> {
  const dir = certDir(data);
  const keyFile = `${dir}/${PkiFile.saPrivateKey}`;
  const pubFile = `${dir}/${PkiFile.saPublicKey}`;
  const [keyPem, pubPem] = await Promise.all([data.files.read(keyFile), data.files.read(pubFile)]);
  if (keyPem === undefined || pubPem === undefined) return;
  let key;
  try {
    key = await parsePrivateKeyPEM(keyPem, keyFile);
  } catch {
    return; // reported by the sa sub-phase
  }
  let pub: Uint8Array | undefined;
  try {
    pub = parsePublicKeyPEM(pubPem, pubFile);
  } catch {
    pub = undefined;
  }
  if (pub === undefined || !(await samePublicKey(await exportSPKI(key), pub))) {
    throw new ExistingFileError(
      `the public key file ${pubFile} does not match the private key file ${keyFile}`,
      {
        field: pubFile,
        hint:
          `service account tokens signed with ${keyFile} would not verify with ${pubFile}; restore the matching pair or remove both files to have them generated`,
      },
    );
  }
}

/** Runs one `init phase certs <name>` sub-phase (`ca`, `apiserver`, ..., `sa`). */
export function runCert(data: InitData, name: string): Promise<void> {
  if (name === "sa") return runServiceAccountKey(data);
  const spec = certSpec(name);
  return spec.caName ? runLeaf(data, spec) : runCA(data, spec);
}

/** Runs the whole certs phase (`init phase certs all`): header, every certificate, `sa`. */
export async function runAllCerts(data: InitData): Promise<void> {
  await runCertsHeader(data);
  for (const spec of KUBEADM_CERTS) await runCert(data, spec.name);
  await runCert(data, "sa");
}

async function runCA(data: InitData, spec: CertSpec): Promise<void> {
  const dir = certDir(data);
  if (externalEtcd(data) && spec.name === "etcd-ca") {
    data.out.info(
      `[certs] External etcd mode: Skipping ${spec.baseName} certificate authority generation`,
    );
    return;
  }
  const crtPath = certPath(dir, spec.baseName);
  const kPath = keyPath(dir, spec.baseName);
  if (await fileExists(data.files, crtPath)) {
    let cert: Certificate;
    try {
      cert = await loadCert(data.files, dir, spec.baseName);
    } catch (e) {
      throw new ExistingFileError(
        `failure loading ${spec.baseName} certificate: ${errorMessage(e)}`,
        {
          field: crtPath,
          cause: e,
          hint:
            "remove the file to let kubeadm generate a new CA, or replace it with a valid PEM certificate",
        },
      );
    }
    checkPeriod(data, spec.baseName, cert);
    if (!cert.isCA) {
      throw new ExistingFileError(`certificate ${JSON.stringify(spec.name)} is not a CA`, {
        field: crtPath,
        hint: "the file must hold a CA certificate (basicConstraints CA:TRUE)",
      });
    }
    if (!(await fileExists(data.files, kPath))) {
      data.out.info(`[certs] Using existing ${spec.baseName} keyless certificate authority`);
      return;
    }
    let key;
    try {
      key = await loadKey(data.files, dir, spec.baseName);
    } catch (e) {
      throw new ExistingFileError(`failure loading ${spec.baseName} key: ${errorMessage(e)}`, {
        field: kPath,
        cause: e,
      });
    }
    await checkKeyMatchesCertificate(key, cert, dir, spec.baseName);
    data.out.info(`[certs] Using existing ${spec.baseName} certificate authority`);
    return;
  }
  if (await fileExists(data.files, kPath)) {
    throw new ExistingFileError(
      `failure loading ${spec.baseName} certificate: failed to load certificate: couldn't load the certificate file ${crtPath}: open ${crtPath}: no such file or directory`,
      {
        field: kPath,
        hint: `${kPath} exists without its certificate: restore ${crtPath} or remove the key`,
      },
    );
  }
  const cfg = certConfigFor(spec, data.cfg, data.startTime, (l) => data.out.warn(l));
  const key = await keyPoolFor(data).take(certKeyId(spec.name), algorithm(data));
  const cert = await createSelfSignedCACert(cfg, key, data.random);
  data.out.info(`[certs] Generating ${JSON.stringify(spec.baseName)} certificate and key`);
  await writeCertAndKey(data.files, dir, spec.baseName, cert, key);
}

function goList(items: string[]): string {
  return `[${items.join(" ")}]`;
}

async function runLeaf(data: InitData, spec: CertSpec): Promise<void> {
  const dir = certDir(data);
  const ca = caSpecOf(spec)!;
  if (externalEtcd(data) && spec.caName === "etcd-ca") {
    data.out.info(`[certs] External etcd mode: Skipping ${spec.baseName} certificate generation`);
    return;
  }
  const crtPath = certPath(dir, spec.baseName);
  const kPath = keyPath(dir, spec.baseName);
  if (await fileExists(data.files, crtPath)) {
    await reuseLeaf(data, spec, ca);
    return;
  }
  if (await fileExists(data.files, kPath)) {
    throw new ExistingFileError(
      `failed to write or validate certificate ${
        JSON.stringify(spec.name)
      }: failure loading ${spec.baseName} certificate: couldn't load the certificate file ${crtPath}: open ${crtPath}: no such file or directory`,
      {
        field: kPath,
        hint: `${kPath} exists without its certificate: restore ${crtPath} or remove the key`,
      },
    );
  }
  let caPair;
  try {
    caPair = await loadCertificateAuthority(data.files, dir, ca.baseName);
  } catch (e) {
    const keyless = await fileExists(data.files, certPath(dir, ca.baseName)) &&
      !(await fileExists(data.files, keyPath(dir, ca.baseName)));
    const Err = e instanceof ExistingFileError ? ExistingFileError : PkiError;
    throw new Err(`couldn't load CA certificate ${ca.name}: ${errorMessage(e)}`, {
      field: e instanceof KubeadmError ? e.field : undefined,
      cause: e,
      hint: keyless
        ? `the ${ca.baseName} CA has no key (external CA mode): provide ${crtPath} and ${kPath} signed by it`
        : e instanceof KubeadmError
        ? e.hint
        : undefined,
    });
  }
  checkPeriod(data, ca.baseName, caPair.cert);
  const cfg = certConfigFor(spec, data.cfg, data.startTime, (l) => data.out.warn(l));
  const key = await keyPoolFor(data).take(certKeyId(spec.name), algorithm(data));
  const cert = await createSignedCert(cfg, key, caPair.cert, caPair.key, data.random);
  data.out.info(`[certs] Generating ${JSON.stringify(spec.baseName)} certificate and key`);
  await writeCertAndKey(data.files, dir, spec.baseName, cert, key);
  if (hasServerAuth(cert)) {
    data.out.info(
      `[certs] ${spec.baseName} serving cert is signed for DNS names ${
        goList(cert.dnsNames)
      } and IPs ${goList(cert.ipAddresses)}`,
    );
  }
}

/** An existing leaf: it must chain to its CA and its key must load and match. */
async function reuseLeaf(data: InitData, spec: CertSpec, ca: CertSpec): Promise<void> {
  const dir = certDir(data);
  const crtPath = certPath(dir, spec.baseName);
  const kPath = keyPath(dir, spec.baseName);
  let chain;
  try {
    chain = await loadCertChain(data.files, dir, spec.baseName);
  } catch (e) {
    throw new ExistingFileError(
      `failure loading ${spec.baseName} certificate: ${errorMessage(e)}`,
      {
        field: crtPath,
        cause: e,
        hint:
          "remove the file to let kubeadm generate it, or replace it with a valid PEM certificate",
      },
    );
  }
  checkPeriod(data, spec.baseName, chain.cert);
  let caCert: Certificate;
  try {
    caCert = await loadCert(data.files, dir, ca.baseName);
  } catch (e) {
    throw new PkiError(`couldn't load CA certificate ${ca.name}: ${errorMessage(e)}`, {
      field: certPath(dir, ca.baseName),
      cause: e,
    });
  }
  checkPeriod(data, ca.baseName, caCert);
  try {
    await verifyCertChain(chain.cert, chain.intermediates, caCert, data.clock.now());
  } catch (e) {
    throw new ExistingFileError(
      `[certs] certificate ${spec.baseName} not signed by CA certificate ${ca.baseName}: ${
        errorMessage(e)
      }`,
      {
        field: crtPath,
        cause: e,
        hint: `remove ${crtPath} and ${kPath} to regenerate them with the current CA`,
      },
    );
  }
  let key;
  try {
    key = await loadKey(data.files, dir, spec.baseName);
  } catch (e) {
    throw new ExistingFileError(`failure loading ${spec.baseName} key: ${errorMessage(e)}`, {
      field: kPath,
      cause: e,
    });
  }
  await checkKeyMatchesCertificate(key, chain.cert, dir, spec.baseName);
  if (spec.altNames) {
    // Upstream reuses the file as is; say so when it no longer covers the configured SANs.
    const wanted = certConfigFor(spec, data.cfg, data.startTime);
    for (const host of [...wanted.dnsNames ?? [], ...wanted.ips ?? []]) {
      try {
        verifyHostname(chain.cert, host);
      } catch (e) {
        data.out.warn(
          `[certs] WARNING: the existing ${
            JSON.stringify(spec.baseName)
          } certificate is not valid for ${host} (${
            errorMessage(e)
          }); remove ${crtPath} and ${kPath} to regenerate it`,
        );
      }
    }
  }
  data.out.info(`[certs] Using existing ${spec.baseName} certificate and key on disk`);
}

async function runServiceAccountKey(data: InitData): Promise<void> {
  const dir = certDir(data);
  const path = `${dir}/${PkiFile.saPrivateKey}`;
  const existing = await data.files.read(path);
  if (existing !== undefined) {
    try {
      await parsePrivateKeyPEM(existing, path);
    } catch (e) {
      throw new ExistingFileError(
        `file ${PkiFile.saPrivateKey} existed but it could not be loaded properly: ${
          errorMessage(e)
        }`,
        { field: path, cause: e, hint: "remove the file to let kubeadm generate a new key pair" },
      );
    }
    await checkServiceAccountPair(data);
    data.out.info(`[certs] Using the existing ${JSON.stringify(PkiFile.saBaseName)} key`);
    return;
  }
  const key = await keyPoolFor(data).take(certKeyId("sa"), algorithm(data));
  data.out.info(`[certs] Generating ${JSON.stringify(PkiFile.saBaseName)} key and public key`);
  await writeKey(data.files, dir, PkiFile.saBaseName, key);
  await writePublicKey(data.files, dir, PkiFile.saBaseName, key);
}
