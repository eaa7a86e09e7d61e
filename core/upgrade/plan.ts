/**
 * `kubeadm upgrade plan` as data (upstream `phases/upgrade/compute.go` and `cmd/upgrade/plan.go`):
 * {@link planClusterUpgrade} runs the whole command against a cluster (preflight when given,
 * the cluster's configuration for this node, the health checks, the versions) and returns the
 * `UpgradePlan` object (`output.kubeadm.k8s.io/v1alpha3`) that `-o json|yaml` prints;
 * {@link upgradePlanText} gives upstream's text tables. The command line and the library's
 * `planUpgrade` both call it, each with its own ports.
 *
 * The available upgrades, as upstream computes them: the latest stable version (a label; an
 * explicit `[version]` answers every label) is a minor upgrade when the cluster is older; when
 * it is not older than the cluster, the latest patch of the cluster's own series is offered too
 * (replacing the minor upgrade when that patch is the stable version itself); release candidates
 * and experimental versions only with their flags.
 *
 * @module
 */
import { compareSemVer, formatSemVer, parseSemVer, type SemVer } from "../config/version.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { storedFeatureGateNotices } from "../config/features.ts";
import { logComponentConfigDownload, type NodeConfigHost } from "../config/cluster_config.ts";
import { KubeconfigFile, KUBERNETES_DIR } from "../constants.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { NodeFiles } from "../ports/files.ts";
import type { Printer } from "../ports/printer.ts";
import type { RandomSource } from "../ports/random.ts";
import type { KubeClient } from "../kube/client.ts";
import { parseDuration } from "../text/duration.ts";
import { tabwriterFormat } from "../text/tabwriter.ts";
import { OUTPUT_API_VERSION } from "../text/structured_output.ts";
import { KUBERNETES_VERSION, targetRelease } from "../versions.ts";
import { fetchUpgradeConfig, isControlPlaneNode } from "./cluster_config.ts";
import { printConfigurationUsed } from "../config/print.ts";
import type { ResolvedUpgradeConfig } from "./upgrade_config.ts";
import {
  kubeVersionGetter,
  offlineVersionGetter,
  type VersionGetter,
  type VersionMap,
} from "./version_getter.ts";

/** This module's name in verbose log lines. */
const LOG_SOURCE = "plan.ts";

/** The state of a cluster's versions before or after an upgrade (upstream `ClusterState`). */
export interface ClusterState {
  /** The newest kube-apiserver version in the cluster. */
  kubeVersion: string;
  /** The CoreDNS image tag (`""` when CoreDNS is not deployed). */
  dnsVersion: string;
  kubeadmVersion: string;
  /** The etcd version an upgrade would deploy (`""` for external etcd). */
  etcdVersion?: string;
  kubeAPIServerVersions?: VersionMap;
  kubeControllerManagerVersions?: VersionMap;
  kubeSchedulerVersions?: VersionMap;
  etcdVersions?: VersionMap;
  kubeletVersions?: VersionMap;
}

/** One upgrade possibility (upstream `Upgrade`). */
export interface Upgrade {
  /** `stable version`, `version in the v1.36 series`, ... */
  description: string;
  before: ClusterState;
  after: ClusterState;
}

/** Whether any kubelet would change version (upstream `CanUpgradeKubelets`). */
function canUpgradeKubelets(up: Upgrade): boolean {
  const kubelets = up.before.kubeletVersions ?? {};
  const versions = Object.keys(kubelets);
  if (versions.length > 1) return true;
  if (versions.length === 0) return false;
  return !(up.after.kubeVersion in kubelets);
}

/** What {@link availableUpgrades} needs besides the versions. */
export interface AvailableUpgradesOptions {
  /** `--allow-experimental-upgrades`. */
  allowExperimental: boolean;
  /** `--allow-release-candidate-upgrades`. */
  allowRC: boolean;
  /** Warnings (upstream's klog lines). */
  warn(line: string): void;
}

