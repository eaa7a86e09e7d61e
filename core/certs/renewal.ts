/**
 * `kubeadm certs renew` as data (upstream `phases/certs/renewal`): which certificates can be
 * renewed, how each is read (a PKI file pair or the client certificate embedded in a
 * kubeconfig), and the plan that renews them: the files to write, in order, with their modes.
 *
 * Rules, as upstream:
 * - the targets are those of `renew_targets.ts`; with external etcd the etcd leaves are not
 *   targets;
 * - a target whose file is missing is reported `MISSING!`; a target signed by an external CA
 *   (its key absent, its leaves valid) is left alone and reported;
 * - a renewed certificate keeps the old subject (CN and O), SANs (DNS and IP) and the extended
 *   key usages Go knows, gets a **new key pair** (`encryptionAlgorithm`), NotBefore = start −
 *   5 min and NotAfter = start + `certificateValidityPeriod`, and is signed by the CA on disk
 *   (a CA key that is not the CA certificate's key is refused when the CA is loaded, naming
 *   both files, with a hint to restore the key and never to regenerate the cluster's CA);
 * - a kubeconfig keeps everything else, gets the CA certificate from `ca.crt` and the new
 *   client key and certificate, and is written in `clientcmd.Write`'s layout;
 * - files are rewritten keeping their current mode and owner (upstream writes in place).
 *
 * The plan is computed completely (every read, check and signature) before anything is
 * written, so bad input changes no file. The writes are ordered so that a run stopped at any
 * point and run again ends with every certificate valid and paired with its key: a key and its
 * certificate are written one after the other (key first, as upstream), each file atomically by
 * the runtime, and a re-run always reads the certificate file — old or new, never partial —
 * to renew again with a fresh key.
 *
 * @module
 */
import type { EncryptionAlgorithm, ResolvedClusterConfiguration } from "../config/types.ts";
import { parseDuration } from "../text/duration.ts";
import { CERT_BACKDATE_MS } from "../constants.ts";
import { errorMessage, KubeadmError, PkiError } from "../errors.ts";
import type { PlannedFile } from "../ports/files.ts";
import type { RandomSource } from "../ports/random.ts";
import {
  type Certificate,
  createSignedCert,
  encodeCertificatePEM,
  parseCertificatesPEM,
} from "../pki/cert.ts";
import { isGoKnownExtKeyUsage } from "../pki/extensions.ts";
import { encodePrivateKeyPEM } from "../pki/keys.ts";
import { KeyPool } from "../pki/key_pool.ts";
import {
  embedData,
  embeddedBytes,
  type Kubeconfig,
  lookupContext,
  parseKubeconfig,
  serializeKubeconfig,
} from "../kubeconfig/kubeconfig.ts";
import { KUBECONFIG_FILE_MODE, kubeconfigPath } from "../kubeconfig/files.ts";
import { KUBECONFIG_SPECS } from "../kubeconfig/specs.ts";
import { byName, type RenewTarget, renewTargets } from "./renew_targets.ts";
import { KUBELET_CONF_TARGET } from "./kubelet_conf.ts";
import { externalCAChecker } from "./external_ca.ts";
import { certKeyId, kubeconfigKeyId } from "./tree.ts";
import { type CertAndKey, periodWarning, type PkiDirectory } from "./pki_dir.ts";

export { caTargets, renewTargets } from "./renew_targets.ts";
export type { RenewSource, RenewTarget } from "./renew_targets.ts";

/** Where a renewal's targets are. */
export interface RenewalFiles {
  /** The certificates directory (`certificatesDir`, or `--cert-dir`); its files hold the kubeconfigs too. */
  pki: PkiDirectory;
  /** Where the kubeconfig files are (`/etc/kubernetes`). */
  kubeconfigDir: string;
}

