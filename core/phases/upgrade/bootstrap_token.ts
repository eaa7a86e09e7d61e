/**
 * `upgrade apply phase bootstrap-token` (upstream `cmd/phases/upgrade/apply/bootstraptoken.go`):
 * the bootstrap-token and `cluster-info` RBAC rules of this kubeadm release, created or
 * updated (the tokens themselves are left alone).
 *
 * @module
 */
import { applyBootstrapTokenRBAC } from "../../cluster/bootstrap_token.ts";
import type { UpgradeData } from "./data.ts";

/** `bootstrap-token`. */
export async function runBootstrapToken(d: UpgradeData): Promise<void> {
  if (d.settings.dryRun) {
    d.out.info("[dryrun] Would configure bootstrap token and cluster-info RBAC rules");
    return;
  }
  d.out.info("[upgrade/bootstrap-token] Configuring bootstrap token and cluster-info RBAC rules");
  await applyBootstrapTokenRBAC(d.client, d.out);
}
