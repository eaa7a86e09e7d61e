/**
 * Everything an `init` phase may use: the resolved configuration and the host ports.
 *
 * This is the TypeScript counterpart of upstream's `InitData` interface. Phases read the
 * node's files and write their planned files only through {@link InitData.files}; in dry-run
 * the runtime hands in a recording overlay instead of the real file system. The phases that
 * talk to the cluster reach it through narrow ports the runtime implements:
 * {@link ClusterAccess} (the admin client) and the node's ports ({@link NodeHost}: health
 * endpoints, the kubelet service, the machine preflight inspects).
 *
 * @module
 */
import type { RunContext } from "../../workflow/context.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { Sleep } from "../../ports/clock.ts";
import type { Kubeconfig } from "../../kubeconfig/kubeconfig.ts";
import type { NodeHost } from "../../ports/node.ts";
import type { AutoRenewalRequest } from "../../certs/auto_renewal.ts";

/** Facts about the host that shape generated files (read by the runtime, passed in). */
export interface HostFacts {
  /** OS hostname, lowercased (node name default; `--hostname-override` decision). */
  hostname: string;
  /** Which of the CA-trust directories upstream mounts conditionally exist on this host. */
  existingDirs: ReadonlySet<string>;
  /** `*_proxy` environment variables (name → value), copied into control-plane Pods. */
  proxyEnv: Readonly<Record<string, string>>;
  /** Whether systemd-resolved is active (this node's kubelet `config.yaml` gets its resolv.conf). */
  systemdResolvedActive?: boolean;
}

/** The cluster as kubeadm's admin identity sees it; connects on first use. */
export interface ClusterAccess {
  /** Node path of the admin kubeconfig (`/etc/kubernetes/admin.conf`). */
  readonly kubeconfigPath: string;
  /** The parsed admin kubeconfig (cluster-info and join command come from it). */
  kubeconfig(): Promise<Kubeconfig>;
  /**
   * The admin client. In a real run the first call makes sure the `kubeadm:cluster-admins`
   * ClusterRoleBinding exists (falling back to super-admin.conf), once per run.
   */
  client(): Promise<KubeClient>;
}

/** Input of every init phase: the run (configuration, files, output, clock, ...) and more. */
export interface InitData extends RunContext {
  /** `--dry-run`. */
  dryRun: boolean;
  /** Directory of kubeconfig files, `/etc/kubernetes`. */
  kubeconfigDir: string;
  /** Static Pod manifest directory, `/etc/kubernetes/manifests`. */
  manifestDir: string;
  /** `--patches` directory, if any. */
  patchesDir?: string;
  /** Host facts for manifests and kubelet flags. */
  host: HostFacts;
  /**
   * Which phase paths this run will execute (`certs/apiserver`); phases use it to prepare
   * work ahead of time. Absent means every phase not in `skipPhases`.
   */
  willRun?: (phasePath: string) => boolean;
  /** Sleeps between polls (injected so tests do not wait). */
  sleep: Sleep;
  /**
   * The node's ports (machine, health endpoints, kubelet service). Offline-only users (a
   * browser plan) have none: the phases that need the node then fail clearly, and
   * kubelet-start only writes the kubelet's files.
   */
  node?: NodeHost;
  /** The cluster; absent when no runtime can reach one (the phases then fail clearly). */
  cluster?: ClusterAccess;
  /** `init phase preflight -o`: `text` (default) or `json` (one report of every check). */
  preflightOutput?: "text" | "json";
  /** `addon coredns|kube-proxy --print-manifest`: print the addon's objects, install nothing. */
  printManifest?: boolean;
  /**
   * `--certificate-auto-renewal` (or the phase run alone): install the certificate
   * auto-renewal schedule, running this command (beyond upstream).
   */
  certificateAutoRenewal?: AutoRenewalRequest;
  /** `--skip-token-print`: withhold the bootstrap token in the output. */
  skipTokenPrint?: boolean;
  /** `--skip-certificate-key-print`: withhold the certificate key in the output. */
  skipCertificateKeyPrint?: boolean;
  /**
   * Dry-run only: writes the planned files to the dry-run directory and prints the printable
   * ones (upstream does this at wait-control-plane). Later calls print only what is new.
   */
  reportDryRunFiles?: () => Promise<void>;
}