/** The path of the file holding a target's certificate. */
function targetPath(target: RenewTarget, where: RenewalFiles): string {
  return target.source.kind === "pki"
    ? where.pki.certPath(target.source.baseName)
    : kubeconfigPath(where.kubeconfigDir, target.source.fileName);
}

/** True when the target's certificate file exists (upstream `CertificateExists`). */
export async function targetExists(target: RenewTarget, where: RenewalFiles): Promise<boolean> {
  if (target.source.kind === "pki") return await where.pki.hasCert(target.source.baseName);
  return (await where.pki.files.read(targetPath(target, where))) !== undefined;
}

/**
 * Reads the first certificate of `<base>.crt` as it is on disk, failing with upstream's
 * `failed to load existing certificate <base>: ...` naming the file.
 */
export async function readExistingCert(
  pki: PkiDirectory,
  baseName: string,
): Promise<Certificate> {
  const path = pki.certPath(baseName);
  try {
    return (await pki.readCerts(baseName))[0];
  } catch (e) {
    throw new PkiError(`failed to load existing certificate ${baseName}: ${errorMessage(e)}`, {
      field: path,
      cause: e,
    });
  }
}

/** A target's current certificate, and for kubeconfigs the parsed file and the CA from disk. */
export interface LoadedTarget {
  cert: Certificate;
  kubeconfig?: { config: Kubeconfig; clusterName: string; userName: string; caCert: Certificate };
}

/** Upstream's errors for a kubeconfig that cannot be renewed: they name the file. */
function kubeconfigError(message: string, path: string, cause?: unknown): KubeadmError {
  const phase = KUBECONFIG_SPECS.find((s) => path.endsWith(`/${s.fileName}`))?.name ?? "all";
  return new PkiError(message, {
    field: path,
    cause,
    hint:
      `${path} must hold a current context whose cluster embeds the CA and whose user embeds the client certificate (move it away and regenerate it with "kubeadm init phase kubeconfig ${phase}")`,
  });
}

async function loadKubeconfigTarget(
  where: RenewalFiles,
  fileName: string,
): Promise<LoadedTarget> {
  const path = kubeconfigPath(where.kubeconfigDir, fileName);
  let config: Kubeconfig;
  try {
    const data = await where.pki.files.read(path);
    if (data === undefined) throw new Error(`open ${path}: no such file or directory`);
    config = parseKubeconfig(data, path, { clientcmd: true });
  } catch (e) {
    const reason = errorMessage(e);
    throw kubeconfigError(
      `failed to load kubeConfig file ${path}: ${
        reason.startsWith(`${path}: `) ? reason.slice(path.length + 2) : reason
      }`,
      path,
      e,
    );
  }
  const caCert = await readExistingCert(where.pki, "ca");
  const { name: current, context, cluster, user } = lookupContext(config);
  if (!context) {
    throw kubeconfigError(`invalid kubeConfig file ${path}: missing context ${current}`, path);
  }
  const clusterName = context.cluster ?? "";
  if (!cluster) {
    throw kubeconfigError(`invalid kubeConfig file ${path}: missing cluster ${clusterName}`, path);
  }
  if (!cluster["certificate-authority-data"]) {
    throw kubeconfigError(
      `kubeConfig file ${path} does not have an embedded server certificate`,
      path,
    );
  }
  const userName = context.user ?? "";
  if (!user) {
    throw kubeconfigError(`invalid kubeConfig file ${path}: missing authInfo ${userName}`, path);
  }
  const certData = user["client-certificate-data"];
  if (!certData) {
    throw kubeconfigError(
      `kubeConfig file ${path} does not have an embedded client certificate`,
      path,
    );
  }
  let cert: Certificate;
  try {
    cert = parseCertificatesPEM(embeddedBytes(certData))[0];
  } catch (e) {
    throw kubeconfigError(
      `kubeConfig file ${path} does not contain a valid client certificate: ${errorMessage(e)}`,
      path,
      e,
    );
  }
  return { cert, kubeconfig: { config, clusterName, userName, caCert } };
}

