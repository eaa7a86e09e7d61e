/**
 * `kubeadm join phase control-plane-join mark-control-plane`: label and taint this node as a
 * control-plane node, through this node's `admin.conf` (upstream `runMarkControlPlanePhase`).
 *
 * @module
 */
import { markControlPlane } from "../../cluster/mark_control_plane.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import type { JoinData } from "./data.ts";

/** Runs the sub-phase; a no-op for worker joins. */
export async function runJoinMarkControlPlane(d: JoinData): Promise<void> {
  if (!d.cfg.controlPlane) return;
  const name = d.cfg.nodeRegistration.name;
  if (d.dryRun) {
    d.out.info(`[control-plane-join] Would mark node ${name} as a control-plane`);
    return;
  }
  const client = await d.client();
  try {
    await markControlPlane(client, name, d.cfg.nodeRegistration.taints, d.out);
  } catch (e) {
    throw new KubeadmError(`error applying control-plane label and taints: ${errorMessage(e)}`, {
      cause: e,
      hint: e instanceof KubeadmError ? e.hint : undefined,
    });
  }
}
