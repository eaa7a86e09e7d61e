/**
 * The `kubeadm join` workflow of the command line: the phases of `./phases.ts`, their modules
 * loaded as they run, and kubeadm's preflight checks of the machine as the preflight phase's work.
 *
 * @module
 */
import type { Workflow } from "../../workflow/phase.ts";
import type { JoinData } from "./data.ts";
import { type JoinPhaseModules, joinWorkflowWith } from "./phases.ts";

const preflight = () => import("./preflight.ts");

/** Each phase module loaded when its phase first runs. */
const LAZY_MODULES: JoinPhaseModules = {
  prepare: () => import("./control_plane_prepare.ts"),
  etcd: () => import("./etcd.ts"),
  kubelet: () => import("./kubelet_start.ts"),
  mark: () => import("./mark_control_plane.ts"),
  wait: () => import("./wait_control_plane.ts"),
};

/** Builds the join workflow. */
export function joinWorkflow(): Workflow<JoinData> {
  return joinWorkflowWith(
    LAZY_MODULES,
    async (d) => (await preflight()).runJoinPreflightPhase(d),
  );
}