function latestVersion(versions: VersionMap): SemVer {
  let latest: SemVer | undefined;
  for (const [v, nodes] of Object.entries(versions)) {
    const parsed = parseSemVer(v);
    if (!parsed) {
      throw new KubeadmError(
        `couldn't parse kube-apiserver version ${v} from nodes [${nodes.join(" ")}]`,
      );
    }
    if (!latest || compareSemVer(parsed, latest) >= 0) latest = parsed;
  }
  if (!latest) {
    throw new KubeadmError(
      "couldn't find any kube-apiserver Pod in the cluster to learn its version",
      { hint: "upgrade plan reads the versions of the control-plane Pods in kube-system" },
    );
  }
  return latest;
}

function mustParse(v: string, what: string): SemVer {
  const parsed = parseSemVer(v);
  if (!parsed) throw new KubeadmError(`Couldn't parse ${what}: could not parse "${v}" as version`);
  return parsed;
}

/**
 * Upstream's `GetAvailableUpgrades`: reads every version through `getter`, prints upstream's
 * `[upgrade/versions] …` lines (the etcd version fallback at `-v=1`), and returns the upgrades
 * kubeadm can do (possibly none).
 */
export async function availableUpgrades(
  getter: VersionGetter,
  opts: AvailableUpgradesOptions,
  out: Printer,
): Promise<Upgrade[]> {
  out.info("[upgrade] Fetching available versions to upgrade to");
  const upgrades: Upgrade[] = [];
  const apiServers = await getter.componentVersions("kube-apiserver");
  if (Object.keys(apiServers).length > 1) {
    const msg = Object.entries(apiServers).map(([v, n]) => `${v} on nodes [${n.join(" ")}]`);
    opts.warn(
      `Different API server versions in the cluster were discovered: ${
        msg.join(", ")
      }. Please upgrade your control plane nodes to the same version of Kubernetes`,
    );
  }
  const cluster = latestVersion(apiServers);
  const clusterStr = formatSemVer(cluster);
  out.info(`[upgrade/versions] Cluster version: ${clusterStr}`);
  const kubeadmStr = getter.kubeadmVersion();
  const kubeadm = mustParse(kubeadmStr, "kubeadm version");
  out.info(`[upgrade/versions] kubeadm version: ${kubeadmStr}`);

  let stableStr: string;
  let stable: SemVer;
  try {
    stableStr = await getter.versionFromLabel("stable", "stable version");
    stable = mustParse(stableStr, "latest stable version");
    out.info(`[upgrade/versions] Target version: ${stableStr}`);
  } catch (e) {
    opts.warn(`[upgrade/versions] WARNING: ${errorMessage(e)}`);
    opts.warn(
      "[upgrade/versions] WARNING: Falling back to current kubeadm version as latest stable version",
    );
    stableStr = kubeadmStr;
    stable = kubeadm;
  }

  const kubelets = await getter.kubeletVersions();
  const controllerManagers = await getter.componentVersions("kube-controller-manager");
  const schedulers = await getter.componentVersions("kube-scheduler");
  const etcds = await getter.componentVersions("etcd");
  const externalEtcd = Object.keys(etcds).length === 0;
  const dnsVersion = await getter.dnsAddonVersion();

  const before: ClusterState = {
    kubeVersion: clusterStr,
    dnsVersion,
    kubeadmVersion: kubeadmStr,
    kubeAPIServerVersions: apiServers,
    kubeControllerManagerVersions: controllerManagers,
    kubeSchedulerVersions: schedulers,
    kubeletVersions: kubelets,
    etcdVersions: etcds,
  };
  const etcdFor = (k8s: string): string => {
    if (externalEtcd) return "";
    const { etcd, etcdWarning } = targetRelease(k8s);
    if (etcdWarning) out.log?.(1, LOG_SOURCE, `[upgrade/versions] WARNING: ${etcdWarning}`);
    const parsed = parseSemVer(etcd);
    return parsed ? formatSemVer(parsed) : etcd;
  };
  const after = (kubeVersion: string, kubeadmVersion: string): ClusterState => ({
    kubeVersion,
    dnsVersion: targetRelease(kubeVersion).coreDNS,
    kubeadmVersion,
    etcdVersion: etcdFor(kubeVersion),
  });

  let canDoMinorUpgrade = compareSemVer(cluster, stable) < 0;
  if (compareSemVer(stable, cluster) >= 0) {
    const branch = `${cluster.major}.${cluster.minor}`;
    const description = `version in the v${branch} series`;
    try {
      const patchStr = await getter.versionFromLabel(`stable-${branch}`, description);
      const patch = mustParse(patchStr, `latest ${description}`);
      out.info(`[upgrade/versions] Latest ${description}: ${patchStr}`);
      canDoMinorUpgrade = compareSemVer(patch, stable) < 0;
      if (compareSemVer(cluster, patch) < 0) {
        const newKubeadm = compareSemVer(kubeadm, patch) >= 0 ? kubeadmStr : patchStr;
        upgrades.push({ description, before, after: after(patchStr, newKubeadm) });
      }
    } catch (e) {
      opts.warn(`[upgrade/versions] WARNING: ${errorMessage(e)}`);
    }
  }
  if (canDoMinorUpgrade) {
    upgrades.push({ description: "stable version", before, after: after(stableStr, stableStr) });
  }
  if (opts.allowExperimental || opts.allowRC) {
    const latestStr = await getter.versionFromLabel("latest", "experimental version");
    const latest = mustParse(latestStr, "latest experimental version");
    out.info(`[upgrade/versions] Latest experimental version: ${latestStr}`);
    const previousStr = await getter.versionFromLabel(
      `latest-1.${latest.minor - 1}`,
      "previous version",
    );
    const previous = mustParse(previousStr, "latest previous version");
    out.info(`[upgrade/versions] Latest previous version: ${previousStr}`);
    if (
      opts.allowRC && previous.preRelease.startsWith("rc") && compareSemVer(cluster, previous) < 0
    ) {
      upgrades.push({
        description: "release candidate version",
        before,
        after: after(previousStr, previousStr),
      });
    }
    if (opts.allowExperimental && compareSemVer(cluster, latest) < 0) {
      const unstable = latest.preRelease === "alpha.0" ? previousStr : latestStr;
      upgrades.push({
        description: "experimental version",
        before,
        after: after(unstable, unstable),
      });
    }
  }
  out.info("");
  return upgrades;
}

