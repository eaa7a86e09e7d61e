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
import type { UpgradeData } from "./data.ts";

/** The hidden `kubeconfig` phase. */
export async function runKubeconfig(d: UpgradeData): Promise<void> {
  if (!d.isControlPlaneNode) {
    d.out.info("[upgrade/kubeconfig] Skipping phase. Not a control plane node.");
    return;
  }
  const path = `${d.kubernetesDir}/${KubeconfigFile.kubelet}`;
  try {
    const change = await updateKubeletKubeconfigServer({
      files: d.files,
      path,
      controlPlaneEndpoint: d.cfg.cluster.controlPlaneEndpoint,
      localAPIEndpoint: d.cfg.init.localAPIEndpoint,
      dryRun: d.settings.dryRun,
      log: d.out.log,
    });
    if (change.changed && d.settings.dryRun) {
      d.out.info(
        `[dryrun] Would change the Server URL from ${JSON.stringify(change.from)} to ${
          JSON.stringify(change.to)
        } in ${path} and try to restart kubelet`,
      );
    } else if (change.changed) {
      await kubeletControl(d.node, d.out).restart();
    }
  } catch (e) {
    throw new KubeadmError(`failed to update kubelet local mode: ${errorMessage(e)}`, { cause: e });
  }
  d.out.info("[upgrade/kubeconfig] The kubeconfig files for this node were successfully upgraded!");
}
