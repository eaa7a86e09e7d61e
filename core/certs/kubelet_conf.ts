/**
 * The kubelet's client certificate in `kubelet.conf`, as the renewals beyond upstream treat it.
 * Upstream's `certs renew` and `check-expiration` leave kubelet.conf out: the kubelet rotates
 * its own client certificate once `kubelet-finalize` (or the TLS bootstrap of a join) points
 * kubelet.conf at `/var/lib/kubelet/pki/kubelet-client-current.pem`. A kubelet.conf that still
 * embeds its certificate (`client-certificate-data`: `kubelet-finalize` skipped, a node set up
 * by hand or by an older kubeadm) is rotated by nobody and stops the node when it expires; the
 * scheduled run (`certs auto-renewal run`) and `certs renew all --restart` renew that one with
 * the cluster CA (same subject, `system:node:<name>` in `system:nodes`) and restart the kubelet.
 *
 * @module
 */
import { KubeconfigFile } from "../constants.ts";
import { errorMessage } from "../errors.ts";
import type { FileReader } from "../ports/files.ts";
import { type Certificate, parseCertificatesPEM } from "../pki/cert.ts";
import { embeddedBytes, lookupContext, parseKubeconfig } from "../kubeconfig/kubeconfig.ts";
import { kubeconfigPath } from "../kubeconfig/files.ts";
import { certSpec } from "./certlist.ts";
import type { RenewTarget } from "./renew_targets.ts";

/** kubelet.conf as a renewal target: only ever named when it embeds its certificate. */
export const KUBELET_CONF_TARGET: RenewTarget = {
  name: KubeconfigFile.kubelet,
  longName: "certificate embedded in the kubeconfig file for the kubelet to use",
  source: { kind: "kubeconfig", fileName: KubeconfigFile.kubelet },
  caName: certSpec("ca").name,
  caBaseName: certSpec("ca").baseName,
  readers: [],
};

/** How this node's kubelet.conf holds the kubelet's client certificate. */
export type KubeletClientState =
  /** No kubelet.conf (or not one whose current user can be read). */
  | { kind: "missing"; path: string; reason?: string }
  /** The user points at a file (the kubelet's rotated `kubelet-client-current.pem`). */
  | { kind: "rotated"; path: string; certificateFile: string }
  /** The user embeds its certificate: nobody rotates it. */
  | { kind: "embedded"; path: string; cert: Certificate };

/** Reads kubelet.conf's client certificate (see {@link KubeletClientState}); never throws. */
export async function kubeletClientState(
  files: FileReader,
  kubeconfigDir: string,
): Promise<KubeletClientState> {
  const path = kubeconfigPath(kubeconfigDir, KubeconfigFile.kubelet);
  try {
    const data = await files.read(path);
    if (data === undefined) return { kind: "missing", path };
    const { user } = lookupContext(parseKubeconfig(data, path));
    const embedded = user?.["client-certificate-data"];
    if (embedded) {
      return { kind: "embedded", path, cert: parseCertificatesPEM(embeddedBytes(embedded))[0] };
    }
    const file = user?.["client-certificate"];
    if (file) return { kind: "rotated", path, certificateFile: file };
    return { kind: "missing", path, reason: "its current user has no client certificate" };
  } catch (e) {
    return { kind: "missing", path, reason: errorMessage(e) };
  }
}

/** Whether a renewal with this window renews kubelet.conf (embedded and expiring within it). */
export function kubeletConfDue(state: KubeletClientState, windowMs: number, now: Date): boolean {
  return state.kind === "embedded" && state.cert.notAfter.getTime() - now.getTime() <= windowMs;
}

/** One line saying what a renewal does with kubelet.conf (for the run and the status). */
export function kubeletClientLine(state: KubeletClientState): string {
  switch (state.kind) {
    case "rotated":
      return `${state.path} points at ${state.certificateFile}, which the kubelet rotates itself: left alone`;
    case "embedded":
      return `${state.path} embeds the kubelet's client certificate (expires ${state.cert.notAfter.toISOString()}), which nothing rotates: renewed with the cluster CA when due, then the kubelet restarted`;
    case "missing":
      return `${state.path}: no kubelet client certificate to renew${
        state.reason ? ` (${state.reason})` : ""
      }`;
  }
}