/**
 * Reads a target's current certificate (upstream `Read` of its read-writer), failing with
 * upstream's messages: `failed to load existing certificate <base>: ...` for PKI files;
 * `failed to load kubeConfig file <path>: ...`, `invalid kubeConfig file <path>: missing
 * context|cluster|authInfo <name>`, `... does not have an embedded client certificate` for
 * kubeconfigs.
 */
export async function loadTarget(target: RenewTarget, where: RenewalFiles): Promise<LoadedTarget> {
  if (target.source.kind === "kubeconfig") {
    return await loadKubeconfigTarget(where, target.source.fileName);
  }
  return { cert: await readExistingCert(where.pki, target.source.baseName) };
}

/** The cluster settings a renewal uses. */
export interface RenewalSettings {
  encryptionAlgorithm: EncryptionAlgorithm;
  /** Go duration; NotAfter = start + this (upstream's default 8760h when unset). */
  certificateValidityPeriod?: string;
  /** External etcd: the etcd leaves are not targets. */
  externalEtcd: boolean;
}

/** The renewal settings of a cluster's (defaulted) configuration. */
export function renewalSettings(
  cluster: Pick<
    ResolvedClusterConfiguration,
    "encryptionAlgorithm" | "certificateValidityPeriod" | "etcd"
  >,
): RenewalSettings {
  return {
    encryptionAlgorithm: cluster.encryptionAlgorithm,
    certificateValidityPeriod: cluster.certificateValidityPeriod,
    externalEtcd: cluster.etcd.external !== undefined,
  };
}

/** What happens to one target. */
export type RenewalOutcome =
  | { target: RenewTarget; status: "missing" }
  | { target: RenewTarget; status: "external" }
  | {
    target: RenewTarget;
    status: "renewed";
    /** The files to write, in order (key before certificate). */
    files: PlannedFile[];
    previous: Certificate;
    cert: Certificate;
  };

/** A complete renewal: every outcome in order and the files to write. */
export interface RenewalPlan {
  outcomes: RenewalOutcome[];
  /** Every file of every renewed target, in write order. */
  files: PlannedFile[];
  /** Upstream's period warnings met while checking CAs and leaves (stderr). */
  warnings: string[];
}

/** Input of {@link planRenewal}: its targets' files (the CAs' key port signs), and the run. */
export interface RenewalInput extends RenewalFiles {
  settings: RenewalSettings;
  /** Target names to renew, in order (`renew all`: every target of {@link renewTargets}). */
  names: readonly string[];
  /** Start of the run (upstream `StartTimeUTC`): validity is counted from it. */
  startTime: Date;
  /** Now, for the external-CA checks. */
  now: Date;
  random: RandomSource;
  /** Where new keys come from (default: generated on demand, all started at once). */
  keys?: KeyPool;
}

/**
 * Every target a plan may name: `certs renew`'s, and kubelet.conf, which only the renewals
 * beyond upstream name, and only when it embeds its certificate (`kubelet_conf.ts`).
 */
function knownTargets(externalEtcd = false): RenewTarget[] {
  return [...renewTargets(externalEtcd), KUBELET_CONF_TARGET];
}

/**
 * Names that are not targets at all; `renew <name>` for a name that is a target of another
 * cluster layout (etcd leaves with external etcd) is reported missing, as upstream does.
 */
function unknownRenewNames(names: readonly string[]): string[] {
  const known = new Set(knownTargets().map((t) => t.name));
  return names.filter((n) => !known.has(n));
}

/** Pool id of a target's new key: the certificate's or the kubeconfig file's, as in the tree. */
function renewKeyId(target: RenewTarget): string {
  return target.source.kind === "pki"
    ? certKeyId(target.name)
    : kubeconfigKeyId(target.source.fileName);
}