/** One component's row of an upgrade (`output.kubeadm.k8s.io/v1alpha3` `ComponentUpgradePlan`). */
export interface ComponentUpgradePlan {
  /** The component (`kube-apiserver`, `kubelet`, `etcd`, `kubeadm`, …). */
  name: string;
  /** Its version now (the kubelet's: one row per version, naming the nodes that run it). */
  currentVersion: string;
  /** Its version after the upgrade. */
  newVersion: string;
  /** The node the row is about (control-plane components and kubelets). */
  nodeName?: string;
}

/** One upgrade possibility as printed (`AvailableUpgrade`). */
export interface AvailableUpgrade {
  /** Which upgrade: `stable version`, `version in the v1.37 series`, `experimental version`, … */
  description: string;
  /** Each component's row. */
  components: ComponentUpgradePlan[];
}

/** The state of one component config (`ComponentConfigVersionState`). */
export interface ComponentConfigVersionState {
  /** Its API group (`kubeproxy.config.k8s.io`, `kubelet.config.k8s.io`). */
  group: string;
  /** The version the cluster stores (empty when the cluster has none). */
  currentVersion: string;
  /** The version kubeadm writes. */
  preferredVersion: string;
  /** Whether the user must migrate it before upgrading (kubeadm cannot). */
  manualUpgradeRequired: boolean;
}

