/**
 * The `post-upgrade` phase of `upgrade apply` and `upgrade node` (upstream
 * `cmd/phases/upgrade/postupgrade.go`): the release's post-upgrade tasks; for v1.37 removing
 * the kubelet flags it no longer wants from `kubeadm-flags.env` (there are none).
 *
 * @module
 */
import { removeKubeletFlags, UNWANTED_KUBELET_FLAGS } from "../../upgrade/post_upgrade.ts";
import type { UpgradeData } from "./data.ts";

/** `post-upgrade`. */
export async function runPostUpgrade(d: UpgradeData): Promise<void> {
  await removeKubeletFlags({
    files: d.files,
    node: d.node,
    out: d.out,
    kubernetesDir: d.kubernetesDir,
    unwanted: UNWANTED_KUBELET_FLAGS,
    dryRun: d.settings.dryRun,
    random: d.random,
  });
}
