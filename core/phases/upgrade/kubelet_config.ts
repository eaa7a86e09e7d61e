/**
 * The `kubelet-config` phase of `upgrade apply` and `upgrade node` (upstream
 * `cmd/phases/upgrade/kubeletconfig.go`): this node's kubelet files rewritten from the
 * cluster's KubeletConfiguration after a backup (`upgrade/post_upgrade.ts`); in `--dry-run`
 * they are printed.
 *
 * @module
 */
import { writeKubeletConfigFiles } from "../../upgrade/post_upgrade.ts";
import { BASE_INPUTS, type UpgradeData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** `kubelet-config`. */
export async function runKubeletConfig(data: UpgradeData): Promise<void> {
  await writeKubeletConfigFiles({
    files: data.files,
    node: data.node,
    out: data.out,
    kubelet: data.cfg.kubelet,
    criSocket: data.cfg.init.nodeRegistration.criSocket,
    patchesDir: data.settings.patchesDir,
    kubernetesDir: data.kubernetesDir,
    dryRun: data.settings.dryRun,
    now: data.clock.now(),
  });
  data.out.info(
    "[upgrade/kubelet-config] The kubelet configuration for this node was successfully upgraded!",
  );
}

/** `upgrade apply|node phase kubelet-config`. */
export const kubeletConfigPhase: Phase<UpgradeData> = {
  name: "kubelet-config",
  short: "Upgrade the kubelet configuration for this node",
  long:
    "Upgrade the kubelet configuration for this node by downloading it from the kubelet-config ConfigMap stored in the cluster",
  run: runKubeletConfig,
  inputs: [...BASE_INPUTS, "patchesDir"],
};
