/**
 * The rotate-ca `trust` phase: every reader of the CA on this control plane trusts the old and
 * the new CA — `ca.crt` (kube-apiserver's and the controller-manager's client CA, the
 * controller-manager's `--root-ca-file`, which it publishes as every namespace's
 * `kube-root-ca.crt`), the kubeconfig files, cluster-info — the old one first, as it still signs;
 * the controller-manager's signer reads `ca-rotation/signer.crt` (it takes one certificate, never
 * a bundle). Then kube-proxy and CoreDNS restart onto the new `kube-root-ca.crt`, and this node's
 * kubelet takes the new trust (`node`).
 *
 * @module
 */
import type { Phase } from "../../workflow/phase.ts";
import {
  caBundleFile,
  CONTROL_PLANE_ANNOTATION,
  doneMarkerFile,
  rotationState,
  SIGNER_CERT,
  signerFile,
  trustBundle,
} from "../../certs/ca_rotation.ts";
import {
  CONTROL_PLANE_SELECTOR,
  nodesNotYet,
  restartInClusterClients,
  waitForRootCA,
} from "../../certs/ca_rotation_cluster.ts";
import { certificatePin } from "../../pki/pin.ts";

import { applyStage, recordControlPlane } from "./control_plane.ts";
import { convergeNode } from "./node.ts";
import type { RotateCaData } from "./data.ts";

/** The `trust` phase. */
export const trustPhase: Phase<RotateCaData> = {
  name: "trust",
  short: "Trust the old and the new CA everywhere on this control plane; restart in order",
  run: async (data) => {
    const { pki, out } = data;
    const state = await rotationState(pki);
    if (state.stage === "none" || (state.stage !== "prepared" && state.stage !== "trusted")) {
      out.info(`[rotate-ca] trust: nothing to do at stage ${state.stage}`);
      return;
    }
    if (state.trustDone) {
      out.info("[rotate-ca] trust: done already");
      return;
    }
    const bundle = trustBundle("trusted", state.oldCA, state.newCA!);
    await applyStage(data, {
      bundle,
      caFiles: [caBundleFile(pki, bundle), signerFile(pki, state.oldCA)],
      signerPath: pki.certPath(SIGNER_CERT),
    });
    if (data.dryRun) return;
    await convergeNode(data);
    const newPin = await certificatePin(state.newCA!, pki.crypto);
    await recordControlPlane(data, "trust", newPin);
    const opened = await data.controlPlane();
    try {
      // The controller-manager that leads publishes kube-root-ca.crt: once every control
      // plane trusts both, whichever leads publishes both.
      const lagging = await nodesNotYet(
        opened.value.client,
        (a) => [`trust:${newPin}`, `reissue:${newPin}`].includes(a[CONTROL_PLANE_ANNOTATION]),
        CONTROL_PLANE_SELECTOR,
      );
      if (lagging.length > 0) {
        out.info(
          `[rotate-ca] Run "kubeadm certs rotate-ca phase trust" on ${
            lagging.join(", ")
          }: the last one publishes both CAs in kube-root-ca.crt`,
        );
      } else {
        await waitForRootCA(opened.value.client, bundle, data.timeoutMs);
        out.info("[rotate-ca] kube-root-ca.crt carries both CAs in every namespace");
        const restarted = await restartInClusterClients(opened.value.client, data.now);
        if (restarted.length > 0) {
          out.info(`[rotate-ca] Restarted ${restarted.join(", ")} onto the new kube-root-ca.crt`);
        }
      }
    } finally {
      opened.close();
    }
    await pki.files.write(doneMarkerFile(pki, "trust"));
    out.info(
      '[rotate-ca] This control plane trusts both CAs. Restart the other workloads that talk to the API server with their service account (they read kube-root-ca.crt at start), and run "kubeadm certs rotate-ca phase node" on every other node',
    );
  },
};
