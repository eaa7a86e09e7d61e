/**
 * The rotate-ca `finish` phase: once every control plane ran `reissue` (and, for the cluster CA,
 * every kubelet's client certificate is the new CA's: the Nodes' `ca-rotation-client-ca`
 * annotations), the old CA is trusted nowhere on this control plane: the CA's certificate file
 * (for the cluster CA also the kubeconfig files and cluster-info) holds the new CA alone, the
 * controller-manager signs with `ca.crt` again, the control plane restarts in order. The last
 * control plane to finish sets what the API servers publish of it in
 * `extension-apiserver-authentication` (the cluster and front-proxy CAs) to the new CA alone
 * (their controller only adds CAs to it). The `kubeadm-certs` Secret (it holds the old CA, encrypted with a key kubeadm does not
 * keep) is deleted, and the rotation folder with the old key removed. For the cluster CA this
 * node's kubelet drops the old CA too; the other nodes' do with `node`.
 *
 * @module
 */
import type { Phase } from "../../workflow/phase.ts";
import { certificatePin } from "../../pki/pin.ts";
import {
  caBundleFile,
  caFlag,
  CLIENT_CA_ANNOTATION,
  rotationState,
  trustBundle,
} from "../../certs/ca_rotation.ts";
import {
  authenticationTrust,
  deleteUploadedCerts,
  setPublishedTrust,
} from "../../certs/ca_rotation_cluster.ts";
import {
  applyStage,
  everyControlPlane,
  type NodeRequirement,
  recordControlPlane,
  requireEveryNode,
} from "./control_plane.ts";
import { convergeNode } from "./node.ts";
import type { RotateCaData } from "./data.ts";

/** The `finish` phase. */
export const finishPhase: Phase<RotateCaData> = {
  name: "finish",
  short: "Trust only the new CA on this control plane; restart in order; remove the old CA",
  run: async (data) => {
    const { pki, out, ca } = data;
    const state = await rotationState(pki, ca);
    const ready = (state.stage === "signed" && state.reissueDone) || state.stage === "finished";
    if (!ready) {
      out.info(`[rotate-ca] finish: not before reissue completed (stage ${state.stage})`);
      return;
    }
    const newPin = await certificatePin(state.newCA!, pki.crypto);
    if (!data.dryRun) {
      const required: NodeRequirement[] = [
        everyControlPlane(data, "reissue", newPin, "sign with the new CA on its control plane"),
      ];
      if (ca.clusterWide) {
        required.push({
          annotation: CLIENT_CA_ANNOTATION,
          ok: (v) => v === newPin,
          what: "have a kubelet client certificate from the new CA",
          run: "node",
        });
      }
      await requireEveryNode(data, ...required);
    }
    const bundle = trustBundle("finished", state.oldCA, state.newCA!);
    await applyStage(data, {
      bundle,
      caFiles: [caBundleFile(pki, ca, bundle)],
      signerPath: ca.clusterWide ? pki.certPath(ca.baseName) : undefined,
    });
    const published = ca.published && authenticationTrust(ca.published);
    if (data.dryRun) {
      if (published) {
        out.info(
          `[dryrun] Would set ${published.namespace}/${published.name}'s ${published.key} to the new CA alone (on the last control plane)`,
        );
      }
      out.info(`[dryrun] Would delete the kubeadm-certs Secret and ${pki.path(ca.dir)}`);
      return;
    }
    const lagging = await recordControlPlane(data, "finish", newPin);
    const opened = await data.controlPlane();
    try {
      if (published && lagging.length > 0) {
        out.info(
          `[rotate-ca] Run "kubeadm certs rotate-ca phase finish${caFlag(ca)}" on ${
            lagging.join(", ")
          }: the last one removes the old CA from ${published.name}`,
        );
      } else if (published && await setPublishedTrust(opened.value.client, published, bundle)) {
        out.info(
          `[rotate-ca] ${published.name}'s ${published.key} holds the new CA alone (the API server only adds to it)`,
        );
      }
      if (await deleteUploadedCerts(opened.value.client)) {
        out.info(
          '[rotate-ca] Deleted the kubeadm-certs Secret (it held the old CA): run "kubeadm init phase upload-certs --upload-certs" before joining another control plane',
        );
      }
    } finally {
      opened.close();
    }
    if (ca.clusterWide) await convergeNode(data);
    await data.node.removeFile(pki.path(ca.dir));
    out.info(
      ca.clusterWide
        ? `[rotate-ca] The old CA is trusted nowhere on this control plane. New nodes join with --discovery-token-ca-cert-hash ${newPin}. Run "kubeadm certs rotate-ca phase node" on every other node once more`
        : `[rotate-ca] The old ${ca.name} is trusted nowhere on this control plane`,
    );
  },
};
