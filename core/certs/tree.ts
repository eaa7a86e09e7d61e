/**
 * The certificate tree on the node: the CAs, the certificates they sign and the
 * service-account key pair, created or reused exactly as upstream's `init phase certs <name>`
 * does. `init`'s certs phases and a control-plane `join` call this; `certs renew`
 * (`renewal.ts`) re-issues the leaves it made, with the same CA loading and key-pool ids.
 *
 * Per certificate: an existing file is reused when it fits (CAs: it is a CA; leaves: it
 * verifies against its CA and its key matches), and a file that does not fit is an
 * {@link ExistingFileError} naming it. A CA whose key is absent is "keyless" (external CA): the
 * certificates it would sign must already exist. Nothing is written for what is reused.
 *
 * Speed: {@link prefetchKeys} starts generating every key the run will need, concurrently
 * (WebCrypto generates off the main thread); each certificate then takes its key and
 * signs/writes in upstream's order.
 *
 * @module
 */
import type { EncryptionAlgorithm } from "../config/types.ts";
import type { RunContext } from "../workflow/context.ts";
import { errorMessage, ExistingFileError, KubeadmError, PkiError } from "../errors.ts";
import type { FileSystem } from "../ports/files.ts";
import {
  caSpecOf,
  certConfigFor,
  certListFor,
  type CertSpec,
  certSpec,
  PkiFile,
} from "./certlist.ts";
import { type CertAndKey, type KeyPairRecovery, periodWarning, PkiDirectory } from "./pki_dir.ts";
import {
  type Certificate,
  createSelfSignedCACert,
  createSignedCert,
  hasServerAuth,
  verifyCertChain,
  verifyHostname,
} from "../pki/cert.ts";
import type { KeyPool } from "../pki/key_pool.ts";
import { exportSPKI, parsePrivateKeyPEM, parsePublicKeyPEM, samePublicKey } from "../pki/keys.ts";

/** This module's name in verbose log lines. */
const LOG_SOURCE = "tree.ts";

/**
 * What creating or reusing certificates needs: the run (its configuration gives the
 * certificates dir, key algorithm, validity periods, SANs and etcd mode) and its key pool.
 */
export interface CertTreeContext extends RunContext {
  /** The run's pool of keys generated ahead of time. */
  keys: KeyPool;
  /**
   * What refusing an existing CA or service-account pair may advise (default `restore`):
   * `init` builds the cluster's first PKI and may suggest regenerating it; a joining control
   * plane must restore the cluster's files.
   */
  recovery?: KeyPairRecovery;
}

function recoveryOf(ctx: CertTreeContext): KeyPairRecovery {
  return ctx.recovery ?? "restore";
}

/** What a refused service-account pair must not be replaced by, and why. */
const SA_KEPT = [
  "the service-account key pair",
  "the cluster's service account tokens are signed with it and would no longer verify",
] as const;

/** Pool id of the key of a certificate. */
export function certKeyId(name: string): string {
  return `cert:${name}`;
}

/** Pool id of the client key of a kubeconfig file. */
export function kubeconfigKeyId(fileName: string): string {
  return `kubeconfig:${fileName}`;
}

const periodChecked = new WeakMap<object, Set<string>>();

/** Prints upstream's period warning once per certificate name and run (the key pool is the run). */
function checkPeriod(ctx: CertTreeContext, name: string, cert: Certificate): void {
  let seen = periodChecked.get(ctx.keys);
  if (!seen) periodChecked.set(ctx.keys, seen = new Set());
  if (seen.has(name)) return;
  seen.add(name);
  const warning = periodWarning(name, cert, ctx.clock.now());
  if (warning) ctx.out.warn(warning);
}

/** The run's certificates directory for one walk (each of its files read at most once). */
function walkOf(ctx: CertTreeContext): PkiDirectory<FileSystem> {
  return PkiDirectory.of(ctx).walk();
}

function algorithm(ctx: CertTreeContext): EncryptionAlgorithm {
  return ctx.cfg.cluster.encryptionAlgorithm;
}

function externalEtcd(ctx: CertTreeContext): boolean {
  return ctx.cfg.cluster.etcd.external !== undefined;
}

