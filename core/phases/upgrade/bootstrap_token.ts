/**
 * `upgrade apply phase bootstrap-token` (upstream `cmd/phases/upgrade/apply/bootstraptoken.go`):
 * the bootstrap-token and `cluster-info` RBAC rules of this kubeadm release, created or
 * updated (the tokens themselves are left alone).
 *
 * @module
 */
import { applyBootstrapTokenRBAC } from "../../cluster/bootstrap_token.ts";
import { BASE_INPUTS, type UpgradeData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** `bootstrap-token`. */
export async function runBootstrapToken(data: UpgradeData): Promise<void> {
  if (data.settings.dryRun) {
    data.out.info("[dryrun] Would configure bootstrap token and cluster-info RBAC rules");
    return;
  }
  data.out.info(
    "[upgrade/bootstrap-token] Configuring bootstrap token and cluster-info RBAC rules",
  );
  await applyBootstrapTokenRBAC(data.client, data.out);
}

/** `upgrade apply phase bootstrap-token`. */
export const bootstrapTokenPhase: Phase<UpgradeData> = {
  name: "bootstrap-token",
  short: "Configures bootstrap token and cluster-info RBAC rules",
  run: runBootstrapToken,
  inputs: BASE_INPUTS,
};
