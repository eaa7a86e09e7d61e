/**
 * `kubeadm join phase preflight [api-server-endpoint]`: the join preflight checks, then
 * discovery and the cluster's configuration, as upstream's preflight phase fetches them for
 * every join.
 *
 * @module
 */
import type { Machine } from "../../ports/machine.ts";
import { runJoinPreflight } from "../../preflight/join.ts";
import type { JoinData } from "./data.ts";

/**
 * The join preflight checks on a machine: root, the node checks and, for a control-plane join,
 * the init-node checks and image pull on the cluster's configuration for this node.
 */
export async function runJoinNodePreflight(d: JoinData, machine: Machine): Promise<void> {
  await runJoinPreflight(
    {
      nodeName: d.cfg.nodeRegistration.name,
      criSocket: d.cfg.nodeRegistration.criSocket,
      caCertPath: d.cfg.caCertPath,
      controlPlane: d.cfg.controlPlane !== undefined,
      discoveryEndpoint: d.cfg.discovery.bootstrapToken?.apiServerEndpoint,
      ignorePreflightErrors: [],
      certificateKey: d.cfg.controlPlane?.certificateKey,
      dryRun: d.dryRun,
    },
    machine,
    {
      ignore: d.cfg.nodeRegistration.ignorePreflightErrors,
      out: d.out,
      output: d.preflightOutput,
      controlPlaneConfig: () => d.initCfg(),
    },
  );
}

/** Runs the phase. */
export async function runJoinPreflightPhase(d: JoinData): Promise<void> {
  await d.ports.preflight(d);
  await d.initCfg();
  // A control-plane join ran these checks in its preflight, with the cluster's configuration.
  if (!d.cfg.controlPlane) {
    d.out.log?.(1, "preflight.ts", "[preflight] Running configuration dependant checks");
  }
}