/** The keys a run may generate ahead of time. */
export interface KeyPlan {
  /** Certificates (by name, `sa` included) the run will create or reuse. */
  certs: readonly string[];
  /** Kubeconfig files (file names in `kubeconfigDir`) the run will create or reuse. */
  kubeconfigs: readonly string[];
  /** `/etc/kubernetes`. */
  kubeconfigDir: string;
}

/**
 * Starts generating, concurrently, every key of the plan that will be created: certificates
 * whose files are absent (and whose CA can sign: it is generated now or its key is on disk),
 * `sa.key` when absent, and the client keys of absent kubeconfig files (signed by `ca`).
 * Cheap when everything exists.
 */
export async function prefetchKeys(ctx: CertTreeContext, plan: KeyPlan): Promise<void> {
  const pki = walkOf(ctx);
  const alg = algorithm(ctx);
  const specs = certListFor(ctx.cfg).filter((s) => plan.certs.includes(s.name));
  const present = await Promise.all(specs.map((s) => pki.hasCertOrKey(s.baseName)));
  const has = new Map(specs.map((s, i) => [s.name, present[i]]));
  // A CA can sign new leaves when it will be generated now, or its key is on disk.
  const caKeyOnDisk = new Map<string, boolean>();
  for (const s of specs.filter((s) => !s.caName)) {
    caKeyOnDisk.set(s.name, !has.get(s.name) || await pki.hasKey(s.baseName));
  }
  const ids: string[] = [];
  for (const s of specs) {
    if (has.get(s.name)) continue;
    if (s.caName && caKeyOnDisk.get(s.caName) === false) continue;
    ids.push(certKeyId(s.name));
  }
  if (plan.certs.includes("sa") && !(await pki.has(PkiFile.saPrivateKey))) {
    ids.push(certKeyId("sa"));
  }
  if (caKeyOnDisk.get("ca") !== false) {
    for (const file of plan.kubeconfigs) {
      if ((await ctx.files.read(`${plan.kubeconfigDir}/${file}`)) === undefined) {
        ids.push(kubeconfigKeyId(file));
      }
    }
  }
  ctx.keys.prefetchAll(ids, alg);
}

/** `[certs] Using certificateDir folder "<dir>"`. */
export function certificateDirLine(ctx: Pick<CertTreeContext, "cfg">): string {
  return `[certs] Using certificateDir folder ${JSON.stringify(ctx.cfg.cluster.certificatesDir)}`;
}

/**
 * Before any certificate is written: every existing file the named certificates (`sa`
 * included) would reuse is checked as their sub-phases will check it, in their order, so that
 * a file they would refuse stops the run before the certificates ahead of it are written. A CA
 * this run generates (named and absent) cannot have signed an existing leaf, which is refused.
 * Returns the names of those CAs. Nothing is written or printed.
 */
export async function checkExistingCerts(
  ctx: CertTreeContext,
  certs: readonly string[],
): Promise<Set<string>> {
  const generated = new Set<string>();
  const pki = walkOf(ctx);
  for (const spec of certListFor(ctx.cfg)) {
    if (!certs.includes(spec.name)) continue;
    if (spec.caName) await inspectLeaf(ctx, pki, spec, generated);
    else if ((await inspectCA(ctx, pki, spec)) === "absent") generated.add(spec.name);
  }
  if (certs.includes("sa")) await checkServiceAccountPair(ctx, pki);
  return generated;
}

/** Refuses an existing sa.pub that is not the public half of the existing sa.key. */
async function checkServiceAccountPair(ctx: CertTreeContext, pki: PkiDirectory): Promise<void> {
  const keyFile = pki.path(PkiFile.saPrivateKey);
  const pubFile = pki.path(PkiFile.saPublicKey);
  const key = await existingServiceAccountKey(ctx, pki);
  const pubPem = await pki.read(PkiFile.saPublicKey);
  if (key === undefined || pubPem === undefined) return;
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
        hint: `service account tokens signed with ${keyFile} would not verify with ${pubFile}; ${
          recoveryOf(ctx) === "regenerate"
            ? "restore the matching pair or remove both files to have them generated"
            : pki.restoreHint("the matching pair", ...SA_KEPT)
        }`,
      },
    );
  }
}

/**
 * Creates or reuses one certificate of the tree (`ca`, `apiserver`, ..., or `sa`, the
 * service-account key pair), as upstream's `init phase certs <name>` does.
 */
