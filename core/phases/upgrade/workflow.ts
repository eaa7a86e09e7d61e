/**
 * The `kubeadm upgrade apply` and `kubeadm upgrade node` workflows: upstream v1.37's phases,
 * in upstream's order, each declared whole in a module of this folder (the two share most).
 * Both run a hidden `kubeconfig` phase (no command, still skippable by name).
 *
 * @module
 */
import type { Workflow } from "../../workflow/phase.ts";
import type { UpgradeData } from "./data.ts";
import { applyPreflightPhase, nodePreflightPhase } from "./preflight.ts";
import { applyControlPlanePhase, nodeControlPlanePhase } from "./control_plane.ts";
import { uploadConfigPhase } from "./upload_config.ts";
import { kubeconfigPhase } from "./kubeconfig.ts";
import { kubeletConfigPhase } from "./kubelet_config.ts";
import { bootstrapTokenPhase } from "./bootstrap_token.ts";
import { addonPhase } from "./addon.ts";
import { postUpgradePhase } from "./post_upgrade.ts";

/** `kubeadm upgrade apply`'s workflow. */
export function upgradeApplyWorkflow(): Workflow<UpgradeData> {
  return {
    name: "apply",
    phases: [
      applyPreflightPhase,
      applyControlPlanePhase,
      uploadConfigPhase,
      kubeconfigPhase,
      kubeletConfigPhase,
      bootstrapTokenPhase,
      addonPhase,
      postUpgradePhase,
    ],
  };
}

/** `kubeadm upgrade node`'s workflow. */
export function upgradeNodeWorkflow(): Workflow<UpgradeData> {
  return {
    name: "node",
    phases: [
      nodePreflightPhase,
      nodeControlPlanePhase,
      kubeconfigPhase,
      kubeletConfigPhase,
      addonPhase,
      postUpgradePhase,
    ],
  };
}
