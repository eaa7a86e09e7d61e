/**
 * The preflight checks of the upgrade commands: every name `--ignore-preflight-errors` accepts
 * for them, and `upgrade plan`'s two rounds of checks (the root and CoreDNS migration checks,
 * then the cluster health checks) on this machine. The plan itself (`./plan.ts`) takes the
 * rounds as a port, so that a plan made without a machine (the library's) carries no checks.
 *
 * @module
 */
import { MANIFESTS_DIR } from "../constants.ts";
import type { Machine } from "../ports/machine.ts";
import type { Printer } from "../ports/printer.ts";
import type { KubeClient } from "../kube/client.ts";
import { pauseImage } from "../manifests/images.ts";
import { KNOWN_CHECK_NAMES, rootChecks } from "../preflight/catalog.ts";
import { resolveIgnoreSet } from "../preflight/ignore.ts";
import { PreflightRun } from "../preflight/runner.ts";
import { COREDNS_VERSION } from "../versions.ts";
import { COREDNS_CHECK_NAMES, coreDNSMigrationChecks } from "./coredns_check.ts";
import { CLUSTER_HEALTH_CHECK_NAMES, clusterHealthChecks } from "./health.ts";
import type { UpgradePlanChecks } from "./plan.ts";

/** Every check name an upgrade accepts in `--ignore-preflight-errors`. */
export const UPGRADE_CHECK_NAMES: readonly string[] = [
  ...KNOWN_CHECK_NAMES,
  ...CLUSTER_HEALTH_CHECK_NAMES,
  ...COREDNS_CHECK_NAMES,
];

/** What {@link upgradePlanChecks} runs the checks with. */
export interface UpgradePlanChecksInput {
  /** The machine (and its files: the manifests `StaticPodManifest` looks for). */
  machine: Machine;
  client: KubeClient;
  /** `--ignore-preflight-errors` and `plan.ignorePreflightErrors` (validated here). */
  ignorePreflightErrors: readonly string[];
  out: Printer;
}

/** `upgrade plan`'s checks on this machine, their ignore list validated before any runs. */
export function upgradePlanChecks(input: UpgradePlanChecksInput): UpgradePlanChecks {
  const { machine, client, out } = input;
  const run = new PreflightRun(machine, {
    command: "upgrade plan",
    ignore: resolveIgnoreSet(input.ignorePreflightErrors, [], UPGRADE_CHECK_NAMES),
    out,
  });
  return {
    async node() {
      await run.run(rootChecks());
      await run.run(coreDNSMigrationChecks({ client, targetVersion: COREDNS_VERSION }));
    },
    cluster: (cfg) =>
      run.run(clusterHealthChecks({
        client,
        files: machine.files,
        manifestDir: MANIFESTS_DIR,
        pauseImage: pauseImage(cfg.cluster),
        dryRun: false,
        out,
      })),
  };
}
