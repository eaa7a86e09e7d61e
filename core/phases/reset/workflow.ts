/**
 * The `kubeadm reset` workflow: `preflight` (alias `pre-flight`), `remove-etcd-member`,
 * `cleanup-node` (alias `cleanupnode`), and the closing notes printed after a full run.
 *
 * @module
 */
import { type RunOptions, runWorkflow } from "../../workflow/runner.ts";
import type { Workflow } from "../../workflow/phase.ts";
import { RESET_CLEANUP_NOTES, type ResetData } from "./data.ts";
import { preflightPhase } from "./preflight.ts";
import { removeEtcdMemberPhase } from "./remove_etcd_member.ts";
import { cleanupNodePhase } from "./cleanup_node.ts";

/** The reset workflow. */
export function resetWorkflow(): Workflow<ResetData> {
  return {
    name: "reset",
    phases: [preflightPhase, removeEtcdMemberPhase, cleanupNodePhase],
  };
}

/**
 * Runs reset: the whole workflow (then the closing notes), or one phase with `opts.only`
 * (no notes, as upstream's `reset phase <name>`).
 */
export async function runReset(data: ResetData, opts: RunOptions = {}): Promise<void> {
  await runWorkflow(resetWorkflow(), data, opts);
  if (opts.only === undefined) { for (const line of RESET_CLEANUP_NOTES) data.out.info(line); }
}
