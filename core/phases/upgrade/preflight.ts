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
import type { UpgradeData } from "./data.ts";

/** This module's name in verbose log lines. */
const LOG_SOURCE = "preflight.ts";

function preflightRun(d: UpgradeData, command: string): PreflightRun {
  return new PreflightRun(d.node.machine, {
    command,
    ignore: resolveIgnoreSet(d.settings.ignorePreflightErrors, [], UPGRADE_CHECK_NAMES),
    out: d.out,
  });
}

/** `upgrade apply phase preflight`. */
export async function runApplyPreflight(d: UpgradeData): Promise<void> {
  d.out.info("[upgrade/preflight] Running preflight checks");
  const run = preflightRun(d, "upgrade apply");
  await run.run(rootChecks());
  await run.run(upgradeChecks(d.cfg.init.nodeRegistration.criSocket));
  const cluster = d.cfg.cluster;
  await run.run(coreDNSMigrationChecks({ client: d.client, targetVersion: COREDNS_VERSION }));
  d.out.log?.(1, LOG_SOURCE, "[upgrade/preflight] Verifying the cluster health");
  d.out.info("[upgrade] Running cluster health checks");
  await run.run(clusterHealthChecks({
    client: d.client,
    files: d.node.machine.files,
    manifestDir: MANIFESTS_DIR,
    pauseImage: pauseImage(cluster),
    dryRun: d.settings.dryRun,
    out: d.out,
  }));
  for (const notice of storedFeatureGateNotices(cluster.featureGates ?? {})) {
    d.out.info(`[upgrade/preflight] ${notice}`);
  }
  d.out.log?.(1, LOG_SOURCE, "[upgrade/preflight] Validating requested and actual version");
  const { version: target, warnings } = normalizeUpgradeTarget(cluster.kubernetesVersion);
  for (const w of warnings) d.out.warn(w);
  cluster.kubernetesVersion = target;
  d.out.info(
    `[upgrade/preflight] You have chosen to upgrade the cluster version to ${
      JSON.stringify(target)
    }`,
  );
  const verdict = policyVerdict(
    await enforceVersionPolicies(d.versions, target, {
      minimumControlPlane: MINIMUM_UPGRADE_TARGET,
      allowExperimental: d.settings.allowExperimentalUpgrades,
      allowRC: d.settings.allowRCUpgrades,
    }, d.out),
    d.settings.force,
  );
  if (verdict.error) {
    throw new KubeadmError(verdict.error, {
      field: "version",
      value: target,
      hint: "pick a version the skew policy allows (kubeadm upgrade plan lists them)",
    });
  }
  if (verdict.forced) d.out.info(verdict.forced);
  if (!d.settings.nonInteractive) {
    if (!d.confirm) {
      throw new KubeadmError("won't proceed; the user didn't answer (Y|n) in order to continue", {
        hint: "pass --yes (or -y) to upgrade without a confirmation",
      });
    }
    if (!(await d.confirm("[upgrade] Are you sure you want to proceed? [y/N]: "))) {
      throw new KubeadmError("won't proceed; the user didn't answer (Y|n) in order to continue");
    }
  }
  await pullUpgradeImages(d, run, "[dryrun]");
}

async function pullUpgradeImages(d: UpgradeData, run: PreflightRun, dryRunPrefix: string) {
  if (d.settings.dryRun) {
    d.out.info(
      `${dryRunPrefix} Would pull the required images (like 'kubeadm config images pull')`,
    );
    return;
  }
  d.out.info("[upgrade/preflight] Pulling images required for setting up a Kubernetes cluster");
  d.out.info(
    "[upgrade/preflight] This might take a minute or two, depending on the speed of your internet connection",
  );
  d.out.info(
    "[upgrade/preflight] You can also perform this action beforehand using 'kubeadm config images pull'",
  );
  const cfg = structuredClone(d.cfg);
  cfg.init.nodeRegistration.imagePullPolicy = d.settings.imagePullPolicy as never;
  cfg.init.nodeRegistration.imagePullSerial = d.settings.imagePullSerial;
  await run.run(imagePullChecks(cfg, d.out.log));
}

/** `upgrade node phase preflight`. */
export async function runNodePreflight(d: UpgradeData): Promise<void> {
  d.out.info("[upgrade/preflight] Running pre-flight checks");
  const run = preflightRun(d, "upgrade node");
  await run.run(rootChecks());
  await run.run(upgradeChecks(d.cfg.init.nodeRegistration.criSocket));
  if (!d.isControlPlaneNode) {
    d.out.info("[upgrade/preflight] Skipping prepull. Not a control plane node.");
    return;
  }
  await pullUpgradeImages(d, run, "[upgrade/preflight]");
}