/** `kubeadm upgrade plan -o json|yaml`'s object (`UpgradePlan`). */
export interface UpgradePlan {
  /** `UpgradePlan`. */
  kind: "UpgradePlan";
  /** `output.kubeadm.k8s.io/v1alpha3`. */
  apiVersion: string;
  /** The upgrades kubeadm can make. */
  availableUpgrades?: AvailableUpgrade[];
  /** The component configs' states. */
  configVersions?: ComponentConfigVersionState[];
}

/** The component configs kubeadm manages, in upstream's order, with their one version. */
const COMPONENT_CONFIG_GROUPS: readonly { group: string; version: string }[] = [
  { group: "kubeproxy.config.k8s.io", version: "v1alpha1" },
  { group: "kubelet.config.k8s.io", version: "v1beta1" },
];

/**
 * Upstream's `GetVersionStates`: a config found in the cluster is at the one version kubeadm
 * supports; a missing one has no current version (kubeadm regenerates it).
 */
export function componentConfigVersionStates(
  presentGroups: ReadonlySet<string>,
): ComponentConfigVersionState[] {
  return COMPONENT_CONFIG_GROUPS.map(({ group, version }) => ({
    group,
    currentVersion: presentGroups.has(group) ? version : "",
    preferredVersion: version,
    manualUpgradeRequired: false,
  }));
}

function rows(name: string, versions: VersionMap | undefined, target: string) {
  const out: ComponentUpgradePlan[] = [];
  for (const v of Object.keys(versions ?? {}).sort()) {
    for (const node of versions![v]) {
      out.push({ name, currentVersion: v, newVersion: target, nodeName: node });
    }
  }
  return out;
}

function availableUpgrade(up: Upgrade, etcdUpgrade: boolean): AvailableUpgrade {
  const components: ComponentUpgradePlan[] = [];
  const k8s = up.after.kubeVersion;
  if (canUpgradeKubelets(up)) components.push(...rows("kubelet", up.before.kubeletVersions, k8s));
  components.push(...rows("kube-apiserver", up.before.kubeAPIServerVersions, k8s));
  components.push(
    ...rows("kube-controller-manager", up.before.kubeControllerManagerVersions, k8s),
  );
  components.push(...rows("kube-scheduler", up.before.kubeSchedulerVersions, k8s));
  components.push({ name: "kube-proxy", currentVersion: up.before.kubeVersion, newVersion: k8s });
  if (up.before.dnsVersion !== "" || up.after.dnsVersion !== "") {
    components.push({
      name: "CoreDNS",
      currentVersion: up.before.dnsVersion,
      newVersion: up.after.dnsVersion,
    });
  }
  if (up.before.kubeadmVersion !== "" || up.after.kubeadmVersion !== "") {
    components.push({
      name: "kubeadm",
      currentVersion: up.before.kubeadmVersion,
      newVersion: up.after.kubeadmVersion,
    });
  }
  if (etcdUpgrade) {
    components.push(...rows("etcd", up.before.etcdVersions, up.after.etcdVersion ?? ""));
  }
  return { description: up.description, components };
}

/** Upstream's `genUpgradePlan`. */
export function upgradePlan(
  upgrades: readonly Upgrade[],
  configVersions: ComponentConfigVersionState[],
  etcdUpgrade: boolean,
): UpgradePlan {
  const plan: UpgradePlan = { kind: "UpgradePlan", apiVersion: OUTPUT_API_VERSION };
  if (upgrades.length > 0) {
    plan.availableUpgrades = upgrades.map((u) => availableUpgrade(u, etcdUpgrade));
  }
  if (configVersions.length > 0) plan.configVersions = configVersions;
  return plan;
}

const SEPARATOR = "_____________________________________________________________________\n\n";

function table(header: string[], body: string[][]): string {
  return tabwriterFormat([header, ...body].map((r) => `${r.join("\t")}\n`).join(""));
}

