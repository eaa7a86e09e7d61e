/**
 * The `kubelet-config` phase of `upgrade apply` and `upgrade node` (upstream
 * `cmd/phases/upgrade/kubeletconfig.go`): this node's kubelet files rewritten from the
 * cluster's KubeletConfiguration after a backup (`upgrade/post_upgrade.ts`); in `--dry-run`
 * they are printed.
 *
 * @module
 */
import { writeKubeletConfigFiles } from "../../upgrade/post_upgrade.ts";
import type { UpgradeData } from "./data.ts";

/** `kubelet-config`. */
export async function runKubeletConfig(d: UpgradeData): Promise<void> {
  await writeKubeletConfigFiles({
    files: d.files,
    node: d.node,
    out: d.out,
    kubelet: d.cfg.kubelet,
    criSocket: d.cfg.init.nodeRegistration.criSocket,
    patchesDir: d.settings.patchesDir,
    kubernetesDir: d.kubernetesDir,
    dryRun: d.settings.dryRun,
    now: d.clock.now(),
  });
  d.out.info(
    "[upgrade/kubelet-config] The kubelet configuration for this node was successfully upgraded!",
  );
}
