/**
 * Assembles `kubeadm upgrade apply|node|plan|diff` runs on this host: the `--config`
 * UpgradeConfiguration (flags win over it), the API client from `--kubeconfig` (default
 * `admin.conf`; `upgrade node` on a worker uses `kubelet.conf`), the cluster's configuration for
 * this node, the node's files under `--rootfs` (a recording overlay in `--dry-run`) and ports.
 *
 * `--dry-run` reads the real cluster and prints every write instead of making it (upstream's
 * dry-run client); it changes nothing on the node or in the cluster. A kubeconfig is needed
 * (upstream can also dry-run without one, against made-up objects; kubeadm-ts does not).
 *
 * @module
 */
import { readConfigFile } from "./config_file.ts";
import { validateMixedArguments } from "../core/config/mixed_flags.ts";
import { KubeconfigFile, KUBERNETES_DIR, MANIFESTS_DIR } from "../core/constants.ts";
import { KUBERNETES_VERSION } from "../core/versions.ts";
import { errorMessage, KubeadmError } from "../core/errors.ts";
import type { Printer } from "../core/ports/printer.ts";
import { KubeClient } from "../core/kube/client.ts";
import type { ResolvedConfig } from "../core/config/types.ts";
import type { UpgradeData } from "../core/phases/upgrade/data.ts";
import type { ResolvedUpgradeConfig, UpgradePlanSettings } from "../core/upgrade/upgrade_config.ts";
import { detectDefaultAddress, readHostFacts } from "../adapters/deno/host/facts.ts";
import { dryRunTransport, nodeFiles, nodeHost, planningOverlay, platform } from "./adapters.ts";
import { readAnswer } from "./reset_runtime.ts";
import { writeStdout } from "./output.ts";
import {
  connect,
  type Connection,
  isControlPlaneNode,
  kubeconfigLocation,
} from "./cluster_connection.ts";
import { UsageError } from "./usage.ts";
import type { FlagValues } from "./flags.ts";
import { resolveObjectOutput, writeObject } from "./object_output.ts";
import type { CommandDeps, Invocation, WorkflowRun } from "./workflow_command.ts";

/** This module's name in verbose log lines. */
const LOG_SOURCE = "upgrade_runtime.ts";

/** The two upgrade workflows. */
export type UpgradeWorkflowName = "apply" | "node";

/** What a test can hand to the upgrade commands instead of this machine. */
export interface UpgradeDeps extends CommandDeps {
  /** Reads one line of user input after printing a prompt (default: stdin). */
  confirm?: (prompt: string) => Promise<string | undefined>;
}

async function loadUpgradeConfig(path: string | undefined): Promise<ResolvedUpgradeConfig> {
  const { resolveUpgradeConfig } = await import("../core/upgrade/upgrade_config.ts");
  return resolveUpgradeConfig(path ? await readConfigFile(path) : undefined, path);
}

/** An API connection from a kubeconfig file (on this machine, file references under root). */
function hostFacts(rootfs: string) {
  const facts = readHostFacts(rootfs);
  return {
    facts,
    host: {
      hostname: facts.hostname,
      defaultAdvertiseAddress: detectDefaultAddress() ?? "",
    },
  };
}

/** `--dry-run`'s API client: reads the real cluster, prints and keeps every write. */
async function dryRunClient(real: Connection, out: Printer): Promise<KubeClient> {
  const { HEALTH_CHECK_JOB_PREFIX } = await import("../core/upgrade/health.ts");
  const version = await real.client.version().catch((e) => {
    throw new KubeadmError(`failed to get server version: ${errorMessage(e)}`, { cause: e });
  });
  const dry = await dryRunTransport({
    out,
    backing: real.transport,
    serverVersion: { major: version.major, minor: version.minor, gitVersion: version.gitVersion },
    // Upstream's HealthCheckJobReactor: the health-check Job has completed.
    respond: (a) =>
      a.kind === "Job" && a.namespace === "kube-system" &&
        (a.name ?? "").startsWith(HEALTH_CHECK_JOB_PREFIX)
        ? {
          apiVersion: "batch/v1",
          kind: "Job",
          metadata: { name: a.name, namespace: a.namespace },
          status: { conditions: [{ type: "Complete", status: "True" }] },
        } as never
        : undefined,
  });
  return new KubeClient({
    server: real.client.server,
    transport: dry.transport,
    clock: platform.clock,
    sleep: platform.sleep,
  });
}