function availableUpgradeText(au: AvailableUpgrade): string {
  const apiServer = au.components.find((c) => c.name === "kube-apiserver");
  const kubeadm = au.components.find((c) => c.name === "kubeadm");
  const target = apiServer?.newVersion ?? "";
  const parsed = parseSemVer(target);
  if (!parsed) {
    throw new KubeadmError(
      `Unable to parse normalized version ${JSON.stringify(target)} as a semantic version`,
    );
  }
  const flag = parsed.preRelease === ""
    ? ""
    : parsed.preRelease.startsWith("rc")
    ? " --allow-release-candidate-upgrades"
    : " --allow-experimental-upgrades";
  const header = ["COMPONENT", "NODE", "CURRENT", "TARGET"];
  const row = (c: ComponentUpgradePlan) => [
    c.name,
    c.nodeName ?? "",
    c.currentVersion,
    c.newVersion,
  ];
  let s =
    "Components that must be upgraded manually after you have upgraded the control plane with 'kubeadm upgrade apply':\n";
  s += table(header, au.components.filter((c) => c.name === "kubelet").map(row));
  s += `\nUpgrade to the latest ${au.description}:\n\n`;
  s += table(
    header,
    au.components.filter((c) => c.name !== "kubelet" && c.name !== "kubeadm").map(row),
  );
  s += "\nYou can now apply the upgrade by executing the following command:\n\n";
  s += `\tkubeadm upgrade apply ${target}${flag}\n\n`;
  if (kubeadm && kubeadm.currentVersion !== kubeadm.newVersion) {
    s +=
      `Note: Before you can perform this upgrade, you have to update kubeadm to ${kubeadm.newVersion}.\n\n`;
  }
  return s + SEPARATOR;
}

function configVersionsText(states: readonly ComponentConfigVersionState[]): string {
  if (states.length === 0) return "No information available on component configs.\n";
  let s = `
The table below shows the current state of component configs as understood by this version of kubeadm.
Configs that have a "yes" mark in the "MANUAL UPGRADE REQUIRED" column require manual config upgrade or
resetting to kubeadm defaults before a successful upgrade can be performed. The version to manually
upgrade to is denoted in the "PREFERRED VERSION" column.

`;
  s += table(
    ["API GROUP", "CURRENT VERSION", "PREFERRED VERSION", "MANUAL UPGRADE REQUIRED"],
    states.map((st) => [
      st.group,
      st.currentVersion || "-",
      st.preferredVersion || "-",
      st.manualUpgradeRequired ? "yes" : "no",
    ]),
  );
  return s + SEPARATOR;
}

/** The plan as upstream's text printer prints it. */
export function upgradePlanText(plan: UpgradePlan): string {
  return (plan.availableUpgrades ?? []).map(availableUpgradeText).join("") +
    configVersionsText(plan.configVersions ?? []);
}

/**
 * The preflight checks of `upgrade plan` (`./checks.ts` makes kubeadm's), in two rounds as
 * upstream runs them: the node's before the cluster's configuration is read, the cluster's
 * health with it.
 */
export interface UpgradePlanChecks {
  /** The root check and the CoreDNS migration checks. */
  node(): Promise<void>;
  /** The cluster health checks (the health-check Job runs the configuration's pause image). */
  cluster(cfg: ResolvedConfig): Promise<void>;
}

/** What {@link planClusterUpgrade} works with. */
export interface ClusterUpgradePlanInput {
  /** The cluster's API (read only: only the health checks create their Job). */
  client: KubeClient;
  /**
   * The node's files: `kubelet.conf` (its name), `instance-config.yaml` (its CRI socket), the
   * kube-apiserver manifest (whether it is a control-plane node).
   */
  files: NodeFiles;
  /**
   * The UpgradeConfiguration: its `plan` section with the command line's flags and `[version]`
   * already applied (`kubernetesVersion`: the target, else the release labels' offline
   * versions), its `timeouts`.
   */
  upgrade: Pick<ResolvedUpgradeConfig, "plan" | "timeouts">;
  /** The host's facts the cluster's configuration is defaulted with for this node. */
  host: NodeConfigHost;
  random: RandomSource;
  /** Progress lines, warnings and upstream's verbose lines. */
  out: Printer;
  /** kubeadm's preflight checks; absent (a library plan) none runs. */
  checks?: UpgradePlanChecks;
}