/** Certificate fields a renewal copies (upstream `certToConfig`). */
function renewedConfig(cert: Certificate, settings: RenewalSettings, startTime: Date) {
  const validity = parseDuration(settings.certificateValidityPeriod ?? "8760h");
  return {
    commonName: cert.subject.commonName,
    organization: [...cert.subject.organization],
    dnsNames: [...cert.dnsNames],
    ips: [...cert.ipAddresses],
    usages: cert.extKeyUsage.filter(isGoKnownExtKeyUsage),
    notBefore: new Date(startTime.getTime() - CERT_BACKDATE_MS),
    notAfter: new Date(startTime.getTime() + validity),
  };
}

/** Sorted copies of a kubeconfig's lists, as clientcmd (whose lists are maps) writes them. */
function clientcmdOrder(config: Kubeconfig): Kubeconfig {
  return {
    ...config,
    clusters: [...config.clusters].sort(byName),
    contexts: [...config.contexts].sort(byName),
    users: [...config.users].sort(byName),
  };
}

async function renewedFiles(
  target: RenewTarget,
  loaded: LoadedTarget,
  { cert, key }: CertAndKey,
  where: RenewalFiles,
): Promise<PlannedFile[]> {
  if (target.source.kind === "pki") {
    const { baseName } = target.source;
    return [
      { ...await where.pki.keyFile(baseName, key), keepExistingMode: true },
      { ...where.pki.certFile(baseName, cert), keepExistingMode: true },
    ];
  }
  const keyPEM = await encodePrivateKeyPEM(key);
  const { config, clusterName, userName, caCert } = loaded.kubeconfig!;
  const next: Kubeconfig = {
    ...config,
    clusters: config.clusters.map((c) =>
      c.name === clusterName
        ? {
          ...c,
          cluster: {
            ...c.cluster,
            "certificate-authority-data": embedData(encodeCertificatePEM(caCert)),
          },
        }
        : c
    ),
    users: config.users.map((u) =>
      u.name === userName
        ? {
          ...u,
          user: {
            ...u.user,
            "client-certificate-data": embedData(encodeCertificatePEM(cert)),
            "client-key-data": embedData(keyPEM),
          },
        }
        : u
    ),
  };
  return [{
    path: targetPath(target, where),
    data: serializeKubeconfig(clientcmdOrder(next), { nullEmptyLists: true }),
    mode: KUBECONFIG_FILE_MODE,
    kind: "kubeconfig",
    keepExistingMode: true,
  }];
}

/**
 * Plans the renewal of the named targets (upstream `renewCert` for each, `RenewUsingLocalCA`):
 * reads, checks and signs everything first and returns the outcome of each target with the
 * files to write. Throws (naming the file) on the first target that cannot be renewed: an
 * unknown name, an unreadable certificate or kubeconfig, a keyless CA whose leaves do not
 * verify, a CA that does not load, a CA key that does not match the CA certificate.
 */
