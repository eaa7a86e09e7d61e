/**
 * From a discovered cluster to the kubelet's TLS-bootstrap credentials (upstream
 * `discovery.For` after validation): the kubeconfig written to
 * `/etc/kubernetes/bootstrap-kubelet.conf`, which carries the cluster-info server and CA and
 * authenticates with the TLS-bootstrap token as user `tls-bootstrap-token-user`.
 *
 * @module
 */
import type { Hashing } from "../ports/crypto.ts";
import {
  CLUSTER_INFO_CONFIGMAP,
  DEFAULT_CLUSTER_NAME,
  KubeconfigFile,
  KUBERNETES_DIR,
  TLS_BOOTSTRAP_USER,
} from "../constants.ts";
import { DiscoveryError, errorMessage } from "../errors.ts";
import type { PlannedFile } from "../ports/files.ts";
import { parseCertificatesPEM } from "../pki/cert.ts";
import { type CaCertSummary, summarizeCertificate } from "./ca_bundle.ts";
import {
  certificateAuthorityPem,
  clusterFromKubeconfig,
  createKubeconfigWithToken,
  type Kubeconfig,
  serializeKubeconfig,
} from "../kubeconfig/kubeconfig.ts";
import { hasAuthenticationCredentials } from "./file.ts";

/**
 * The TLS-bootstrap kubeconfig (upstream `CreateWithToken`): cluster `kubernetes` with the
 * given server and CA, user `tls-bootstrap-token-user` with the token, context
 * `tls-bootstrap-token-user@kubernetes`.
 */
export function buildTlsBootstrapKubeconfig(
  server: string,
  caPem: string,
  tlsBootstrapToken: string,
): Kubeconfig {
  return createKubeconfigWithToken(
    server,
    DEFAULT_CLUSTER_NAME,
    TLS_BOOTSTRAP_USER,
    caPem,
    tlsBootstrapToken,
  );
}

/**
 * The kubeconfig the kubelet bootstraps with, from the validated discovery kubeconfig: with a
 * TLS-bootstrap token, a fresh {@link buildTlsBootstrapKubeconfig} on cluster-info's server
 * and CA; without one, the discovery kubeconfig itself when it carries credentials. Throws a
 * {@link DiscoveryError} with upstream's text otherwise.
 */
export function tlsBootstrapKubeconfigFor(
  discovered: Kubeconfig,
  tlsBootstrapToken?: string,
  log?: (line: string) => void,
): Kubeconfig {
  if (tlsBootstrapToken) {
    log?.(
      "[discovery] Using provided TLSBootstrapToken as authentication credentials for the join process",
    );
    let cluster;
    try {
      cluster = clusterFromKubeconfig(discovered).cluster;
    } catch (e) {
      throw new DiscoveryError(
        `malformed kubeconfig in the ${CLUSTER_INFO_CONFIGMAP} ConfigMap: ${errorMessage(e)}`,
        { cause: e },
      );
    }
    return buildTlsBootstrapKubeconfig(
      cluster.server ?? "",
      certificateAuthorityPem(cluster),
      tlsBootstrapToken,
    );
  }
  if (hasAuthenticationCredentials(discovered)) return discovered;
  throw new DiscoveryError(
    "could not find authentication credentials for the TLS bootstrap process. Please use Token discovery, a discovery file with embedded authentication credentials or a discovery file without authentication credentials but with the TLSBootstrapToken flag",
    { hint: "pass --tls-bootstrap-token (or --token)" },
  );
}

/**
 * The first CA certificate of a bootstrap kubeconfig, summarised (what kubeadm logs after
 * discovery). Throws `could not get CA certificate from discovery kubeconfig: ...`.
 */
export async function bootstrapCaSummary(
  kubeconfig: Kubeconfig,
  crypto: Hashing,
): Promise<CaCertSummary> {
  try {
    const pem = certificateAuthorityPem(clusterFromKubeconfig(kubeconfig).cluster);
    if (!pem) throw new DiscoveryError("no CA certificate found in CertificateAuthorityData");
    return await summarizeCertificate(parseCertificatesPEM(pem)[0], crypto);
  } catch (e) {
    throw new DiscoveryError(
      `could not get CA certificate from discovery kubeconfig: ${errorMessage(e)}`,
      { cause: e },
    );
  }
}

/** `/etc/kubernetes/bootstrap-kubelet.conf` with the given kubeconfig (mode 0600). */
export function bootstrapKubeletConfFile(kubeconfig: Kubeconfig): PlannedFile {
  return {
    path: `${KUBERNETES_DIR}/${KubeconfigFile.bootstrapKubelet}`,
    data: serializeKubeconfig(kubeconfig, { nullEmptyLists: true }),
    mode: 0o600,
    kind: "kubeconfig",
  };
}
