/**
 * The `kubeadm init` workflow: upstream's phases, in upstream's order, each declared whole in
 * its own module of this folder (name, help, inputs, sub-phases, work).
 *
 * The phases from `wait-control-plane` on talk to the cluster and the node through the ports
 * of {@link InitData} (`cluster`, `node`). The command line lists, validates and offers them
 * from their outline (`cli/phase_outlines.ts`, generated from this list) and loads a phase's
 * module when it runs; a plan imports them all up front (`initWorkflowWith`).
 *
 * @module
 */
import type { Phase, Workflow } from "../../workflow/phase.ts";
import type { InitData } from "./data.ts";
import { preflightPhase } from "./preflight.ts";
import { certsPhase } from "./certs.ts";
import { kubeconfigPhase } from "./kubeconfig.ts";
import { etcdPhase } from "./etcd.ts";
import { controlPlanePhase } from "./control_plane.ts";
import { kubeletStartPhase } from "./kubelet_start.ts";
import { waitControlPlanePhase } from "./wait_control_plane.ts";
import { uploadConfigPhase } from "./upload_config.ts";
import { uploadCertsPhase } from "./upload_certs.ts";
import { markControlPlanePhase } from "./mark_control_plane.ts";
import { bootstrapTokenPhase } from "./bootstrap_token.ts";
import { kubeletFinalizePhase } from "./kubelet_finalize.ts";
import { addonPhase } from "./addons.ts";
import { showJoinCommandPhase } from "./show_join_command.ts";
import { certsAutoRenewalPhase } from "./certs_auto_renewal.ts";

/** The init workflow with `preflight` as its preflight phase (a plan's: `preflightPhaseWith`). */
export function initWorkflowWith(preflight: Phase<InitData>): Workflow<InitData> {
  return {
    name: "init",
    phases: [
      preflight,
      certsPhase,
      kubeconfigPhase,
      etcdPhase,
      controlPlanePhase,
      kubeletStartPhase,
      waitControlPlanePhase,
      uploadConfigPhase,
      uploadCertsPhase,
      markControlPlanePhase,
      bootstrapTokenPhase,
      kubeletFinalizePhase,
      addonPhase,
      certsAutoRenewalPhase,
      showJoinCommandPhase,
    ],
  };
}

/** The init workflow, kubeadm's checks of the machine as its preflight phase. */
export function initWorkflow(): Workflow<InitData> {
  return initWorkflowWith(preflightPhase);
}
