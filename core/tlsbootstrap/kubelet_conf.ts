/**
 * The files the kubelet leaves behind after its TLS bootstrap (upstream
 * `writeKubeconfigFromBootstrapping` and client-go's certificate file store):
 *
 * - `/var/lib/kubelet/pki/kubelet-client-current.pem`: the issued certificate chain followed by
 *   the private key, mode 0600 (the kubelet writes `kubelet-client-<timestamp>.pem` and points
 *   the `-current` symlink at it; the FileSystem port has no symlinks, so the current file is
 *   written directly);
 * - `/etc/kubernetes/kubelet.conf`: cluster `default-cluster` (server and CA of the bootstrap
 *   kubeconfig), user `default-auth` whose certificate and key both point at that pem file,
 *   context `default-context` with namespace `default`.
 *
 * @module
 */
import { KubeconfigFile, KUBELET_PKI_DIR, KUBERNETES_DIR } from "../constants.ts";
import { KubeadmError } from "../errors.ts";
import type { PlannedFile } from "../ports/files.ts";
import {
  type Kubeconfig,
  type KubeconfigCluster,
  resolveContext,
  serializeKubeconfig,
} from "../kubeconfig/kubeconfig.ts";
import { decodePem, encodePem } from "../pki/pem.ts";

/** `/etc/kubernetes/bootstrap-kubelet.conf`. */
export const BOOTSTRAP_KUBELET_CONF = `${KUBERNETES_DIR}/${KubeconfigFile.bootstrapKubelet}`;
/** `/etc/kubernetes/kubelet.conf`. */
export const KUBELET_CONF = `${KUBERNETES_DIR}/${KubeconfigFile.kubelet}`;
/** `/var/lib/kubelet/pki/kubelet-client-current.pem`. */
export const KUBELET_CLIENT_PEM = `${KUBELET_PKI_DIR}/kubelet-client-current.pem`;

/** Where the bootstrap kubeconfig says the cluster is. */
export interface BootstrapCluster {
  server: string;
  /** `certificate-authority-data` (base64), when embedded. */
  caData?: string;
  /** `certificate-authority` file, when referenced instead. */
  caFile?: string;
  insecureSkipTLSVerify?: boolean;
}

/** The current cluster of a bootstrap kubeconfig. */
export function bootstrapClusterOf(config: Kubeconfig): BootstrapCluster {
  const { cluster } = resolveContext(config, { source: BOOTSTRAP_KUBELET_CONF });
  if (!cluster.server) {
    throw new KubeadmError(
      "the bootstrap kubeconfig has no current cluster with a server",
      { field: BOOTSTRAP_KUBELET_CONF },
    );
  }
  return {
    server: cluster.server,
    caData: cluster["certificate-authority-data"],
    caFile: cluster["certificate-authority"],
    insecureSkipTLSVerify: cluster["insecure-skip-tls-verify"],
  };
}

/** The kubelet.conf the kubelet writes after bootstrapping. */
export function kubeletKubeconfig(
  cluster: BootstrapCluster,
  pemPath = KUBELET_CLIENT_PEM,
): Kubeconfig {
  const c: KubeconfigCluster = { server: cluster.server };
  if (cluster.caFile) c["certificate-authority"] = cluster.caFile;
  else if (cluster.caData) c["certificate-authority-data"] = cluster.caData;
  if (cluster.insecureSkipTLSVerify) c["insecure-skip-tls-verify"] = true;
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "default-cluster", cluster: c }],
    contexts: [{
      name: "default-context",
      context: { cluster: "default-cluster", namespace: "default", user: "default-auth" },
    }],
    "current-context": "default-context",
    preferences: {},
    users: [{
      name: "default-auth",
      user: { "client-certificate": pemPath, "client-key": pemPath },
    }],
  };
}

/** Content of the pem file: every certificate of the chain, then the key block. */
export function kubeletClientPemContent(certPem: string, keyPem: string): string {
  const certs = decodePem(certPem).filter((b) => b.type === "CERTIFICATE");
  const key = decodePem(keyPem).find((b) => b.type.endsWith("PRIVATE KEY"));
  if (certs.length === 0) throw new KubeadmError("invalid certificate data");
  if (!key) throw new KubeadmError("invalid key data");
  return [...certs.map((b) => encodePem(b.type, b.bytes)), encodePem(key.type, key.bytes)].join(
    "",
  );
}

/** The two files of a finished bootstrap, pem first (kubelet.conf must never dangle). */
export function kubeletBootstrapFiles(
  cluster: BootstrapCluster,
  certPem: string,
  keyPem: string,
  paths: { kubeconfig?: string; pem?: string } = {},
): PlannedFile[] {
  const pem = paths.pem ?? KUBELET_CLIENT_PEM;
  return [
    { path: pem, data: kubeletClientPemContent(certPem, keyPem), mode: 0o600, kind: "key" },
    {
      path: paths.kubeconfig ?? KUBELET_CONF,
      data: serializeKubeconfig(kubeletKubeconfig(cluster, pem), { nullEmptyLists: true }),
      mode: 0o600,
      kind: "kubeconfig",
    },
  ];
}
