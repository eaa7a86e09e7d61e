/**
 * The rotate-ca `finish` phase: once every kubelet's client certificate is the new CA's (the
 * Nodes' `ca-rotation-client-ca` annotations), the old CA is trusted nowhere on this control
 * plane: `ca.crt`, the kubeconfig files and cluster-info hold the new CA alone, the
 * controller-manager signs with `ca.crt` again, the control plane restarts in order. The
 * `kubeadm-certs` Secret (it holds the old CA, encrypted with a key kubeadm does not keep) is
 * deleted, and `ca-rotation/` with the old key removed. This node's kubelet drops the old CA
 * too; the other nodes' do with `node`.
 *
 * @module
 */
import type { Phase } from "../../workflow/phase.ts";
import { certificatePin } from "../../pki/pin.ts";
import {
  caBundleFile,
  CLIENT_CA_ANNOTATION,
  CONTROL_PLANE_ANNOTATION,
  ROTATION_DIR,
  rotationState,
  trustBundle,
} from "../../certs/ca_rotation.ts";
import { deleteUploadedCerts } from "../../certs/ca_rotation_cluster.ts";
import { applyStage, requireEveryNode } from "./control_plane.ts";
import { convergeNode } from "./node.ts";
import type { RotateCaData } from "./data.ts";

/** The `finish` phase. */
export const finishPhase: Phase<RotateCaData> = {
  name: "finish",
  short: "Trust only the new CA on this control plane; restart in order; remove the old CA",
  run: async (data) => {
    const { pki, out } = data;
    const state = await rotationState(pki);
    const ready = (state.stage === "signed" && state.reissueDone) || state.stage === "finished";
    if (!ready) {
      out.info(`[rotate-ca] finish: not before reissue completed (stage ${state.stage})`);
      return;
    }
    const newPin = await certificatePin(state.newCA!, pki.crypto);
    if (!data.dryRun) {
      await requireEveryNode(data, {
        annotation: CONTROL_PLANE_ANNOTATION,
        ok: (v) => v === `reissue:${newPin}`,
        what: "sign with the new CA on its control plane",
        run: "reissue",
        controlPlanes: true,
      }, {
        annotation: CLIENT_CA_ANNOTATION,
        ok: (v) => v === newPin,
        what: "have a kubelet client certificate from the new CA",
        run: "node",
      });
    }
    const bundle = trustBundle("finished", state.oldCA, state.newCA!);
    await applyStage(data, {
      bundle,
      caFiles: [caBundleFile(pki, bundle)],
      signerPath: pki.certPath("ca"),
    });
    if (data.dryRun) {
      out.info(`[dryrun] Would delete the kubeadm-certs Secret and ${pki.path(ROTATION_DIR)}`);
      return;
    }
    const opened = await data.controlPlane();
    try {
      if (await deleteUploadedCerts(opened.value.client)) {
        out.info(
          '[rotate-ca] Deleted the kubeadm-certs Secret (it held the old CA): run "kubeadm init phase upload-certs --upload-certs" before joining another control plane',
        );
      }
    } finally {
      opened.close();
    }
    await convergeNode(data);
    await data.node.removeFile(pki.path(ROTATION_DIR));
    out.info(
      `[rotate-ca] The old CA is trusted nowhere on this control plane. New nodes join with --discovery-token-ca-cert-hash ${newPin}. Run "kubeadm certs rotate-ca phase node" on every other node once more`,
    );
  },
};