export function ensureCert(ctx: CertTreeContext, name: string): Promise<void> {
  const pki = walkOf(ctx);
  if (name === "sa") return ensureServiceAccountKey(ctx, pki);
  const spec = certSpec(name);
  return spec.caName ? ensureLeaf(ctx, pki, spec) : ensureCA(ctx, pki, spec);
}

/** Loads an existing certificate file; a file that does not load is an {@link ExistingFileError}. */
async function existingCert<T>(
  spec: CertSpec,
  crtPath: string,
  load: () => Promise<T>,
  hint: string,
): Promise<T> {
  try {
    return await load();
  } catch (e) {
    throw new ExistingFileError(
      `failure loading ${spec.baseName} certificate: ${errorMessage(e)}`,
      { field: crtPath, cause: e, hint },
    );
  }
}

/** An existing certificate's key must load and match it. */
async function checkMatchingKey(
  ctx: CertTreeContext,
  pki: PkiDirectory,
  spec: CertSpec,
  cert: Certificate,
): Promise<void> {
  let key;
  try {
    key = await pki.loadKey(spec.baseName);
  } catch (e) {
    throw new ExistingFileError(`failure loading ${spec.baseName} key: ${errorMessage(e)}`, {
      field: pki.keyPath(spec.baseName),
      cause: e,
    });
  }
  // A leaf can always be made again; a CA's pair is what the cluster trusts.
  const recovery = spec.caName ? "regenerate" : recoveryOf(ctx);
  await pki.checkKeyMatches(spec.baseName, { cert, key }, recovery);
}

/** Called with each existing certificate an inspection loads (the run's period warnings). */
type OnLoaded = (baseName: string, cert: Certificate) => void;

/** What a CA's sub-phase does: nothing (external etcd), generate it, or reuse it. */
type CAInspection = "skipped" | "absent" | "keyless" | "reused";

/**
 * Checks an existing CA as its sub-phase does (a certificate that loads, is a CA, and whose key,
 * when present, matches it; no key without its certificate), without writing or printing.
 */
async function inspectCA(
  ctx: CertTreeContext,
  pki: PkiDirectory,
  spec: CertSpec,
  loaded: OnLoaded = () => {},
): Promise<CAInspection> {
  if (externalEtcd(ctx) && spec.name === "etcd-ca") return "skipped";
  const crtPath = pki.certPath(spec.baseName);
  const kPath = pki.keyPath(spec.baseName);
  const regenerate = recoveryOf(ctx) === "regenerate";
  const kept = `the ${spec.baseName} certificate authority`;
  if (await pki.hasCert(spec.baseName)) {
    const cert = await existingCert(
      spec,
      crtPath,
      () => pki.loadCert(spec.baseName),
      regenerate
        ? "remove the file to let kubeadm generate a new CA, or replace it with a valid PEM certificate"
        : pki.restoreHint(`a valid ${crtPath}`, kept),
    );
    loaded(spec.baseName, cert);
    if (!cert.isCA) {
      throw new ExistingFileError(`certificate ${JSON.stringify(spec.name)} is not a CA`, {
        field: crtPath,
        hint: "the file must hold a CA certificate (basicConstraints CA:TRUE)",
      });
    }
    if (!(await pki.hasKey(spec.baseName))) return "keyless";
    await checkMatchingKey(ctx, pki, spec, cert);
    return "reused";
  }
  if (await pki.hasKey(spec.baseName)) {
    throw new ExistingFileError(
      `failure loading ${spec.baseName} certificate: failed to load certificate: couldn't load the certificate file ${crtPath}: open ${crtPath}: no such file or directory`,
      {
        field: kPath,
        hint: `${kPath} exists without its certificate: ${
          regenerate ? `restore ${crtPath} or remove the key` : pki.restoreHint(crtPath, kept)
        }`,
      },
    );
  }
  return "absent";
}