/** Whether the cluster has each component config's ConfigMap (upstream `GetVersionStates`). */
async function presentComponentConfigs(client: KubeClient, out: Printer): Promise<Set<string>> {
  const present = new Set<string>();
  const maps = [
    ["KubeProxyConfiguration", "kube-proxy", "kubeproxy.config.k8s.io"],
    ["KubeletConfiguration", "kubelet-config", "kubelet.config.k8s.io"],
  ];
  for (const [kind, name, group] of maps) {
    logComponentConfigDownload(out, kind, name);
    if (await client.tryGet({ kind: "ConfigMap", namespace: "kube-system", name })) {
      present.add(group);
    }
  }
  return present;
}

/** Runs `step`, failing with upstream's `[<phase>] FATAL: …` prefix. */
async function fatal<T>(phase: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    throw new KubeadmError(`[${phase}] FATAL: ${errorMessage(e)}`, { cause: e });
  }
}

/**
 * `kubeadm upgrade plan` (upstream `runPlan` after its configuration and client): the checks'
 * first round, the cluster's configuration for this node, the health checks, the stored
 * feature gates' notices and `printConfig`, then the available upgrades and the component
 * configs' states. Returns the plan, or `undefined` when the cluster is up to date (upstream
 * prints nothing then). Writes nothing.
 */
export async function planClusterUpgrade(
  input: ClusterUpgradePlanInput,
): Promise<UpgradePlan | undefined> {
  const { client, out, checks } = input;
  const { plan: settings, timeouts } = input.upgrade;
  const log = (m: string) => out.log?.(1, LOG_SOURCE, m);
  if (checks) {
    log("running preflight checks");
    out.info("[preflight] Running pre-flight checks.");
    await checks.node();
  }
  const cfg = await fatal("upgrade/init config", async () =>
    fetchUpgradeConfig({
      client,
      files: input.files,
      out,
      logPrefix: "upgrade/config",
      kubeletConf: `${KUBERNETES_DIR}/${KubeconfigFile.kubelet}`,
      controlPlane: await isControlPlaneNode(input.files),
      host: input.host,
      random: input.random,
      apiCallTimeoutMs: parseDuration(timeouts.kubernetesAPICall),
    }));
  if (checks) {
    out.info("[upgrade] Running cluster health checks");
    await fatal("upgrade/health", () => checks.cluster(cfg));
  }
  for (const notice of storedFeatureGateNotices(cfg.cluster.featureGates ?? {})) {
    out.info(`[upgrade/config] ${notice}`);
  }
  if (settings.printConfig) printConfigurationUsed(cfg.cluster, out);
  const warn = (line: string) => out.warn(line);
  const getter = offlineVersionGetter(
    kubeVersionGetter(client, { kubeadmVersion: KUBERNETES_VERSION, warn }),
    settings.kubernetesVersion ?? "",
  );
  log("[upgrade/plan] computing upgrade possibilities");
  const upgrades = await fatal("upgrade/versions", () =>
    availableUpgrades(getter, {
      allowExperimental: settings.allowExperimentalUpgrades,
      allowRC: settings.allowRCUpgrades,
      warn,
    }, out));
  log("[upgrade/plan] analysing component config version states");
  const states = componentConfigVersionStates(await presentComponentConfigs(client, out));
  if (upgrades.length === 0) {
    log("[upgrade/plan] Awesome, you're up-to-date! Enjoy!");
    return undefined;
  }
  return upgradePlan(upgrades, states, settings.etcdUpgrade);
}
