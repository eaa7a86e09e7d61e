/**
 * Day-2 certificates as data: `planCertificateRenewal` (what `kubeadm certs renew` would write,
 * and with `within` what the scheduled `certs auto-renewal run` renews, with the restarts in
 * their order), `checkCertificateExpiration` (what `kubeadm certs check-expiration` reports),
 * from the node's files given as data, and `planCertificateAutoRenewal` (the schedule's files
 * that `kubeadm certs auto-renewal install` writes). They call the same domain code as the
 * commands (`core/certs/renewal.ts`, `core/certs/expiration.ts`, `core/certs/auto_renewal.ts`,
 * `core/controlplane/restart.ts`).
 *
 * @module
 */
import { loadInitConfig } from "../core/config/parse.ts";
import { applyClusterStaticDefaults } from "../core/config/defaults.ts";
import { KUBERNETES_DIR } from "../core/constants.ts";
import {
  planRenewal,
  podsToRestart,
  type RenewalFiles,
  renewalSettings,
  renewTargets,
} from "../core/certs/renewal.ts";
import { PkiDirectory } from "../core/certs/pki_dir.ts";
import type { ResolvedClusterConfiguration } from "../core/config/types.ts";
import type { CryptoPort } from "../core/ports/crypto.ts";
import { type CertificateExpirationInfo, checkExpiration } from "../core/certs/expiration.ts";
import {
  autoRenewalFiles,
  autoRenewalRunArgs,
  DEFAULT_RENEWAL_SCHEDULE,
  DEFAULT_RENEWAL_WINDOW,
  dueForRenewal,
  parseRenewalSchedule,
  parseRenewalWindow,
  type RenewalSchedule,
  scheduledUnit,
} from "../core/certs/auto_renewal.ts";
import { planRestarts } from "../core/controlplane/restart.ts";
import { KUBELET_CONF_TARGET, kubeletClientState } from "../core/certs/kubelet_conf.ts";
import { parseDuration } from "../core/text/duration.ts";
import {
  filesReader,
  type PlanFile,
  planFiles,
  planPorts,
  type PlanRunOptions,
} from "./node_plan.ts";

export type { CertificateExpiration, CertificateExpirationInfo } from "../core/certs/expiration.ts";

/** The node's files and its cluster's configuration, for the day-2 functions. */
export interface CertificateFilesInput {
  /** The node's current files: its PKI (`/etc/kubernetes/pki`) and kubeconfigs. */
  files: readonly PlanFile[];
  /**
   * The cluster's ClusterConfiguration (as the `kubeadm-config` ConfigMap holds it): key
   * algorithm, validity period, certificates dir, external etcd. Default: kubeadm's defaults.
   */
  config?: string;
}

/** Input of {@link planCertificateRenewal}. */
export interface CertificateRenewalOptions
  extends CertificateFilesInput, Pick<PlanRunOptions, "random" | "clock" | "crypto"> {
  /**
   * What to renew: certificate names (`apiserver`, `etcd-server`, ...) and kubeconfig files
   * (`admin.conf`, ...), as `kubeadm certs renew` names them. Default: all.
   */
  names?: readonly string[];
  /**
   * Renew only what expires within this Go duration (or has expired), e.g. `720h`: what
   * `kubeadm certs auto-renewal run --within` renews (of `names` when given), kubelet.conf
   * included when it embeds its client certificate (the kubelet rotates it otherwise). At
   * least `1h` and shorter than the certificates' validity.
   */
  within?: string;
}

/** What happened to one certificate. */
export interface RenewedCertificate {
  /** The name `kubeadm certs renew` uses. */
  name: string;
  /** `renewed`, `missing` (no such file) or `external` (its CA has no key here). */
  status: "renewed" | "missing" | "external";
  /** The new certificate's end of validity (RFC 3339), when renewed. */
  notAfter?: string;
}

/** One component's restart after a renewal. */
export interface RestartStepPlan {
  /** The static Pod: `kube-apiserver`, `kube-controller-manager`, `kube-scheduler`, `etcd`. */
  component: string;
  /** What was renewed for it (`certs renew` names). */
  renewed: string[];
  /** The paths written just before it restarts. */
  files: string[];
}

/** What `kubeadm certs renew` would write. */
export interface CertificateRenewalPlan {
  /** The renewed keys, certificates and kubeconfigs, in write order. */
  files: PlanFile[];
  /** One entry per requested name, in order. */
  certificates: RenewedCertificate[];
  /** The static Pods to restart so that they load the new files. */
  podsToRestart: string[];
  /**
   * The restarts `--restart` (and the scheduled run) make, in order: etcd last; each
   * component's renewed files are written just before its static Pod restarts.
   */
  restarts: RestartStepPlan[];
  /** Whether the kubelet restarts after them (its kubelet.conf's certificate was renewed). */
  restartKubelet: boolean;
  /** kubeadm's warnings (CA validity). */
  warnings: string[];
}

function clusterOf(config: string | undefined): ResolvedClusterConfiguration {
  return applyClusterStaticDefaults(loadInitConfig(config, { source: "config" }).cluster ?? {});
}