async function ensureCA(
  ctx: CertTreeContext,
  pki: PkiDirectory<FileSystem>,
  spec: CertSpec,
): Promise<void> {
  const found = await inspectCA(ctx, pki, spec, (name, cert) => checkPeriod(ctx, name, cert));
  switch (found) {
    case "skipped":
      ctx.out.info(
        `[certs] External etcd mode: Skipping ${spec.baseName} certificate authority generation`,
      );
      return;
    case "keyless":
      ctx.out.info(`[certs] Using existing ${spec.baseName} keyless certificate authority`);
      return;
    case "reused":
      ctx.out.info(`[certs] Using existing ${spec.baseName} certificate authority`);
      return;
  }
  ctx.out.log?.(1, LOG_SOURCE, `creating a new certificate authority for ${spec.name}`);
  const cfg = certConfigFor(spec, ctx.cfg, ctx.startTime, (l) => ctx.out.warn(l));
  const key = await ctx.keys.take(certKeyId(spec.name), algorithm(ctx));
  const cert = await createSelfSignedCACert(cfg, key, ctx.random, ctx.crypto);
  ctx.out.info(`[certs] Generating ${JSON.stringify(spec.baseName)} certificate and key`);
  await pki.writeCertAndKey(spec.baseName, { cert, key });
}

function goList(items: string[]): string {
  return `[${items.join(" ")}]`;
}

/**
 * What a leaf's sub-phase does: nothing (external etcd), sign it with its CA's pair, or reuse
 * the existing certificate (its chain as loaded).
 */
type LeafInspection =
  | { action: "skipped" }
  | { action: "create"; ca?: CertAndKey }
  | { action: "reuse"; cert: Certificate };

/**
 * Checks a leaf as its sub-phase does, without writing or printing: an existing certificate
 * must load, chain to its CA and have its key; an absent one needs a CA that can sign (loaded
 * here unless it is among `generated`, the CAs this run creates, which cannot have signed an
 * existing leaf).
 */
