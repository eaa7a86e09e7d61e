/**
 * The hidden `kubeconfig` phase of `upgrade apply` and `upgrade node` (upstream
 * `cmd/phases/upgrade/{apply,node}/kubeconfig.go`): a control-plane node's `kubelet.conf` is
 * pointed at its own API server when it still points at the control-plane endpoint, and the
 * kubelet restarted.
 *
 * @module
 */
import { errorMessage, KubeadmError } from "../../errors.ts";
import { KubeconfigFile } from "../../constants.ts";
import { kubeletControl } from "../../kubelet/service.ts";
import { updateKubeletKubeconfigServer } from "../../upgrade/post_upgrade.ts";
import { BASE_INPUTS, type UpgradeData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** The hidden `kubeconfig` phase. */
export async function runKubeconfig(data: UpgradeData): Promise<void> {
  if (!data.isControlPlaneNode) {
    data.out.info("[upgrade/kubeconfig] Skipping phase. Not a control plane node.");
    return;
  }
  const path = `${data.kubernetesDir}/${KubeconfigFile.kubelet}`;
  try {
    const change = await updateKubeletKubeconfigServer({
      files: data.files,
      path,
      controlPlaneEndpoint: data.cfg.cluster.controlPlaneEndpoint,
      localAPIEndpoint: data.cfg.init.localAPIEndpoint,
      dryRun: data.settings.dryRun,
      log: data.out.log,
    });
    if (change.changed && data.settings.dryRun) {
      data.out.info(
        `[dryrun] Would change the Server URL from ${JSON.stringify(change.from)} to ${
          JSON.stringify(change.to)
        } in ${path} and try to restart kubelet`,
      );
    } else if (change.changed) {
      await kubeletControl(data.node, data.out).restart();
    }
  } catch (e) {
    throw new KubeadmError(`failed to update kubelet local mode: ${errorMessage(e)}`, { cause: e });
  }
  data.out.info(
    "[upgrade/kubeconfig] The kubeconfig files for this node were successfully upgraded!",
  );
}

/** The hidden `kubeconfig` phase of `upgrade apply` and `upgrade node` (no command). */
export const kubeconfigPhase: Phase<UpgradeData> = {
  name: "kubeconfig",
  short: "Upgrade kubeconfig files for this node",
  hidden: true,
  run: runKubeconfig,
  inputs: BASE_INPUTS,
};
