/**
 * `kubeadm join phase control-plane-join mark-control-plane`: label and taint this node as a
 * control-plane node, through this node's `admin.conf` (upstream `runMarkControlPlanePhase`).
 *
 * @module
 */
import { markControlPlane } from "../../cluster/mark_control_plane.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import type { JoinData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** Runs the sub-phase; a no-op for worker joins. */
export async function runJoinMarkControlPlane(data: JoinData): Promise<void> {
  if (!data.cfg.controlPlane) return;
  const name = data.cfg.nodeRegistration.name;
  if (data.dryRun) {
    data.out.info(`[control-plane-join] Would mark node ${name} as a control-plane`);
    return;
  }
  const client = await data.client();
  try {
    await markControlPlane(client, name, data.cfg.nodeRegistration.taints, data.out);
  } catch (e) {
    throw new KubeadmError(`error applying control-plane label and taints: ${errorMessage(e)}`, {
      cause: e,
      hint: e instanceof KubeadmError ? e.hint : undefined,
    });
  }
}

/** `join phase control-plane-join`: what makes this node a control-plane instance. */
export const controlPlaneJoinPhase: Phase<JoinData> = {
  name: "control-plane-join",
  short: "Join a machine as a control plane instance",
  phases: [
    {
      name: "all",
      short: "Join a machine as a control plane instance",
      runAllSiblings: true,
      inputs: ["config", "controlPlane", "nodeName", "patchesDir", "advertiseAddress", "dryRun"],
    },
    {
      name: "mark-control-plane",
      short: "Mark a node as a control-plane",
      run: runJoinMarkControlPlane,
      inputs: ["config", "controlPlane", "nodeName", "dryRun"],
    },
  ],
};
