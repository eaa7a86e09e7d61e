/**
 * The `post-upgrade` phase of `upgrade apply` and `upgrade node` (upstream
 * `cmd/phases/upgrade/postupgrade.go`): the release's post-upgrade tasks; for v1.37 removing
 * the kubelet flags it no longer wants from `kubeadm-flags.env` (there are none).
 *
 * @module
 */
import { removeKubeletFlags, UNWANTED_KUBELET_FLAGS } from "../../upgrade/post_upgrade.ts";
import { BASE_INPUTS, type UpgradeData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** `post-upgrade`. */
export async function runPostUpgrade(data: UpgradeData): Promise<void> {
  await removeKubeletFlags({
    files: data.files,
    node: data.node,
    out: data.out,
    kubernetesDir: data.kubernetesDir,
    unwanted: UNWANTED_KUBELET_FLAGS,
    dryRun: data.settings.dryRun,
    random: data.random,
  });
}

/** `upgrade apply|node phase post-upgrade`. */
export const postUpgradePhase: Phase<UpgradeData> = {
  name: "post-upgrade",
  short: "Run post upgrade tasks",
  run: runPostUpgrade,
  inputs: BASE_INPUTS,
};
