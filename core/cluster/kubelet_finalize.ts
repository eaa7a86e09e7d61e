/**
 * The `kubelet-finalize/enable-client-cert-rotation` rewrite of `/etc/kubernetes/kubelet.conf`
 * (upstream `cmd/phases/init/kubeletfinalize.go`): once the kubelet has a rotatable client
 * certificate, the kubeconfig's user stops embedding the initial certificate and points both
 * `client-certificate` and `client-key` at `kubelet-client-current.pem`.
 *
 * @module
 */
import { KUBELET_PKI_DIR } from "../constants.ts";
import { type Kubeconfig, resolveContext } from "../kubeconfig/kubeconfig.ts";

/** `/var/lib/kubelet/pki/kubelet-client-current.pem`. */
export const KUBELET_CLIENT_CURRENT_PEM = `${KUBELET_PKI_DIR}/kubelet-client-current.pem`;

/** The phase's log line. */
export function kubeletFinalizeMessage(kubeletConfPath: string): string {
  return `[kubelet-finalize] Updating ${
    JSON.stringify(kubeletConfPath)
  } to point to a rotatable kubelet client certificate and key`;
}

/**
 * A copy of the kubeconfig whose current user refers to `pemPath` for both certificate and key
 * instead of embedding them.
 */
export function pointToRotatableClientCert(
  config: Kubeconfig,
  pemPath: string = KUBELET_CLIENT_CURRENT_PEM,
): Kubeconfig {
  const out = structuredClone(config);
  const user = resolveContext(out, { requireUser: true }).user as Record<string, unknown>;
  delete user["client-certificate-data"];
  delete user["client-key-data"];
  user["client-certificate"] = pemPath;
  user["client-key"] = pemPath;
  return out;
}