/**
 * Resolves the inputs, the UpgradeConfiguration and the cluster into an `upgrade apply|node`
 * run.
 */
export async function prepareUpgrade(
  command: UpgradeWorkflowName,
  inv: Invocation,
  deps: UpgradeDeps,
): Promise<WorkflowRun<UpgradeData>> {
  const { inputs, out, rootfs } = inv;
  const upgrade = await loadUpgradeConfig(inputs.config);
  for (const w of upgrade.warnings) out.warn(w);
  const section = command === "apply" ? upgrade.apply : upgrade.node;
  let target: string | undefined;
  if (command === "apply") {
    target = inv.argument ?? upgrade.apply.kubernetesVersion;
    if (!target) {
      throw new UsageError(
        "missing one or more required arguments. Required arguments: [version]",
        { field: "version", hint: "kubeadm upgrade apply <version>, e.g. v1.37.2" },
      );
    }
    // A malformed or too old version fails before any file or API call (the preflight phase
    // normalizes it again, printing a label's warnings, and holds it against the cluster).
    const { normalizeUpgradeTarget } = await import("../core/upgrade/target.ts");
    normalizeUpgradeTarget(target);
  }
  const { resolveIgnoreSet } = await import("../core/preflight/ignore.ts");
  const { UPGRADE_CHECK_NAMES } = await import("../core/upgrade/checks.ts");
  const { upgradeSettings } = await import("../core/phases/upgrade/data.ts");
  const settings = upgradeSettings(command, upgrade, inputs);
  resolveIgnoreSet(settings.ignorePreflightErrors, [], UPGRADE_CHECK_NAMES);
  const { dryRun } = settings;
  const controlPlane = command === "apply" || await isControlPlaneNode(rootfs);
  const files = await nodeFiles(rootfs);
  const node = await nodeHost(rootfs, deps);
  if (controlPlane) {
    // Before the API server is asked anything: with a single control plane it answers only
    // once a manifest an interrupted swap left out (etcd's) is back.
    const { restoreInterruptedSwap } = await import("../core/upgrade/static_pods.ts");
    await restoreInterruptedSwap(files, node, KUBERNETES_DIR, MANIFESTS_DIR, out, dryRun);
  }
  const { path, refsRoot, nodePath } = kubeconfigLocation(
    inputs.kubeconfig,
    rootfs,
    controlPlane ? KubeconfigFile.admin : KubeconfigFile.kubelet,
  );
  const real = await connect({ path, refsRoot }, { timeoutMs: 30_000 });
  try {
    let client = real.client;
    if (dryRun) {
      out.info(`[dryrun] Creating a real client from ${JSON.stringify(nodePath)}`);
      client = await dryRunClient(real, out);
    }
    const { fetchUpgradeConfig } = await import("../core/upgrade/cluster_config.ts");
    const { parseDuration } = await import("../core/text/duration.ts");
    const { facts, host } = hostFacts(rootfs);
    if (command === "apply") {
      out.log?.(1, LOG_SOURCE, "[upgrade] retrieving configuration from cluster");
    }
    let cfg: ResolvedConfig;
    try {
      cfg = await fetchUpgradeConfig({
        // In --dry-run through the printing client: its reads are shown, as upstream's.
        client,
        files,
        out,
        logPrefix: "upgrade",
        kubeletConf: `${KUBERNETES_DIR}/${KubeconfigFile.kubelet}`,
        controlPlane,
        host,
        random: platform.random,
        apiCallTimeoutMs: parseDuration(upgrade.timeouts.kubernetesAPICall),
      });
    } catch (e) {
      throw new KubeadmError(
        `${
          command === "apply" ? "[upgrade] FATAL" : "unable to fetch the kubeadm-config ConfigMap"
        }: ${errorMessage(e)}`,
        { cause: e, hint: e instanceof KubeadmError ? e.hint : undefined },
      );
    }
    cfg.init.timeouts = { ...upgrade.timeouts };
    if (target) cfg.cluster.kubernetesVersion = target;
    if (settings.printConfig) {
      const { printConfigurationUsed } = await import("../core/config/print.ts");
      printConfigurationUsed(cfg.cluster, out);
    }
    const overlay = await planningOverlay();
    const { kubeVersionGetter, offlineVersionGetter } = await import(
      "../core/upgrade/version_getter.ts"
    );
    const serverVersion = dryRun ? (await client.version()).gitVersion : undefined;
    const ask = deps.confirm ?? readAnswer;
    const data: UpgradeData = {
      command,
      cfg,
      upgrade,
      settings,
      client,
      versions: offlineVersionGetter(
        kubeVersionGetter(client, { kubeadmVersion: KUBERNETES_VERSION, serverVersion }),
        cfg.cluster.kubernetesVersion,
      ),
      isControlPlaneNode: controlPlane,
      files: dryRun ? overlay(files) : files,
      planningOverlay: overlay,
      out,
      ...platform,
      node,
      etcdClient: (endpoints, tls) => node.etcdClient(endpoints, tls),
      kubernetesDir: KUBERNETES_DIR,
      manifestDir: MANIFESTS_DIR,
      host: facts,
      kubeadmVersion: KUBERNETES_VERSION,
      confirm: async (q) => /^(y|yes)$/i.test((await ask(q))?.trim() ?? ""),
    };
    return {
      data,
      skipPhases: section.skipPhases,
      close: () => real.close(),
      finish: () => {
        if (inv.only) return Promise.resolve();
        if (dryRun) {
          out.info("[upgrade/successful] Finished dryrunning successfully!");
        } else if (command === "apply") {
          out.info("");
          out.info(
            `[upgrade] SUCCESS! A control plane node of your cluster was upgraded to ${
              JSON.stringify(cfg.cluster.kubernetesVersion)
            }.`,
          );
          out.info("");
          out.info(
            "[upgrade] Now please proceed with upgrading the rest of the nodes by following the right order.",
          );
        }
        return Promise.resolve();
      },
    };
  } catch (e) {
    real.close();
    throw e;
  }
}

