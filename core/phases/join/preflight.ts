/**
 * `kubeadm join phase preflight [api-server-endpoint]`: the join preflight checks (run by the
 * runtime through `runJoinPreflight`, which needs the machine), then discovery and the
 * cluster's configuration, as upstream's preflight phase fetches them for every join.
 *
 * @module
 */
import type { JoinData } from "./data.ts";

/** Runs the phase. */
export async function runJoinPreflightPhase(d: JoinData): Promise<void> {
  await d.ports.preflight(d);
  await d.initCfg();
}
