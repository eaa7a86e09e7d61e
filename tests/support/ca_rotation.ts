/**
 * What the CA rotation's tests share: a test CA, cluster-info publishing a bundle, and a fake
 * controller-manager that signs the kubelets' client CSRs on the fake API server.
 *
 * @module
 */
import type { CertificateSigningRequest } from "kubernetes-types/certificates/v1.d.ts";
import type { ConfigMap } from "kubernetes-types/core/v1.d.ts";
import type { CertAndKey } from "../../core/certs/pki_dir.ts";
import {
  type Certificate,
  createSelfSignedCACert,
  createSignedCert,
  encodeCertificatePEM,
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
import type { FakeKubeApi } from "./fake_kube_api.ts";
import { seededRandom } from "./fixed_random.ts";
import { webKeys } from "./platform.ts";

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
