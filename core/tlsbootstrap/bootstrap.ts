/**
 * The kubelet's TLS bootstrap, end to end, over the core's ports: read
 * `/etc/kubernetes/bootstrap-kubelet.conf`, authenticate with it (bearer bootstrap token),
 * obtain a client certificate for `system:node:<name>` through the CSR API, and write
 * `/var/lib/kubelet/pki/kubelet-client-current.pem` and `/etc/kubernetes/kubelet.conf` the way
 * the kubelet does. For users without a kubelet (and the tests' kubelet stand-in).
 *
 * @module
 */
import { errorMessage, KubeadmError } from "../errors.ts";
import type { FileSystem } from "../ports/files.ts";
import { utf8 } from "../text/utf8.ts";
import { KubeClient } from "../kube/client.ts";
import { connectionFromKubeconfig } from "../kube/kubeconfig_connection.ts";
import type { TransportFactory } from "../ports/transport.ts";
import { parseKubeconfig } from "../kubeconfig/kubeconfig.ts";
import {
  BOOTSTRAP_KUBELET_CONF,
  bootstrapClusterOf,
  KUBELET_CLIENT_PEM,
  KUBELET_CONF,
  kubeletBootstrapFiles,
} from "./kubelet_conf.ts";
import { type NodeCertificateRequestOptions, requestNodeClientCertificate } from "./request.ts";

/**
 * Inputs of {@link runKubeletTlsBootstrap}: the request's (node name, key, time, bounds, log)
 * and where the bootstrap reads and writes.
 */
export interface KubeletTlsBootstrapOptions extends Omit<NodeCertificateRequestOptions, "client"> {
  /** The node's files. */
  files: FileSystem;
  /** Builds the transport to the API server from connection parameters. */
  transportFor: TransportFactory;
  /** Default `/etc/kubernetes/bootstrap-kubelet.conf`. */
  bootstrapKubeconfig?: string;
  /** Default `/etc/kubernetes/kubelet.conf`. */
  kubeconfig?: string;
  /** Default `/var/lib/kubelet/pki/kubelet-client-current.pem`. */
  pemPath?: string;
}

/** What a bootstrap produced. */
export interface KubeletTlsBootstrapResult {
  csrName: string;
  /** The API server the new kubelet.conf talks to. */
  server: string;
  /** Paths written, in order. */
  written: string[];
}

/** Runs the bootstrap and writes the pem file, then kubelet.conf. */
export async function runKubeletTlsBootstrap(
  o: KubeletTlsBootstrapOptions,
): Promise<KubeletTlsBootstrapResult> {
  const path = o.bootstrapKubeconfig ?? BOOTSTRAP_KUBELET_CONF;
  const raw = await o.files.read(path);
  if (raw === undefined) {
    throw new KubeadmError(`unable to read the bootstrap kubeconfig ${path}: file does not exist`, {
      field: path,
    });
  }
  const config = parseKubeconfig(utf8(raw), path);
  const cluster = bootstrapClusterOf(config);
  const params = await connectionFromKubeconfig(config, { files: o.files });
  if (!params.token && !params.certPem) {
    throw new KubeadmError(`the bootstrap kubeconfig ${path} carries no credentials`, {
      field: path,
      hint: "it must authenticate with a bootstrap token or a client certificate",
    });
  }
  const client = new KubeClient({
    server: params.server,
    transport: await o.transportFor(params),
    clock: o.clock,
    sleep: o.sleep,
  });
  let issued;
  try {
    issued = await requestNodeClientCertificate({ ...o, client });
  } catch (e) {
    throw new KubeadmError(
      `unable to bootstrap the kubelet client certificate: ${errorMessage(e)}`,
      {
        cause: e,
        hint: e instanceof KubeadmError ? e.hint : undefined,
      },
    );
  }
  const files = kubeletBootstrapFiles(cluster, issued.certPem, issued.keyPem, {
    kubeconfig: o.kubeconfig ?? KUBELET_CONF,
    pem: o.pemPath ?? KUBELET_CLIENT_PEM,
  });
  for (const f of files) await o.files.write(f);
  return { csrName: issued.csrName, server: cluster.server, written: files.map((f) => f.path) };
}
