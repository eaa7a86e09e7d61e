/**
 * `kubeadm init phase mark-control-plane`: labels this Node as a control-plane node and sets
 * the configured taints (default `node-role.kubernetes.io/control-plane:NoSchedule`).
 *
 * @module
 */
import { markControlPlane } from "../../cluster/mark_control_plane.ts";
import { clusterClient } from "./cluster_access.ts";
import type { InitData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** Runs the phase. */
export async function runMarkControlPlane(data: InitData): Promise<void> {
  const client = await clusterClient(data.cluster);
  const nr = data.cfg.init.nodeRegistration;
  await markControlPlane(client, nr.name, nr.taints, data.out);
}

/** `init phase mark-control-plane`. */
export const markControlPlanePhase: Phase<InitData> = {
  name: "mark-control-plane",
  short: "Mark a node as a control-plane",
  run: runMarkControlPlane,
  inputs: ["config", "dryRun", "nodeName"],
};
