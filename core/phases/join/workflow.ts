/**
 * The `kubeadm join` workflow: upstream v1.37's phases, in upstream's order, each declared
 * whole in a module of this folder (name, help, inputs, sub-phases, work).
 *
 * The etcd member join runs in `etcd-join` right after `kubelet-start`, and the wait for the
 * kubelet's TLS bootstrap in `kubelet-wait-bootstrap` (both listed and always run since v1.36;
 * `control-plane-join etcd` is gone). Only `check-etcd` stays hidden. The command line lists,
 * validates and offers the phases from their outline (`cli/phase_outlines.ts`, generated from
 * this list) and loads a phase's module when it runs; a plan imports them all up front.
 *
 * @module
 */
import type { Workflow } from "../../workflow/phase.ts";
import type { JoinData } from "./data.ts";
import { preflightPhase } from "./preflight.ts";
import { controlPlanePreparePhase } from "./control_plane_prepare.ts";
import { checkEtcdPhase, etcdJoinPhase } from "./etcd.ts";
import { kubeletStartPhase, kubeletWaitBootstrapPhase } from "./kubelet_start.ts";
import { controlPlaneJoinPhase } from "./mark_control_plane.ts";
import { waitControlPlanePhase } from "./wait_control_plane.ts";
import { certsAutoRenewalPhase } from "./certs_auto_renewal.ts";

/** The join workflow. */
export function joinWorkflow(): Workflow<JoinData> {
  return {
    name: "join",
    phases: [
      preflightPhase,
      controlPlanePreparePhase,
      checkEtcdPhase,
      kubeletStartPhase,
      etcdJoinPhase,
      kubeletWaitBootstrapPhase,
      controlPlaneJoinPhase,
      waitControlPlanePhase,
      certsAutoRenewalPhase,
    ],
  };
}