/** The node's files as a renewal reads them: its certificates directory and kubeconfigs. */
function renewalFiles(
  o: CertificateFilesInput,
  cluster: ResolvedClusterConfiguration,
  crypto: CryptoPort,
): RenewalFiles {
  return {
    pki: new PkiDirectory(filesReader(o.files), cluster.certificatesDir, crypto),
    kubeconfigDir: KUBERNETES_DIR,
  };
}

/**
 * Plans `kubeadm certs renew`: new keys and certificates (same subject, SANs and usages, signed
 * by the node's CAs, valid from the clock) for the named certificates and kubeconfigs. With a
 * seeded `random`, the same files come out in every runtime. No I/O.
 */
export async function planCertificateRenewal(
  o: CertificateRenewalOptions,
): Promise<CertificateRenewalPlan> {
  const ports = planPorts(o);
  const cluster = clusterOf(o.config);
  const settings = renewalSettings(cluster);
  const now = ports.clock.now();
  const files = renewalFiles(o, cluster, ports.crypto);
  let names: readonly string[] = o.names ??
    renewTargets(settings.externalEtcd).map((t) => t.name);
  if (o.within !== undefined) {
    const window = parseRenewalWindow(o.within, settings.certificateValidityPeriod);
    const { info } = await checkExpiration({
      ...files,
      externalEtcd: settings.externalEtcd,
      now,
    });
    const state = await kubeletClientState(files.pki.files, KUBERNETES_DIR);
    const due = dueForRenewal(info, parseDuration(window), { state, now }).renew;
    // kubelet.conf is not among `certs renew`'s names: the scheduled run renews it when due.
    names = (o.names ?? [...names, KUBELET_CONF_TARGET.name]).filter((n) => due.includes(n));
  }
  const plan = await planRenewal({
    ...files,
    settings,
    names,
    startTime: now,
    now,
    random: ports.random,
  });
  return {
    files: planFiles(plan.files),
    certificates: plan.outcomes.map((out) => ({
      name: out.target.name,
      status: out.status,
      ...(out.status === "renewed" ? { notAfter: out.cert.notAfter.toISOString() } : {}),
    })),
    podsToRestart: podsToRestart(plan),
    restarts: planRestarts(
      plan.outcomes.flatMap((out) =>
        out.status === "renewed"
          ? [{ name: out.target.name, files: out.files, readers: out.target.readers }]
          : []
      ),
    ).steps.map((step) => ({
      component: step.component,
      renewed: step.renewed,
      files: step.files.map((f) => f.path),
    })),
    restartKubelet: plan.outcomes.some((out) =>
      out.status === "renewed" && out.target.name === KUBELET_CONF_TARGET.name
    ),
    warnings: plan.warnings,
  };
}

/** Reports the expiry of every certificate and CA, as `kubeadm certs check-expiration -o json`. */
export async function checkCertificateExpiration(
  o: CertificateFilesInput & Pick<PlanRunOptions, "clock" | "crypto">,
): Promise<CertificateExpirationInfo & { warnings: string[] }> {
  const cluster = clusterOf(o.config);
  const ports = planPorts(o);
  const { info, warnings } = await checkExpiration({
    ...renewalFiles(o, cluster, ports.crypto),
    externalEtcd: renewalSettings(cluster).externalEtcd,
    now: ports.clock.now(),
  });
  return { ...info, warnings };
}

/** Input of {@link planCertificateAutoRenewal}. */
export interface CertificateAutoRenewalOptions {
  /** The node's init system: `systemd` (a timer) or `openrc` (a script crond runs). */
  initSystem: "systemd" | "openrc";
  /** The kubeadm the schedule runs: its absolute path, then any leading arguments. */
  command: readonly string[];
  /** Renew what expires within this Go duration. Default `720h` (30 days). */
  within?: string;
  /** `hourly`, `daily` (the default), `weekly` or `monthly`. */
  schedule?: RenewalSchedule;
  /** Also approve the kubelets' serving certificate requests for their own Node. */
  approveKubeletServing?: boolean;
  /** The cluster's ClusterConfiguration: its `certificateValidityPeriod` bounds `within`. */
  config?: string;
}

/** What `kubeadm certs auto-renewal install` puts on a node. */
export interface CertificateAutoRenewalPlan {
  /** The units (systemd) or the periodic script (OpenRC). */
  files: PlanFile[];
  /** What to enable and start once they are written: the timer, or OpenRC's `crond`. */
  enable: string;
  /** The scheduled run's arguments, after the command. */
  runArgs: string[];
}

/**
 * Plans the certificate renewal schedule of a control-plane node (beyond upstream): the files
 * `kubeadm certs auto-renewal install` writes, e.g. for cloud-init to write them. No I/O.
 */
export function planCertificateAutoRenewal(
  o: CertificateAutoRenewalOptions,
): CertificateAutoRenewalPlan {
  const settings = {
    window: parseRenewalWindow(
      o.within ?? DEFAULT_RENEWAL_WINDOW,
      renewalSettings(clusterOf(o.config)).certificateValidityPeriod,
    ),
    schedule: parseRenewalSchedule(o.schedule ?? DEFAULT_RENEWAL_SCHEDULE),
    approveKubeletServing: o.approveKubeletServing === true,
    command: o.command,
  };
  return {
    files: planFiles(autoRenewalFiles(o.initSystem, settings)),
    enable: scheduledUnit(o.initSystem),
    runArgs: autoRenewalRunArgs(settings),
  };
}
