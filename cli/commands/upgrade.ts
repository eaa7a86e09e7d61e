/**
 * `kubeadm upgrade`: `apply [version]` and `node` (workflows with generated `phase …`
 * commands, built by `cli/workflow_command.ts` from their outlines, `cli/phase_outlines.ts`), `plan
 * [version]` and `diff [version]`, with upstream v1.37's flags.
 *
 * @module
 */
import type { Command } from "commander";
import type { UpgradeData } from "../../core/phases/upgrade/data.ts";
import { UPGRADE_APPLY_OUTLINE, UPGRADE_NODE_OUTLINE } from "../phase_outlines.ts";
import { addFlags, type FlagName, flagValues, setFlagNames } from "../flags.ts";
import { consolePrinter } from "../output.ts";
import { requireSubcommand } from "../usage.ts";
import { disableFlagsInUseLine } from "../help.ts";
import type { UpgradeDeps } from "../upgrade_runtime.ts";
import { registerWorkflowCommand, type WorkflowCommand } from "../workflow_command.ts";

/** `upgrade apply`'s own flags. */
const APPLY_FLAGS: readonly FlagName[] = [
  "allow-experimental-upgrades",
  "allow-release-candidate-upgrades",
  "certificate-renewal",
  "config",
  "dry-run",
  "etcd-upgrade",
  "force",
  "ignore-preflight-errors",
  "kubeconfig",
  "patches",
  "print-config",
  "skip-phases",
  "yes",
];

/** `upgrade node`'s own flags. */
const NODE_FLAGS: readonly FlagName[] = [
  "certificate-renewal",
  "config",
  "dry-run",
  "etcd-upgrade",
  "ignore-preflight-errors",
  "kubeconfig",
  "patches",
  "skip-phases",
];

/** `upgrade plan`'s flags. */
const PLAN_FLAGS: readonly FlagName[] = [
  "allow-experimental-upgrades",
  "allow-missing-template-keys",
  "allow-release-candidate-upgrades",
  "config",
  "etcd-upgrade",
  "ignore-preflight-errors",
  "kubeconfig",
  "output",
  "print-config",
  "show-managed-fields",
];

/** `upgrade diff`'s flags. */
const DIFF_FLAGS: readonly FlagName[] = ["config", "context-lines", "kubeconfig"];

const PLAN_LONG =
  `Check which versions are available to upgrade to and validate whether your current cluster is upgradeable. This command can only run on the control plane nodes where the kubeconfig file "admin.conf" exists. To skip the internet check, pass in the optional [version] parameter.`;

/** `kubeadm upgrade apply`. */
function upgradeApplyCommand(deps: UpgradeDeps = {}): WorkflowCommand<UpgradeData> {
  return {
    name: "upgrade apply",
    use: "apply",
    summary: "Upgrade your Kubernetes cluster to the specified version",
    argument: "[version]",
    flags: APPLY_FLAGS,
    workflow: () => UPGRADE_APPLY_OUTLINE,
    prepare: async (invocation, common) =>
      (await import("../upgrade_runtime.ts")).prepareUpgrade("apply", invocation, {
        ...common,
        ...deps,
      }),
  };
}

/** `kubeadm upgrade node`. */
function upgradeNodeCommand(deps: UpgradeDeps = {}): WorkflowCommand<UpgradeData> {
  return {
    name: "upgrade node",
    use: "node",
    summary: "Upgrade commands for a node in the cluster",
    flags: NODE_FLAGS,
    workflow: () => UPGRADE_NODE_OUTLINE,
    prepare: async (invocation, common) =>
      (await import("../upgrade_runtime.ts")).prepareUpgrade("node", invocation, {
        ...common,
        ...deps,
      }),
  };
}

/** Registers `upgrade` and its sub-commands. */
export function registerUpgrade(program: Command, deps: UpgradeDeps = {}): void {
  const upgrade = requireSubcommand(
    program.command("upgrade")
      .description("Upgrade your cluster smoothly to a newer version with this command"),
  );
  disableFlagsInUseLine(registerWorkflowCommand(upgrade, upgradeApplyCommand(deps), deps));
  addFlags(
    upgrade.command("plan").summary(
      "Check which versions are available to upgrade to and validate whether your current cluster is upgradeable.",
    ).description(PLAN_LONG).argument("[version]"),
    PLAN_FLAGS,
    "upgrade plan",
  ).action(async (version: string | undefined, _opts: unknown, cmd: Command) => {
    const { runUpgradePlan } = await import("../upgrade_runtime.ts");
    await runUpgradePlan(flagValues(cmd), setFlagNames(cmd), version, deps.out ?? consolePrinter);
  });
  addFlags(
    upgrade.command("diff").description(
      "Show what differences would be applied to existing static pod manifests. See also: kubeadm upgrade apply --dry-run",
    ).argument("[version]"),
    DIFF_FLAGS,
    "upgrade diff",
  ).action(async (version: string | undefined, _opts: unknown, cmd: Command) => {
    const { runUpgradeDiff } = await import("../upgrade_runtime.ts");
    await runUpgradeDiff(flagValues(cmd), setFlagNames(cmd), version, deps.out ?? consolePrinter);
  });
  registerWorkflowCommand(upgrade, upgradeNodeCommand(deps), deps);
}
