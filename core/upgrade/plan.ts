/**
 * `kubeadm upgrade plan` as data (upstream `phases/upgrade/compute.go` and `cmd/upgrade/plan.go`):
 * which upgrades are available from the cluster's versions, the `UpgradePlan` object
 * (`output.kubeadm.k8s.io/v1alpha3`) that `-o json|yaml` prints, and upstream's text tables.
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
import { errorMessage, KubeadmError } from "../errors.ts";
import type { Printer } from "../ports/printer.ts";
import { tabwriterFormat } from "../text/tabwriter.ts";
import { OUTPUT_API_VERSION } from "../text/structured_output.ts";
import { targetRelease } from "../versions.ts";
import type { VersionGetter, VersionMap } from "./version_getter.ts";

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
    if (etcdWarning) out.log?.(1, "plan.ts", `[upgrade/versions] WARNING: ${etcdWarning}`);
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
  name: string;
  currentVersion: string;
  newVersion: string;
  nodeName?: string;
}

/** One upgrade possibility as printed (`AvailableUpgrade`). */
export interface AvailableUpgrade {
  description: string;
  components: ComponentUpgradePlan[];
}

/** The state of one component config (`ComponentConfigVersionState`). */
export interface ComponentConfigVersionState {
  group: string;
  currentVersion: string;
  preferredVersion: string;
  manualUpgradeRequired: boolean;
}

/** `kubeadm upgrade plan -o json|yaml`'s object (`UpgradePlan`). */
export interface UpgradePlan {
  kind: "UpgradePlan";
  apiVersion: typeof OUTPUT_API_VERSION;
  availableUpgrades?: AvailableUpgrade[];
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
