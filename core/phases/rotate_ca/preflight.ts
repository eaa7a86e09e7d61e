/**
 * The rotate-ca `preflight` phase: refuses, before anything is written, a rotation that cannot
 * go well — a node without the CA key (a worker, or an external CA), a `--ca-cert`/`--ca-key`
 * pair that is no CA, not one pair, the CA in use or not the one a rotation under way uses, a
 * certificates directory in no stage of a rotation, and for the cluster CA (which every kubelet
 * takes) a cluster with a Node not Ready.
 *
 * @module
 */
import type { Node } from "kubernetes-types/core/v1.d.ts";
import { KubeadmError } from "../../errors.ts";
import type { Phase } from "../../workflow/phase.ts";
import { checkNewCA, newCAPath, rotationState } from "../../certs/ca_rotation.ts";
import type { RotateCaData } from "./data.ts";

/** Checks the CA, the flags and the stage (no cluster access). */
export async function checkNode(data: RotateCaData): Promise<void> {
  const { pki, ca } = data;
  if (!(await pki.hasKey(ca.baseName))) {
    throw new KubeadmError(
      `${
        pki.keyPath(ca.baseName)
      } does not exist: the CA can only be rotated on a control-plane node that holds its key`,
      {
        field: pki.keyPath(ca.baseName),
        hint: ca.clusterWide
          ? 'on a worker run "kubeadm certs rotate-ca phase node"; a cluster with an external CA rotates it outside kubeadm'
          : `workers do not read ${ca.name}: nothing to do on them; a cluster with an external CA rotates it outside kubeadm`,
      },
    );
  }
  const state = await rotationState(pki, ca);
  if (!data.newCA) return;
  if (state.stage === "none") {
    await checkNewCA(data.newCA, state.oldCA);
    return;
  }
  if (state.newCA && state.newCA.der.join() !== data.newCA.cert.der.join()) {
    throw new KubeadmError(
      "a rotation to another CA is under way: --ca-cert is not the CA it rotates to",
      {
        field: "--ca-cert",
        hint: `run again without --ca-cert/--ca-key to continue it (its new CA is ${
          pki.certPath(newCAPath(ca))
        })`,
      },
    );
  }
}

/** Refuses a cluster with a Node that is not Ready. */
export async function checkClusterHealthy(data: RotateCaData): Promise<void> {
  const opened = await data.controlPlane();
  try {
    const nodes = await opened.value.client.list<Node>("Node");
    const notReady = nodes.filter((n) =>
      !n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")
    ).map((n) => n.metadata?.name ?? "");
    if (notReady.length > 0) {
      throw new KubeadmError(
        `the cluster is not healthy: Node ${
          notReady.join(", ")
        } not Ready; a rotation restarts every kubelet and the control plane`,
        {
          hint:
            "bring every node back to Ready (or delete the ones gone for good), then run again; nothing was written",
        },
      );
    }
  } finally {
    opened.close();
  }
}

/** The `preflight` phase. */
export const preflightPhase: Phase<RotateCaData> = {
  name: "preflight",
  short: "Check that the CA can be rotated from this node now",
  run: async (data) => {
    await checkNode(data);
    if (!data.dryRun && data.ca.clusterWide) await checkClusterHealthy(data);
  },
};
