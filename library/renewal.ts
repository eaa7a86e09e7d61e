/**
 * Day-2 certificates as data: `planCertificateRenewal` (what `kubeadm certs renew` would write)
 * and `checkCertificateExpiration` (what `kubeadm certs check-expiration` reports), from the
 * node's files given as data. They call the same domain code as the commands
 * (`core/certs/renewal.ts`, `core/certs/expiration.ts`).
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

/** What `kubeadm certs renew` would write. */
export interface CertificateRenewalPlan {
  /** The renewed keys, certificates and kubeconfigs, in write order. */
  files: PlanFile[];
  /** One entry per requested name, in order. */
  certificates: RenewedCertificate[];
  /** The static Pods to restart so that they load the new files. */
  podsToRestart: string[];
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
  const plan = await planRenewal({
    ...renewalFiles(o, cluster, ports.crypto),
    settings,
    names: o.names ?? renewTargets(settings.externalEtcd).map((t) => t.name),
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
