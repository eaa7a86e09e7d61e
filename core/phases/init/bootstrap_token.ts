/**
 * `kubeadm init phase bootstrap-token`: stores the configured bootstrap tokens as Secrets,
 * creates the RBAC that lets joining nodes use them, and publishes `kube-public/cluster-info`
 * from admin.conf's cluster. Prints `[bootstrap-token] Using token: <token>` (upstream's
 * deliberate print) unless `--skip-token-print`.
 *
 * @module
 */
import { applyBootstrapTokenPhase } from "../../cluster/bootstrap_token.ts";
import { adminKubeconfig, clusterClient } from "./cluster_access.ts";
import type { InitData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** Runs the phase. */
export async function runBootstrapToken(data: InitData): Promise<void> {
  const client = await clusterClient(data.cluster);
  await applyBootstrapTokenPhase(client, {
    tokens: data.cfg.init.bootstrapTokens,
    now: data.clock.now(),
    admin: await adminKubeconfig(data.cluster),
    skipTokenPrint: data.skipTokenPrint,
  }, data.out);
}

/** `init phase bootstrap-token`. */
export const bootstrapTokenPhase: Phase<InitData> = {
  name: "bootstrap-token",
  aliases: ["bootstraptoken"],
  short: "Generates bootstrap tokens used to join a node to a cluster",
  run: runBootstrapToken,
  inputs: ["config", "dryRun", "kubeconfig", "skipTokenPrint"],
};
