/**
 * The rotate-ca `trust` phase: every reader of the CA on this control plane trusts the old and
 * the new CA, the old one first, as it still signs. For the cluster CA: `ca.crt` (kube-apiserver's
 * and the controller-manager's client CA, the controller-manager's `--root-ca-file`, which it
 * publishes as every namespace's `kube-root-ca.crt`), the kubeconfig files, cluster-info; the
 * controller-manager's signer reads `ca-rotation/signer.crt` (it takes one certificate, never a
 * bundle); then kube-proxy and CoreDNS restart onto the new `kube-root-ca.crt`, and this node's
 * kubelet takes the new trust (`node`). For the front-proxy CA `front-proxy-ca.crt`, for the
 * etcd CA `etcd/ca.crt` (etcd restarted last). For the cluster and front-proxy CAs the phase
 * waits for the API server to publish both in `extension-apiserver-authentication`, where
 * aggregated API servers read them.
 *
 * @module
 */
import type { Phase } from "../../workflow/phase.ts";
import {
  caBundleFile,
  caFlag,
  doneMarkerFile,
  rotationState,
  SIGNER_CERT,
  signerFile,
  trustBundle,
} from "../../certs/ca_rotation.ts";
import {
  authenticationTrust,
  restartInClusterClients,
  ROOT_CA_TRUST,
  waitForPublishedTrust,
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
    const { pki, out, ca } = data;
    const state = await rotationState(pki, ca);
    if (state.stage !== "prepared" && state.stage !== "trusted") {
      out.info(`[rotate-ca] trust: nothing to do at stage ${state.stage}`);
      return;
    }
    if (state.trustDone) {
      out.info("[rotate-ca] trust: done already");
      return;
    }
    const bundle = trustBundle("trusted", state.oldCA, state.newCA!);
    await applyStage(
      data,
      ca.clusterWide
        ? {
          bundle,
          caFiles: [caBundleFile(pki, ca, bundle), signerFile(pki, state.oldCA)],
          signerPath: pki.certPath(SIGNER_CERT),
        }
        : { bundle, caFiles: [caBundleFile(pki, ca, bundle)] },
    );
    if (data.dryRun) return;
    if (ca.clusterWide) await convergeNode(data);
    const newPin = await certificatePin(state.newCA!, pki.crypto);
    const lagging = await recordControlPlane(data, "trust", newPin);
    const opened = await data.controlPlane();
    try {
      const client = opened.value.client;
      if (ca.published) {
        await waitForPublishedTrust(
          client,
          authenticationTrust(ca.published),
          bundle,
          data.timeoutMs,
          "including",
        );
        out.info(
          `[rotate-ca] extension-apiserver-authentication's ${ca.published} carries both CAs (aggregated API servers verify with it)`,
        );
      }
      // The controller-manager that leads publishes kube-root-ca.crt: once every control
      // plane trusts both, whichever leads publishes both.
      if (ca.clusterWide && lagging.length > 0) {
        out.info(
          `[rotate-ca] Run "kubeadm certs rotate-ca phase trust" on ${
            lagging.join(", ")
          }: the last one publishes both CAs in kube-root-ca.crt`,
        );
      } else if (ca.clusterWide) {
        await waitForPublishedTrust(client, ROOT_CA_TRUST, bundle, data.timeoutMs);
        out.info("[rotate-ca] kube-root-ca.crt carries both CAs in every namespace");
        const restarted = await restartInClusterClients(client, data.now);
        if (restarted.length > 0) {
          out.info(`[rotate-ca] Restarted ${restarted.join(", ")} onto the new kube-root-ca.crt`);
        }
      } else if (lagging.length > 0) {
        out.info(
          `[rotate-ca] Run "kubeadm certs rotate-ca phase trust${caFlag(ca)}" on ${
            lagging.join(", ")
          } before reissue`,
        );
      }
    } finally {
      opened.close();
    }
    await pki.files.write(doneMarkerFile(pki, ca, "trust"));
    out.info(
      ca.clusterWide
        ? '[rotate-ca] This control plane trusts both CAs. Restart the other workloads that talk to the API server with their service account (they read kube-root-ca.crt at start), and run "kubeadm certs rotate-ca phase node" on every other node'
        : `[rotate-ca] This control plane trusts both ${ca.name} certificates`,
    );
  },
};
