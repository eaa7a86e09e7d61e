/**
 * What the CA rotation's tests share: a test CA, cluster-info publishing a bundle, a fake
 * controller-manager that signs the kubelets' client CSRs on the fake API server, and the API
 * server's authorizers and TLS check in front of it.
 *
 * @module
 */
import type { CertificateSigningRequest } from "kubernetes-types/certificates/v1.d.ts";
import type { ConfigMap } from "kubernetes-types/core/v1.d.ts";
import type { CertAndKey } from "../../core/certs/pki_dir.ts";
import type { AnonymousConnection } from "../../core/certs/ca_rotation_cluster.ts";
import type { Opened } from "../../core/phases/rotate_ca/data.ts";
import { ApiError } from "../../core/errors.ts";
import { KubeClient } from "../../core/kube/client.ts";
import type { Transport } from "../../core/ports/transport.ts";
import {
  type Certificate,
  checkSignatureFrom,
  createSelfSignedCACert,
  createSignedCert,
  encodeCertificatePEM,
  parseCertificatesPEM,
} from "../../core/pki/cert.ts";
import { parseCSR } from "../../core/pki/csr.ts";
import { generateKeyPair } from "../../core/pki/keys.ts";
import { base64Decode, base64Encode } from "../../core/text/base64.ts";
import { utf8 } from "../../core/text/utf8.ts";
import {
  embedData,
  emptyKubeconfig,
  serializeKubeconfig,
} from "../../core/kubeconfig/kubeconfig.ts";
import { webCryptoPort } from "../../adapters/crypto/webcrypto.ts";
import { type FakeKubeApi, statusResponse } from "./fake_kube_api.ts";
import { seededRandom } from "./fixed_random.ts";
import { webKeys } from "./platform.ts";

/** The kubeconfig files of a control plane: each trusts what a rotation's stage sets. */
export const CONTROL_PLANE_KUBECONFIGS = [
  "admin.conf",
  "super-admin.conf",
  "controller-manager.conf",
  "scheduler.conf",
  "kubelet.conf",
] as const;

/** A cluster CA (`kubernetes`, ECDSA P-256) made from `seed`. */
export async function testCA(seed: number): Promise<CertAndKey> {
  const key = await generateKeyPair("ECDSA-P256", webKeys);
  const cert = await createSelfSignedCACert(
    { commonName: "kubernetes", notBefore: new Date("2026-01-01T00:00:00Z") },
    key,
    seededRandom(seed),
    webCryptoPort,
  );
  return { cert, key };
}

/** `kube-public/cluster-info` publishing `bundle` (a cluster, no context, as kubeadm's). */
export function clusterInfoConfigMap(bundle: readonly Certificate[] | string): ConfigMap {
  const pem = typeof bundle === "string" ? bundle : encodeCertificatePEM([...bundle]);
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "kube-public", name: "cluster-info" },
    data: {
      kubeconfig: serializeKubeconfig({
        ...emptyKubeconfig(),
        clusters: [{
          name: "",
          cluster: {
            server: "https://10.0.0.1:6443",
            "certificate-authority-data": embedData(pem),
          },
        }],
      }, { nullEmptyLists: true }),
    },
  };
}

/**
 * The controller-manager's CSR signer on the fake API server: a CertificateSigningRequest read
 * back is approved and signed by what `signer` returns then.
 */
export function signKubeletCSRs(api: FakeKubeApi, signer: () => Promise<CertAndKey>): void {
  api.onRequest = async (r, a) => {
    const m = /certificatesigningrequests\/([^/]+)$/.exec(r.path);
    if (r.method !== "GET" || !m) return;
    const csr = a.get<CertificateSigningRequest>("CertificateSigningRequest", undefined, m[1])!;
    if (csr.status?.certificate) return;
    const req = parseCSR(utf8(base64Decode(csr.spec.request)));
    const ca = await signer();
    const cert = await createSignedCert(
      {
        commonName: req.subject.commonName,
        organization: [...req.subject.organization],
        usages: ["clientAuth"],
      },
      req.spki,
      ca.cert,
      ca.key,
      seededRandom(11),
      webCryptoPort,
    );
    a.put({
      ...csr,
      status: {
        conditions: [{ type: "Approved", status: "True", reason: "AutoApproved", message: "" }],
        certificate: base64Encode(new TextEncoder().encode(encodeCertificatePEM(cert))),
      },
    } as CertificateSigningRequest);
  };
}

const CLUSTER_INFO_PATH = "/api/v1/namespaces/kube-public/configmaps/cluster-info";

/**
 * The API server's authorizers in front of the fake API server, as kubeadm's RBAC and the node
 * authorizer decide: the kubelet's client (`system:node:<nodeName>`) may do anything but read
 * cluster-info, an anonymous client only that. Each anonymous connection is recorded and, when
 * `serving` gives the API server's certificate now, verified as TLS would: a bundle holding
 * none of its signers fails the request (`UnknownAuthority`).
 */
export function nodeAuthorizer(
  api: FakeKubeApi,
  client: KubeClient,
  nodeName: string,
  serving?: () => Promise<Certificate>,
): {
  kubelet: () => Promise<Opened<KubeClient>>;
  anonymous: (connection: AnonymousConnection) => Promise<Opened<KubeClient>>;
  connections: AnonymousConnection[];
} {
  const isClusterInfo = (request: Request) =>
    request.method === "GET" && new URL(request.url).pathname === CLUSTER_INFO_PATH;
  const forbidden = (user: string, request: Request, why: string) =>
    Promise.resolve(statusResponse(
      403,
      "Forbidden",
      `${request.method} ${new URL(request.url).pathname} is forbidden: User "${user}": ${why}`,
    ));
  const kubelet: Transport = (request, limits) =>
    isClusterInfo(request)
      ? forbidden(
        `system:node:${nodeName}`,
        request,
        `no relationship found between node '${nodeName}' and this object`,
      )
      : api.transport(request, limits);
  const connections: AnonymousConnection[] = [];
  return {
    kubelet: () =>
      Promise.resolve({
        value: new KubeClient({ server: client.server, transport: kubelet, ...client.timing }),
        close: () => {},
      }),
    anonymous: (connection) => {
      connections.push(connection);
      const anonymous: Transport = async (request, limits) => {
        if (serving) {
          const cert = await serving();
          const verified = await Promise.all(
            parseCertificatesPEM(connection.caPem).map((ca) =>
              checkSignatureFrom(cert, ca, webCryptoPort)
            ),
          );
          if (!verified.includes(true)) {
            throw new ApiError("x509: certificate signed by unknown authority", {
              status: 0,
              reason: "UnknownAuthority",
            });
          }
        }
        return isClusterInfo(request)
          ? await api.transport(request, limits)
          : await forbidden("system:anonymous", request, "only cluster-info is public");
      };
      return Promise.resolve({
        value: new KubeClient({
          server: connection.server,
          transport: anonymous,
          ...client.timing,
        }),
        close: () => {},
      });
    },
    connections,
  };
}
