/**
 * The `preflight` phase of `upgrade apply` and of `upgrade node` (upstream
 * `cmd/phases/upgrade/{apply,node}/preflight.go`).
 *
 * `apply`: the root check alone, the node checks (system verification for the kubelet's next
 * minor, the container runtime's version), the CoreDNS migration check, the cluster health
 * checks, notices about the cluster's feature gates, the target version normalized and held
 * against the skew policy (mandatory errors fail; the others fail unless `--force`), a
 * confirmation unless `--yes`/`--force`/`--dry-run`, then the image pull.
 * `node`: the root check, the node checks, and on a control-plane node the image pull.
 *
 * @module
 */
import { storedFeatureGateNotices } from "../../config/features.ts";
import { KubeadmError } from "../../errors.ts";
import { imagePullChecks, rootChecks, upgradeChecks } from "../../preflight/catalog.ts";
import { resolveIgnoreSet } from "../../preflight/ignore.ts";
import { PreflightRun } from "../../preflight/runner.ts";
import { pauseImage } from "../../manifests/images.ts";
import { MANIFESTS_DIR } from "../../constants.ts";
import { clusterHealthChecks } from "../../upgrade/health.ts";
import { coreDNSMigrationChecks } from "../../upgrade/coredns_check.ts";
import { UPGRADE_CHECK_NAMES } from "../../upgrade/checks.ts";
import { enforceVersionPolicies, policyVerdict } from "../../upgrade/policy.ts";
import { MINIMUM_UPGRADE_TARGET, normalizeUpgradeTarget } from "../../upgrade/target.ts";
import { COREDNS_VERSION } from "../../versions.ts";
import { BASE_INPUTS, type UpgradeData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** This module's name in verbose log lines. */
const LOG_SOURCE = "preflight.ts";

function preflightRun(data: UpgradeData, command: string): PreflightRun {
  return new PreflightRun(data.node.machine, {
    command,
    ignore: resolveIgnoreSet(data.settings.ignorePreflightErrors, [], UPGRADE_CHECK_NAMES),
    out: data.out,
  });
}

/** `upgrade apply phase preflight`. */
export async function runApplyPreflight(data: UpgradeData): Promise<void> {
  data.out.info("[upgrade/preflight] Running preflight checks");
  const run = preflightRun(data, "upgrade apply");
  await run.run(rootChecks());
  await run.run(upgradeChecks(data.cfg.init.nodeRegistration.criSocket));
  const cluster = data.cfg.cluster;
  await run.run(coreDNSMigrationChecks({ client: data.client, targetVersion: COREDNS_VERSION }));
  data.out.log?.(1, LOG_SOURCE, "[upgrade/preflight] Verifying the cluster health");
  data.out.info("[upgrade] Running cluster health checks");
  await run.run(clusterHealthChecks({
    client: data.client,
    files: data.node.machine.files,
    manifestDir: MANIFESTS_DIR,
    pauseImage: pauseImage(cluster),
    dryRun: data.settings.dryRun,
    out: data.out,
  }));
  for (const notice of storedFeatureGateNotices(cluster.featureGates ?? {})) {
    data.out.info(`[upgrade/preflight] ${notice}`);
  }
  data.out.log?.(1, LOG_SOURCE, "[upgrade/preflight] Validating requested and actual version");
  const { version: target, warnings } = normalizeUpgradeTarget(cluster.kubernetesVersion);
  for (const w of warnings) data.out.warn(w);
  cluster.kubernetesVersion = target;
  data.out.info(
    `[upgrade/preflight] You have chosen to upgrade the cluster version to ${
      JSON.stringify(target)
    }`,
  );
  const verdict = policyVerdict(
    await enforceVersionPolicies(data.versions, target, {
      minimumControlPlane: MINIMUM_UPGRADE_TARGET,
      allowExperimental: data.settings.allowExperimentalUpgrades,
      allowRC: data.settings.allowRCUpgrades,
    }, data.out),
    data.settings.force,
  );
  if (verdict.error) {
    throw new KubeadmError(verdict.error, {
      field: "version",
      value: target,
      hint: "pick a version the skew policy allows (kubeadm upgrade plan lists them)",
    });
  }
  if (verdict.forced) data.out.info(verdict.forced);
  if (!data.settings.nonInteractive) {
    if (!data.confirm) {
      throw new KubeadmError("won't proceed; the user didn't answer (Y|n) in order to continue", {
        hint: "pass --yes (or -y) to upgrade without a confirmation",
      });
    }
    if (!(await data.confirm("[upgrade] Are you sure you want to proceed? [y/N]: "))) {
      throw new KubeadmError("won't proceed; the user didn't answer (Y|n) in order to continue");
    }
  }
  await pullUpgradeImages(data, run, "[dryrun]");
}

async function pullUpgradeImages(data: UpgradeData, run: PreflightRun, dryRunPrefix: string) {
  if (data.settings.dryRun) {
    data.out.info(
      `${dryRunPrefix} Would pull the required images (like 'kubeadm config images pull')`,
    );
    return;
  }
  data.out.info("[upgrade/preflight] Pulling images required for setting up a Kubernetes cluster");
  data.out.info(
    "[upgrade/preflight] This might take a minute or two, depending on the speed of your internet connection",
  );
  data.out.info(
    "[upgrade/preflight] You can also perform this action beforehand using 'kubeadm config images pull'",
  );
  const cfg = structuredClone(data.cfg);
  cfg.init.nodeRegistration.imagePullPolicy = data.settings.imagePullPolicy as never;
  cfg.init.nodeRegistration.imagePullSerial = data.settings.imagePullSerial;
  await run.run(imagePullChecks(cfg, data.out.log));
}

/** `upgrade node phase preflight`. */
export async function runNodePreflight(data: UpgradeData): Promise<void> {
  data.out.info("[upgrade/preflight] Running pre-flight checks");
  const run = preflightRun(data, "upgrade node");
  await run.run(rootChecks());
  await run.run(upgradeChecks(data.cfg.init.nodeRegistration.criSocket));
  if (!data.isControlPlaneNode) {
    data.out.info("[upgrade/preflight] Skipping prepull. Not a control plane node.");
    return;
  }
  await pullUpgradeImages(data, run, "[upgrade/preflight]");
}

/** `upgrade apply phase preflight`. */
export const applyPreflightPhase: Phase<UpgradeData> = {
  name: "preflight",
  short: "Run preflight checks before upgrade",
  run: runApplyPreflight,
  inputs: [
    ...BASE_INPUTS,
    "force",
    "ignorePreflightErrors",
    "allowExperimentalUpgrades",
    "allowRCUpgrades",
    "yes",
  ],
};

/** `upgrade node phase preflight`. */
export const nodePreflightPhase: Phase<UpgradeData> = {
  name: "preflight",
  short: "Run upgrade node pre-flight checks",
  long: "Run pre-flight checks for kubeadm upgrade node.",
  run: runNodePreflight,
  inputs: ["config", "ignorePreflightErrors"],
};
