/**
 * The rotate-ca `reissue` phase: once every control plane ran `trust` (and, for the cluster CA,
 * every Node's kubelet trusts the new CA: its `ca-rotation-trust` annotation, set by `node`),
 * the new CA signs: its key is the new key, its certificate file the new CA then the old
 * (`signer.crt` the new CA, for the cluster CA); every leaf it signs (kube-apiserver's serving
 * and kubelet-client certificates and every kubeconfig's client certificate; `front-proxy-client`
 * for the front-proxy CA; etcd's server, peer and healthcheck-client certificates and
 * `apiserver-etcd-client` for the etcd CA) is re-issued by it (the renewal's plan,
 * `certs/renewal.ts`, on the new pair), and the control plane restarts onto them in order. For the cluster CA, cluster-info
 * then publishes the new CA first, which tells every node's `node` phase to request a kubelet
 * client certificate from the new signer. The last control plane to reissue does it for its own
 * kubelet now; the others leave theirs to that `node` run: before every controller-manager signs
 * with the new CA, the one that leads may still sign with the old, and each kubelet restart
 * spared is one first status post less (a kubelet just started may report its Node not Ready
 * until its first runtime check and container relist) and the kubelet keeping its API server
 * connection (its in-memory trust already holds both CAs since `trust`).
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
  caFlag,
  doneMarkerFile,
  rotationState,
  SIGNER_CERT,
  signerFile,
  TRUST_ANNOTATION,
  trustBundle,
} from "../../certs/ca_rotation.ts";
import { certificatePin } from "../../pki/pin.ts";
import {
  applyStage,
  everyControlPlane,
  type NodeRequirement,
  recordControlPlane,
  requireEveryNode,
  rotationCAs,
} from "./control_plane.ts";
import { convergeNode } from "./node.ts";
import type { RotateCaData } from "./data.ts";

/** The `reissue` phase. */
export const reissuePhase: Phase<RotateCaData> = {
  name: "reissue",
  short: "Sign with the new CA: re-issue every leaf and kubeconfig it signs; restart in order",
  run: async (data) => {
    const { pki, out, ca } = data;
    const state = await rotationState(pki, ca);
    if (state.stage !== "trusted" && state.stage !== "signed") {
      out.info(`[rotate-ca] reissue: nothing to do at stage ${state.stage}`);
      return;
    }
    if (state.stage === "trusted" && !state.trustDone) {
      throw new KubeadmError("the trust phase has not completed on this node", {
        hint: `run "kubeadm certs rotate-ca phase trust${caFlag(ca)}" first`,
      });
    }
    if (state.reissueDone) {
      out.info("[rotate-ca] reissue: done already");
      return;
    }
    const newPin = await certificatePin(state.newCA!, pki.crypto);
    if (!data.dryRun) {
      const required: NodeRequirement[] = [
        everyControlPlane(data, "trust", newPin, "trust the new CA on its control plane"),
      ];
      if (ca.clusterWide) {
        required.push({
          annotation: TRUST_ANNOTATION,
          ok: (v) => v.split(",").includes(newPin),
          what: "trust the new CA",
          run: "node",
        });
      }
      await requireEveryNode(data, ...required);
    }
    const { newCA } = await rotationCAs(data);
    // The renewal's plan, on a view of the directory whose CA is the new one.
    const caCrt = new TextEncoder().encode(encodeCertificatePEM(newCA.cert));
    const caKey = new TextEncoder().encode(await encodePrivateKeyPEM(newCA.key));
    const view: FileReader = {
      read: (p) =>
        Promise.resolve(
          p === pki.certPath(ca.baseName)
            ? caCrt
            : p === pki.keyPath(ca.baseName)
            ? caKey
            : undefined,
        ).then((v) => v ?? pki.files.read(p)),
      list: (p) => pki.files.list(p),
    };
    const settings = renewalSettings(data.cfg.cluster);
    const plan = await planRenewal({
      pki: new PkiDirectory(view, pki.certificatesDir, pki.crypto),
      kubeconfigDir: data.kubernetesDir,
      settings,
      names: renewTargets(settings.externalEtcd).filter((t) => t.caBaseName === ca.baseName)
        .map((t) => t.name),
      startTime: data.now,
      now: data.now,
      random: data.random,
    });
    for (const w of plan.warnings) out.warn(w);
    const bundle = trustBundle("signed", state.oldCA, newCA.cert);
    const keyFile = { ...await pki.keyFile(ca.baseName, newCA.key), keepExistingMode: true };
    await applyStage(data, {
      bundle,
      caFiles: ca.clusterWide
        ? [keyFile, caBundleFile(pki, ca, bundle), signerFile(pki, newCA.cert)]
        : [keyFile, caBundleFile(pki, ca, bundle)],
      signerPath: ca.clusterWide ? pki.certPath(SIGNER_CERT) : undefined,
      renewed: plan.outcomes.flatMap((o) =>
        o.status === "renewed"
          ? [{ name: o.target.name, files: o.files, readers: o.target.readers }]
          : []
      ),
    });
    if (data.dryRun) return;
    const lagging = await recordControlPlane(data, "reissue", newPin);
    if (ca.clusterWide && lagging.length === 0) await convergeNode(data);
    await pki.files.write(doneMarkerFile(pki, ca, "reissue"));
    out.info(
      !ca.clusterWide
        ? `[rotate-ca] The new ${ca.name} signs (${newPin}); the certificates it signs were re-issued`
        : lagging.length > 0
        ? `[rotate-ca] The new CA signs here (${newPin}). Run "kubeadm certs rotate-ca phase reissue" on ${
          lagging.join(", ")
        }, then "kubeadm certs rotate-ca phase node" on every node, this one too: its kubelet gets a client certificate from the new CA once every controller-manager signs with it`
        : `[rotate-ca] The new CA signs (${newPin}). Run "kubeadm certs rotate-ca phase node" on every other node, so its kubelet gets a client certificate from it`,
    );
  },
};
