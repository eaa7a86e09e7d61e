/**
 * The rotate-ca `reissue` phase: once every Node's kubelet trusts the new CA (its
 * `ca-rotation-trust` annotation, set by `node`), the new CA signs: `ca.key` is the new key,
 * `ca.crt` the new CA then the old, `signer.crt` the new CA; kube-apiserver's serving and
 * kubelet-client certificates and every kubeconfig's client certificate are re-issued by it (the
 * renewal's plan, `certs/renewal.ts`, on the new pair), and the control plane restarts onto
 * them in order. cluster-info then publishes the new CA first, which tells every node's `node`
 * phase to request a kubelet client certificate from the new signer; this node's does it now.
 *
 * @module
 */
import { KubeadmError } from "../../errors.ts";
import type { FileReader } from "../../ports/files.ts";
import type { Phase } from "../../workflow/phase.ts";
import { encodeCertificatePEM } from "../../pki/cert.ts";
import { encodePrivateKeyPEM } from "../../pki/keys.ts";
import { PkiDirectory } from "../../certs/pki_dir.ts";
import { planRenewal, renewalSettings } from "../../certs/renewal.ts";
import { renewTargets } from "../../certs/renew_targets.ts";
import {
  caBundleFile,
  CONTROL_PLANE_ANNOTATION,
  doneMarkerFile,
  rotationState,
  SIGNER_CERT,
  signerFile,
  TRUST_ANNOTATION,
  trustBundle,
} from "../../certs/ca_rotation.ts";
import { certificatePin } from "../../pki/pin.ts";
import { applyStage, recordControlPlane, requireEveryNode, rotationCAs } from "./control_plane.ts";
import { convergeNode } from "./node.ts";
import type { RotateCaData } from "./data.ts";

/** The `reissue` phase. */
export const reissuePhase: Phase<RotateCaData> = {
  name: "reissue",
  short: "Sign with the new CA: re-issue every leaf and kubeconfig it signs; restart in order",
  run: async (data) => {
    const { pki, out } = data;
    const state = await rotationState(pki);
    if (state.stage !== "trusted" && state.stage !== "signed") {
      out.info(`[rotate-ca] reissue: nothing to do at stage ${state.stage}`);
      return;
    }
    if (state.stage === "trusted" && !state.trustDone) {
      throw new KubeadmError("the trust phase has not completed on this node", {
        hint: 'run "kubeadm certs rotate-ca phase trust" first',
      });
    }
    if (state.reissueDone) {
      out.info("[rotate-ca] reissue: done already");
      return;
    }
    const newPin = await certificatePin(state.newCA!, pki.crypto);
    if (!data.dryRun) {
      await requireEveryNode(data, {
        annotation: CONTROL_PLANE_ANNOTATION,
        ok: (v) => v === `trust:${newPin}` || v === `reissue:${newPin}`,
        what: "trust the new CA on its control plane",
        run: "trust",
        controlPlanes: true,
      }, {
        annotation: TRUST_ANNOTATION,
        ok: (v) => v.split(",").includes(newPin),
        what: "trust the new CA",
        run: "node",
      });
    }
    const { newCA } = await rotationCAs(data);
    // The renewal's plan, on a view of the directory whose CA is the new one.
    const caCrt = new TextEncoder().encode(encodeCertificatePEM(newCA.cert));
    const caKey = new TextEncoder().encode(await encodePrivateKeyPEM(newCA.key));
    const view: FileReader = {
      read: (p) =>
        Promise.resolve(
          p === pki.certPath("ca") ? caCrt : p === pki.keyPath("ca") ? caKey : undefined,
        ).then((v) => v ?? pki.files.read(p)),
      list: (p) => pki.files.list(p),
    };
    const settings = renewalSettings(data.cfg.cluster);
    const plan = await planRenewal({
      pki: new PkiDirectory(view, pki.certificatesDir, pki.crypto),
      kubeconfigDir: data.kubernetesDir,
      settings,
      names: renewTargets(settings.externalEtcd).filter((t) => t.caBaseName === "ca")
        .map((t) => t.name),
      startTime: data.now,
      now: data.now,
      random: data.random,
    });
    for (const w of plan.warnings) out.warn(w);
    const bundle = trustBundle("signed", state.oldCA, newCA.cert);
    await applyStage(data, {
      bundle,
      caFiles: [
        { ...await pki.keyFile("ca", newCA.key), keepExistingMode: true },
        caBundleFile(pki, bundle),
        signerFile(pki, newCA.cert),
      ],
      signerPath: pki.certPath(SIGNER_CERT),
      renewed: plan.outcomes.flatMap((o) =>
        o.status === "renewed"
          ? [{ name: o.target.name, files: o.files, readers: o.target.readers }]
          : []
      ),
    });
    if (data.dryRun) return;
    await convergeNode(data);
    await recordControlPlane(data, "reissue", newPin);
    await pki.files.write(doneMarkerFile(pki, "reissue"));
    out.info(
      `[rotate-ca] The new CA signs (${newPin}). Run "kubeadm certs rotate-ca phase node" on every other node, so its kubelet gets a client certificate from it`,
    );
  },
};
