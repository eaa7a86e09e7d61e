/**
 * The `kubeadm reset` workflow: `preflight` (alias `pre-flight`), `remove-etcd-member`,
 * `cleanup-node` (alias `cleanupnode`), and the closing notes printed after a full run.
 *
 * @module
 */
import { type RunOptions, runWorkflow } from "../../workflow/runner.ts";
import type { Workflow } from "../../workflow/phase.ts";
import type { ResetData } from "./data.ts";

// Phase implementations load when a phase runs, so building the command tree stays cheap.
const preflight = () => import("./preflight.ts");
const removeEtcdMember = () => import("./remove_etcd_member.ts");
const cleanupNode = () => import("./cleanup_node.ts");

/** What upstream prints after a full reset: what reset does not clean up. */
export const RESET_CLEANUP_NOTES = [
  "",
  "The reset process does not perform cleanup of CNI plugin configuration,",
  "network filtering rules and kubeconfig files.",
  "",
  "For information on how to perform this cleanup manually, please see:",
  "    https://k8s.io/docs/reference/setup-tools/kubeadm/kubeadm-reset/",
  "",
];

/** Builds the reset workflow. */
export function resetWorkflow(): Workflow<ResetData> {
  return {
    name: "reset",
    phases: [
      {
        name: "preflight",
        aliases: ["pre-flight"],
        short: "Run reset pre-flight checks",
        long: "Run pre-flight checks for kubeadm reset.",
        run: async (d) => (await preflight()).runResetPreflight(d),
        flags: ["ignore-preflight-errors", "force", "dry-run"],
      },
      {
        name: "remove-etcd-member",
        short: "Remove a local etcd member.",
        long: "Remove a local etcd member for a control plane node.",
        run: async (d) => (await removeEtcdMember()).runRemoveEtcdMember(d),
        flags: ["kubeconfig", "dry-run"],
      },
      {
        name: "cleanup-node",
        aliases: ["cleanupnode"],
        short: "Run cleanup node.",
        run: async (d) => (await cleanupNode()).runCleanupNode(d),
        flags: ["cert-dir", "cri-socket", "cleanup-tmp-dir", "dry-run"],
      },
    ],
  };
}

/**
 * Runs reset: the whole workflow (then the closing notes), or one phase with `opts.only`
 * (no notes, as upstream's `reset phase <name>`).
 */
export async function runReset(d: ResetData, opts: RunOptions = {}): Promise<void> {
  await runWorkflow(resetWorkflow(), d, opts);
  if (opts.only === undefined) { for (const line of RESET_CLEANUP_NOTES) d.out.info(line); }
}