/** The UpgradeConfiguration's `plan` section with the command line's flags and `[version]`. */
function planSettings(
  values: FlagValues,
  argument: string | undefined,
  plan: UpgradePlanSettings,
): UpgradePlanSettings {
  return {
    kubernetesVersion: argument ?? plan.kubernetesVersion,
    allowExperimentalUpgrades: values["allow-experimental-upgrades"] ??
      plan.allowExperimentalUpgrades,
    allowRCUpgrades: values["allow-release-candidate-upgrades"] ?? plan.allowRCUpgrades,
    etcdUpgrade: values["etcd-upgrade"] ?? plan.etcdUpgrade,
    ignorePreflightErrors: [
      ...plan.ignorePreflightErrors,
      ...values["ignore-preflight-errors"] ?? [],
    ],
    printConfig: values["print-config"] ?? plan.printConfig,
  };
}

/** `kubeadm upgrade plan [version]`: the core's plan on this node and its cluster, printed. */
export async function runUpgradePlan(
  values: FlagValues,
  setFlags: readonly string[],
  argument: string | undefined,
  stdoutPrinter: Printer,
): Promise<void> {
  const rootfs = values.rootfs ?? "/";
  const output = await resolveObjectOutput(values);
  validateMixedArguments(setFlags);
  // Structured output keeps stdout for the object (upstream's printer drops the lines).
  const out: Printer = output.kind === "text"
    ? stdoutPrinter
    : { info: () => {}, warn: stdoutPrinter.warn, log: stdoutPrinter.log };
  out.log?.(1, LOG_SOURCE, "[upgrade/plan] verifying health of cluster");
  out.log?.(1, LOG_SOURCE, "[upgrade/plan] retrieving configuration from cluster");
  let upgrade: ResolvedUpgradeConfig;
  try {
    upgrade = await loadUpgradeConfig(values.config);
  } catch (e) {
    throw new KubeadmError(`[upgrade/upgrade config] FATAL: ${errorMessage(e)}`, {
      cause: e,
      field: e instanceof KubeadmError ? e.field : undefined,
    });
  }
  const settings = planSettings(values, argument, upgrade.plan);
  const { path, refsRoot } = kubeconfigLocation(values.kubeconfig, rootfs, KubeconfigFile.admin);
  const real = await connect({ path, refsRoot }, { timeoutMs: 30_000 });
  try {
    const { client } = real;
    const { upgradePlanChecks } = await import("../core/upgrade/checks.ts");
    const { planClusterUpgrade, upgradePlanText } = await import("../core/upgrade/plan.ts");
    const checks = upgradePlanChecks({
      machine: (await nodeHost(rootfs, {})).machine,
      client,
      ignorePreflightErrors: settings.ignorePreflightErrors,
      out,
    });
    const plan = await planClusterUpgrade({
      client,
      files: await nodeFiles(rootfs),
      upgrade: { plan: settings, timeouts: upgrade.timeouts },
      host: hostFacts(rootfs).host,
      random: platform.random,
      out,
      checks,
    });
    if (!plan) return;
    if (output.kind === "text") writeStdout(upgradePlanText(plan));
    else await writeObject(output, plan);
  } finally {
    real.close();
  }
}