async function inspectLeaf(
  ctx: CertTreeContext,
  pki: PkiDirectory,
  spec: CertSpec,
  generated: ReadonlySet<string> = new Set(),
  loaded: OnLoaded = () => {},
): Promise<LeafInspection> {
  const ca = caSpecOf(spec)!;
  if (externalEtcd(ctx) && spec.caName === "etcd-ca") return { action: "skipped" };
  const crtPath = pki.certPath(spec.baseName);
  const kPath = pki.keyPath(spec.baseName);
  if (await pki.hasCert(spec.baseName)) {
    return {
      action: "reuse",
      cert: await checkExistingLeaf(ctx, pki, spec, ca, generated, loaded),
    };
  }
  if (await pki.hasKey(spec.baseName)) {
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
  if (generated.has(ca.name)) return { action: "create" };
  let caPair;
  try {
    caPair = await pki.loadCA(ca.baseName, recoveryOf(ctx));
  } catch (e) {
    const keyless = await pki.isKeyless(ca.baseName);
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
  loaded(ca.baseName, caPair.cert);
  return { action: "create", ca: caPair };
}

async function ensureLeaf(
  ctx: CertTreeContext,
  pki: PkiDirectory<FileSystem>,
  spec: CertSpec,
): Promise<void> {
  const found = await inspectLeaf(
    ctx,
    pki,
    spec,
    new Set(),
    (name, c) => checkPeriod(ctx, name, c),
  );
  if (found.action === "skipped") {
    ctx.out.info(`[certs] External etcd mode: Skipping ${spec.baseName} certificate generation`);
    return;
  }
  if (found.action === "reuse") {
    warnMissingSANs(ctx, pki, spec, found.cert);
    ctx.out.info(`[certs] Using existing ${spec.baseName} certificate and key on disk`);
    return;
  }
  const caPair = found.ca!;
  const cfg = certConfigFor(spec, ctx.cfg, ctx.startTime, (l) => ctx.out.warn(l));
  const key = await ctx.keys.take(certKeyId(spec.name), algorithm(ctx));
  const cert = await createSignedCert(cfg, key, caPair.cert, caPair.key, ctx.random, ctx.crypto);
  ctx.out.info(`[certs] Generating ${JSON.stringify(spec.baseName)} certificate and key`);
  await pki.writeCertAndKey(spec.baseName, { cert, key });
  if (hasServerAuth(cert)) {
    ctx.out.info(
      `[certs] ${spec.baseName} serving cert is signed for DNS names ${
        goList(cert.dnsNames)
      } and IPs ${goList(cert.ipAddresses)}`,
    );
  }
}

/**
 * An existing leaf: it must load, chain to its CA (which must not be one this run generates)
 * and its key must load and match. Returns the leaf.
 */
async function checkExistingLeaf(
  ctx: CertTreeContext,
  pki: PkiDirectory,
  spec: CertSpec,
  ca: CertSpec,
  generated: ReadonlySet<string>,
  loaded: OnLoaded,
): Promise<Certificate> {
  const crtPath = pki.certPath(spec.baseName);
  const kPath = pki.keyPath(spec.baseName);
  const chain = await existingCert(
    spec,
    crtPath,
    () => pki.loadCertChain(spec.baseName),
    "remove the file to let kubeadm generate it, or replace it with a valid PEM certificate",
  );
  loaded(spec.baseName, chain.cert);
  const notSigned = (why: string, cause?: unknown) =>
    new ExistingFileError(
      `[certs] certificate ${spec.baseName} not signed by CA certificate ${ca.baseName}: ${why}`,
      {
        field: crtPath,
        cause,
        hint: `remove ${crtPath} and ${kPath} to regenerate them with the current CA`,
      },
    );
  if (generated.has(ca.name)) {
    throw notSigned(
      `${pki.certPath(ca.baseName)} does not exist, so this run generates a new ${ca.baseName} CA`,
    );
  }
  let caCert: Certificate;
  try {
    caCert = await pki.loadCert(ca.baseName);
  } catch (e) {
    throw new PkiError(`couldn't load CA certificate ${ca.name}: ${errorMessage(e)}`, {
      field: pki.certPath(ca.baseName),
      cause: e,
    });
  }
  loaded(ca.baseName, caCert);
  try {
    await verifyCertChain(chain.cert, chain.intermediates, caCert, ctx.clock.now(), ctx.crypto);
  } catch (e) {
    throw notSigned(errorMessage(e), e);
  }
  await checkMatchingKey(ctx, pki, spec, chain.cert);
  return chain.cert;
}

/** Upstream reuses a leaf as is; say so when it no longer covers the configured SANs. */
function warnMissingSANs(
  ctx: CertTreeContext,
  pki: PkiDirectory,
  spec: CertSpec,
  cert: Certificate,
): void {
  if (!spec.altNames) return;
  const wanted = certConfigFor(spec, ctx.cfg, ctx.startTime);
  for (const host of [...wanted.dnsNames ?? [], ...wanted.ips ?? []]) {
    try {
      verifyHostname(cert, host);
    } catch (e) {
      ctx.out.warn(
        `[certs] WARNING: the existing ${
          JSON.stringify(spec.baseName)
        } certificate is not valid for ${host} (${errorMessage(e)}); remove ${
          pki.certPath(spec.baseName)
        } and ${pki.keyPath(spec.baseName)} to regenerate it`,
      );
    }
  }
}

/**
 * The existing `sa.key`, parsed; `undefined` when there is none. A file that does not load is
 * an {@link ExistingFileError} (checked before any write, and again by the `sa` sub-phase).
 */
async function existingServiceAccountKey(ctx: CertTreeContext, pki: PkiDirectory) {
  const path = pki.path(PkiFile.saPrivateKey);
  const existing = await pki.read(PkiFile.saPrivateKey);
  if (existing === undefined) return undefined;
  try {
    return await parsePrivateKeyPEM(existing, ctx.crypto, path);
  } catch (e) {
    throw new ExistingFileError(
      `file ${PkiFile.saPrivateKey} existed but it could not be loaded properly: ${
        errorMessage(e)
      }`,
      {
        field: path,
        cause: e,
        hint: recoveryOf(ctx) === "regenerate"
          ? "remove the file to let kubeadm generate a new key pair"
          : pki.restoreHint(`a valid ${path}`, ...SA_KEPT),
      },
    );
  }
}

async function ensureServiceAccountKey(
  ctx: CertTreeContext,
  pki: PkiDirectory<FileSystem>,
): Promise<void> {
  ctx.out.log?.(
    1,
    LOG_SOURCE,
    "creating new public/private key files for signing service account users",
  );
  if (await existingServiceAccountKey(ctx, pki) !== undefined) {
    await checkServiceAccountPair(ctx, pki);
    ctx.out.info(`[certs] Using the existing ${JSON.stringify(PkiFile.saBaseName)} key`);
    return;
  }
  const key = await ctx.keys.take(certKeyId("sa"), algorithm(ctx));
  ctx.out.info(`[certs] Generating ${JSON.stringify(PkiFile.saBaseName)} key and public key`);
  await pki.writeKey(PkiFile.saBaseName, key);
  await pki.writePublicKey(PkiFile.saBaseName, key);
}