export async function planRenewal(input: RenewalInput): Promise<RenewalPlan> {
  const { settings, startTime, now } = input;
  // Planning writes nothing: one walk reads each file of the directory once.
  const pki = input.pki.walk();
  const where: RenewalFiles = { pki, kubeconfigDir: input.kubeconfigDir };
  const unknown = unknownRenewNames(input.names);
  if (unknown.length > 0) {
    throw new KubeadmError(`${unknown[0]} is not a valid certificate for this cluster`, {
      value: unknown[0],
      hint: `valid names: ${renewTargets().map((t) => t.name).join(", ")}, all`,
    });
  }
  const targets = new Map(knownTargets(settings.externalEtcd).map((t) => [t.name, t]));
  const all = new Map(knownTargets().map((t) => [t.name, t]));
  const external = externalCAChecker(pki, now);
  const { warnings } = external;
  const warn = (line: string) => {
    if (!warnings.includes(line)) warnings.push(line);
  };
  const isExternal = (caBaseName: string) => external.isExternal(caBaseName);

  // First pass: which targets will be renewed (so their keys can be generated concurrently).
  const pending: { target: RenewTarget; loaded: LoadedTarget }[] = [];
  const outcomes: (RenewalOutcome | { target: RenewTarget; status: "pending" })[] = [];
  for (const name of input.names) {
    const target = targets.get(name);
    if (!target || !(await targetExists(target, where))) {
      outcomes.push({ target: target ?? all.get(name)!, status: "missing" });
      continue;
    }
    if (await isExternal(target.caBaseName)) {
      outcomes.push({ target, status: "external" });
      continue;
    }
    pending.push({ target, loaded: await loadTarget(target, where) });
    outcomes.push({ target, status: "pending" });
  }
  const pool = input.keys ?? new KeyPool({ random: input.random, crypto: pki.crypto });
  pool.prefetchAll(pending.map((p) => renewKeyId(p.target)), settings.encryptionAlgorithm);

  const cas = new Map<string, Promise<CertAndKey>>();
  const renewed = new Map<string, RenewalOutcome>();
  for (const { target, loaded } of pending) {
    let ca = cas.get(target.caBaseName);
    if (!ca) {
      // The CA is the running cluster's: a refusal may only advise restoring it.
      ca = pki.loadCA(target.caBaseName, "restore");
      cas.set(target.caBaseName, ca);
    }
    const { cert: caCert, key: caKey } = await ca;
    const period = periodWarning(target.caBaseName, caCert, now);
    if (period) warn(period);
    const key = await pool.take(renewKeyId(target), settings.encryptionAlgorithm);
    const config = renewedConfig(loaded.cert, settings, startTime);
    let cert: Certificate;
    try {
      if (config.usages.length === 0) throw new PkiError("must specify at least one ExtKeyUsage");
      try {
        cert = await createSignedCert(config, key, caCert, caKey, input.random, pki.crypto);
      } catch (e) {
        throw new PkiError(`unable to sign certificate: ${errorMessage(e)}`, { cause: e });
      }
    } catch (e) {
      throw new PkiError(`failed to renew certificate ${target.name}: ${errorMessage(e)}`, {
        field: pki.keyPath(target.caBaseName),
        cause: e,
        hint: `${pki.keyPath(target.caBaseName)} must be the key of ${
          pki.certPath(target.caBaseName)
        }`,
      });
    }
    renewed.set(target.name, {
      target,
      status: "renewed",
      files: await renewedFiles(target, loaded, { cert, key }, where),
      previous: loaded.cert,
      cert,
    });
  }
  const final = outcomes.map((o) => o.status === "pending" ? renewed.get(o.target.name)! : o);
  return {
    outcomes: final,
    files: final.flatMap((o) => o.status === "renewed" ? o.files : []),
    warnings,
  };
}

/** The line upstream prints for an outcome. */
export function renewalMessage(outcome: RenewalOutcome): string {
  switch (outcome.status) {
    case "missing":
      return `MISSING! ${outcome.target.longName}`;
    case "external":
      return `Detected external ${outcome.target.caBaseName}, ${outcome.target.longName} can't be renewed`;
    case "renewed":
      return `${outcome.target.longName} renewed`;
  }
}

/** Upstream's closing line of `certs renew all`. */
export const RENEW_ALL_DONE =
  "Done renewing certificates. You must restart the kube-apiserver, kube-controller-manager, kube-scheduler and etcd, so that they can use the new certificates.";

/**
 * The static Pods that must be restarted to load the renewed certificates (beyond upstream
 * for single renewals, which upstream leaves unsaid), in a stable order.
 */
export function podsToRestart(plan: RenewalPlan): string[] {
  const order = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd"];
  const pods = new Set(
    plan.outcomes.flatMap((o) => o.status === "renewed" ? o.target.readers : []),
  );
  return order.filter((p) => pods.has(p));
}