/** `kubeadm upgrade diff [version]`. */
export async function runUpgradeDiff(
  flags: FlagValues,
  setFlags: readonly string[],
  argument: string | undefined,
  printer: Printer,
): Promise<void> {
  const rootfs = flags.rootfs ?? "/";
  const files = await nodeFiles(rootfs);
  for (const c of ["kube-apiserver", "kube-controller-manager", "kube-scheduler"]) {
    const p = `${MANIFESTS_DIR}/${c}.yaml`;
    if (!(await files.exists(p))) {
      throw new KubeadmError(
        `the manifest file ${
          JSON.stringify(p)
        } does not exist: stat ${p}: no such file or directory`,
      );
    }
  }
  // As upstream: the manifests are checked before the flags mixed with --config.
  validateMixedArguments(setFlags);
  const upgrade = await loadUpgradeConfig(flags.config);
  const { path, refsRoot } = kubeconfigLocation(flags.kubeconfig, rootfs, KubeconfigFile.admin);
  const real = await connect({ path, refsRoot }, { timeoutMs: 30_000 });
  try {
    const { fetchUpgradeConfig } = await import("../core/upgrade/cluster_config.ts");
    const { parseDuration } = await import("../core/text/duration.ts");
    const { parseSemVer } = await import("../core/config/version.ts");
    const { manifestDiffs } = await import("../core/upgrade/diff.ts");
    const { facts, host } = hostFacts(rootfs);
    const cfg = await fetchUpgradeConfig({
      client: real.client,
      files,
      out: printer,
      logPrefix: "upgrade/diff",
      componentConfigs: false,
      kubeletConf: `${KUBERNETES_DIR}/${KubeconfigFile.kubelet}`,
      controlPlane: await isControlPlaneNode(rootfs),
      host,
      random: platform.random,
      apiCallTimeoutMs: parseDuration(upgrade.timeouts.kubernetesAPICall),
    });
    const version = argument ?? upgrade.diff.kubernetesVersion ?? cfg.cluster.kubernetesVersion;
    if (!parseSemVer(version)) {
      throw new KubeadmError(`could not parse ${JSON.stringify(version)} as version`, {
        field: "version",
        value: version,
      });
    }
    cfg.cluster.kubernetesVersion = version;
    const diff = await manifestDiffs({
      cfg,
      files,
      crypto: platform.crypto,
      manifestDir: MANIFESTS_DIR,
      existingDirs: facts.existingDirs,
      context: flags["context-lines"] ?? upgrade.diff.contextLines,
    });
    writeStdout(diff);
  } finally {
    real.close();
  }
}
