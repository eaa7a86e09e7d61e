/**
 * `planUpgrade`: what `kubeadm upgrade plan` reports for a cluster, as data: the upgrades
 * kubeadm can make (each component's current and target version, node by node) and the state
 * of the component configs.
 *
 * It runs the command's own planning (`core/upgrade/plan.ts`) against the cluster's objects,
 * served by an offline cluster (`adapters/offline/cluster.ts`), or against an API server through
 * the caller's transport (read only: a plan runs no preflight, so no health-check Job is
 * created). The node the plan is made on is described by its hostname and files.
 *
 * @module
 */
import { KubeClient, type KubeObject } from "../core/kube/client.ts";
import type { Transport } from "../core/ports/transport.ts";
import { parseSemVer } from "../core/config/version.ts";
import { ValidationError } from "../core/errors.ts";
import { planClusterUpgrade, type UpgradePlan, upgradePlanText } from "../core/upgrade/plan.ts";
import { resolveUpgradeConfig } from "../core/upgrade/upgrade_config.ts";
import { offlineCluster } from "../adapters/offline/cluster.ts";
import { realSleep, systemClock } from "./adapters.ts";
import {
  filesReader,
  type PlanFile,
  type PlanHost,
  planPorts,
  type PlanRunOptions,
} from "./node_plan.ts";

export type {
  AvailableUpgrade,
  ComponentConfigVersionState,
  ComponentUpgradePlan,
  UpgradePlan,
} from "../core/upgrade/plan.ts";

/** The API server the offline cluster stands for (its requests never leave the process). */
const OFFLINE_SERVER = "https://offline-cluster.invalid:6443";

/** An API server reached through the caller's transport. */
export interface ClusterTransport {
  /** Its base URL, e.g. `https://10.0.0.1:6443`. */
  server: string;
  /**
   * Sends one request to it with the credentials to read `kube-system` (e.g. `fetch` with a
   * client certificate or a token); the plan only reads.
   */
  transport: Transport;
}

/** A cluster given as data: what its API server serves. */
export interface ClusterObjects {
  /** Its objects. */
  objects: readonly KubeObject[];
  /** Its API server's version (`/version`'s `gitVersion`), e.g. `v1.36.3`. */
  version: string;
}

/** Input of {@link planUpgrade}. */
export interface UpgradePlanOptions extends Pick<PlanRunOptions, "random" | "clock"> {
  /**
   * The cluster: the objects its API server serves (the `kube-system` ConfigMaps
   * `kubeadm-config`, `kubelet-config` and `kube-proxy`, the control-plane Pods, the Nodes and
   * the CoreDNS Deployment) and its API server's version, or its API server through a transport.
   */
  cluster: ClusterObjects | ClusterTransport;
  /** The node the plan is made on (its name, unless its `kubelet.conf` names it). */
  host: Pick<PlanHost, "hostname" | "advertiseAddress">;
  /**
   * The node's files: `kubelet.conf` (whose client certificate names the node),
   * `instance-config.yaml` (its CRI socket) and, on a control-plane node, its kube-apiserver
   * manifest (its API endpoint then comes from its Pod). Default: none.
   */
  existingFiles?: readonly PlanFile[];
  /**
   * An UpgradeConfiguration, as a `kubeadm upgrade plan --config` file holds it: its `plan`
   * section (target version, release candidates, experimental versions, etcd). Default:
   * kubeadm's defaults.
   */
  config?: string;
  /**
   * The target version (`kubeadm upgrade plan <version>`). Default: the configuration's, else
   * the release labels, resolved offline to this kubeadm's version.
   */
  version?: string;
}

/** What `kubeadm upgrade plan` reports. */
export interface UpgradePlanResult {
  /** The `UpgradePlan` object (`-o json`); absent when the cluster is up to date. */
  plan?: UpgradePlan;
  /** The tables `kubeadm upgrade plan` prints (empty when the cluster is up to date). */
  text: string;
  /** kubeadm's progress lines and warnings for this run. */
  log: string[];
}

/** `/version`'s answer for an API server of version `v` (`cluster.version`, validated). */
function serverVersion(v: string): { major: string; minor: string; gitVersion: string } {
  const parsed = parseSemVer(v);
  if (!parsed) {
    throw new ValidationError([{
      field: "cluster.version",
      value: v,
      detail: "not a Kubernetes version (the API server's, e.g. v1.36.3)",
    }]);
  }
  return { major: String(parsed.major), minor: String(parsed.minor), gitVersion: v };
}

/**
 * Plans `kubeadm upgrade plan`: the cluster's configuration for this node, its versions and the
 * upgrades kubeadm can make to them. Offline (`cluster.objects`) there is no I/O; through a
 * transport, only reads.
 */
export async function planUpgrade(o: UpgradePlanOptions): Promise<UpgradePlanResult> {
  const ports = planPorts(o);
  const upgrade = resolveUpgradeConfig(o.config, "config");
  for (const w of upgrade.warnings) ports.out.warn(w);
  const { cluster } = o;
  const client = "transport" in cluster
    ? new KubeClient({
      server: cluster.server,
      transport: cluster.transport,
      clock: o.clock ?? systemClock,
      sleep: realSleep,
    })
    : new KubeClient({
      server: OFFLINE_SERVER,
      transport: offlineCluster(cluster.objects, serverVersion(cluster.version)).transport,
      clock: ports.clock,
      sleep: ports.sleep,
    });
  const plan = await planClusterUpgrade({
    client,
    files: filesReader(o.existingFiles),
    upgrade: {
      plan: { ...upgrade.plan, kubernetesVersion: o.version ?? upgrade.plan.kubernetesVersion },
      timeouts: upgrade.timeouts,
    },
    host: { hostname: o.host.hostname, defaultAdvertiseAddress: o.host.advertiseAddress ?? "" },
    random: ports.random,
    out: ports.out,
  });
  return { ...plan && { plan }, text: plan ? upgradePlanText(plan) : "", log: ports.log };
}
