/**
 * The `kubeadm join` workflow of the command line: the phases of `./phases.ts`, with kubeadm's
 * preflight checks of the machine as the preflight phase's work.
 *
 * @module
 */
import type { Workflow } from "../../workflow/phase.ts";
import type { JoinData } from "./data.ts";
import { joinWorkflowWith } from "./phases.ts";

const preflight = () => import("./preflight.ts");

/** Builds the join workflow. */
export function joinWorkflow(): Workflow<JoinData> {
  return joinWorkflowWith(async (d) => (await preflight()).runJoinPreflightPhase(d));
}
