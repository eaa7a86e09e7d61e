/**
 * Everything an `upgrade apply` or `upgrade node` phase may use (upstream's upgrade `Data`,
 * `apply.Data` and `node.Data`): the cluster's configuration for this node (for `apply`, with
 * the target version), the UpgradeConfiguration, the flags, an API client (a dry-run client
 * in `--dry-run`, reading from the real cluster and printing every write), the node's files
 * (a recording overlay in `--dry-run`) and ports.
 *
 * @module
 */
import type { CryptoPort } from "../../ports/crypto.ts";
import type { ResolvedConfig } from "../../config/types.ts";
import type { NodeHost } from "../../ports/node.ts";
import type { Clock, Sleep } from "../../ports/clock.ts";
import type { FileSystem, PlanningOverlay } from "../../ports/files.ts";
import type { Printer } from "../../ports/printer.ts";
import type { RandomSource } from "../../ports/random.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { EtcdClient } from "../../ports/etcd.ts";
import type { TlsClientMaterial } from "../../ports/http.ts";
import type { ResolvedUpgradeConfig } from "../../upgrade/upgrade_config.ts";
import type { InputName, Inputs } from "../../config/inputs.ts";
import type { VersionGetter } from "../../upgrade/version_getter.ts";

/**
 * The settings of a run: the inputs (`config/inputs.ts`) over the UpgradeConfiguration's
 * section, decided once by {@link upgradeSettings}.
 */
export interface UpgradeSettings {
  dryRun: boolean;
  etcdUpgrade: boolean;
  renewCerts: boolean;
  /** `--patches` or the configuration's `patches.directory`. */
  patchesDir?: string;
  /** `--ignore-preflight-errors` merged with the configuration's list. */
  ignorePreflightErrors: string[];
  /** `apply`: `--force` (or `forceUpgrade`). */
  force: boolean;
  /** `apply`: `--yes`, `--force` or `--dry-run`: never ask. */
  nonInteractive: boolean;
  allowExperimentalUpgrades: boolean;
  allowRCUpgrades: boolean;
  /** `apply`: print the cluster's configuration before upgrading. */
  printConfig: boolean;
  /** `upgrade.apply|node.imagePullPolicy` and `imagePullSerial`. */
  imagePullPolicy: string;
  imagePullSerial: boolean;
}

/** Input of every upgrade phase. */
export interface UpgradeData {
  /** Which workflow: `apply` (first control-plane node) or `node` (every other node). */
  command: "apply" | "node";
  /**
   * The cluster's configuration for this node; for `apply` its `kubernetesVersion` is the
   * target the user asked for (normalized by the preflight phase).
   */
  cfg: ResolvedConfig;
  upgrade: ResolvedUpgradeConfig;
  settings: UpgradeSettings;
  /** The API client (dry-run client in `--dry-run`). */
  client: KubeClient;
  /** The versions in the cluster (server version faked in `--dry-run`, as upstream). */
  versions: VersionGetter;
  /** Whether this node runs a control plane (its kube-apiserver manifest exists). */
  isControlPlaneNode: boolean;
  /** The node's files (a recording overlay in `--dry-run`). */
  files: FileSystem;
  /** Planning overlays (`--dry-run` builds the new manifests on one, to print them). */
  planningOverlay: PlanningOverlay;
  out: Printer;
  clock: Clock;
  sleep: Sleep;
  random: RandomSource;
  /** Key generation, import, signing and hashing (`core/ports/crypto.ts`). */
  crypto: CryptoPort;
  node: NodeHost;
  /** An etcd client over this node's etcd client certificate. */
  etcdClient(endpoints: readonly string[], tls: TlsClientMaterial): EtcdClient;
  /** `/etc/kubernetes`. */
  kubernetesDir: string;
  /** `/etc/kubernetes/manifests`. */
  manifestDir: string;
  /** Host facts the manifests depend on. */
  host: { existingDirs: ReadonlySet<string>; proxyEnv: Readonly<Record<string, string>> };
  /** This kubeadm's version (`v1.37.2`). */
  kubeadmVersion: string;
  /** Asks the user a yes/no question (interactive `apply`); absent: no terminal. */
  confirm?: (question: string) => Promise<boolean>;
  /** Which phase paths this run executes (absent: all not skipped). */
  willRun?: (phasePath: string) => boolean;
}

/**
 * The settings of an `upgrade apply|node` run: each input given wins over its field of the
 * UpgradeConfiguration's section (upstream's `ValueFromFlagsOrConfig`); the preflight errors to
 * ignore are both lists.
 */
export function upgradeSettings(
  command: UpgradeData["command"],
  upgrade: ResolvedUpgradeConfig,
  inputs: Inputs,
): UpgradeSettings {
  const section = command === "apply" ? upgrade.apply : upgrade.node;
  const dryRun = inputs.dryRun ?? section.dryRun;
  const force = command === "apply" && (inputs.force ?? upgrade.apply.forceUpgrade);
  return {
    dryRun,
    etcdUpgrade: inputs.etcdUpgrade ?? section.etcdUpgrade,
    renewCerts: inputs.certificateRenewal ?? section.certificateRenewal,
    patchesDir: inputs.patchesDir ?? section.patchesDirectory,
    ignorePreflightErrors: [
      ...section.ignorePreflightErrors,
      ...inputs.ignorePreflightErrors ?? [],
    ],
    force,
    nonInteractive: (inputs.yes ?? false) || force || dryRun,
    allowExperimentalUpgrades: inputs.allowExperimentalUpgrades ??
      upgrade.apply.allowExperimentalUpgrades,
    allowRCUpgrades: inputs.allowRCUpgrades ?? upgrade.apply.allowRCUpgrades,
    printConfig: command === "apply" && (inputs.printConfig ?? upgrade.apply.printConfig),
    imagePullPolicy: section.imagePullPolicy,
    imagePullSerial: section.imagePullSerial,
  };
}

/** What every `upgrade apply|node phase` command takes. */
export const BASE_INPUTS = [
  "config",
  "kubeconfig",
  "dryRun",
] as const satisfies readonly InputName[];
