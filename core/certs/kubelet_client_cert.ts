/**
 * A new client certificate for a node's kubelet, obtained the way the kubelet's own rotation
 * obtains one: a `kubernetes.io/kube-apiserver-client-kubelet` CertificateSigningRequest for
 * `system:node:<name>` (group `system:nodes`) made with the kubelet's current credentials, which
 * the controller-manager approves (kubeadm's `selfnodeclient` auto-approval binding) and signs
 * with the cluster's current signer. A CA rotation uses it so the kubelets move to the new CA
 * without waiting for their certificates to age; the result is stored as the kubelet stores its
 * own (`kubelet-client-<time>.pem`, certificate then key, `kubelet-client-current.pem` pointing
 * at it).
 *
 * @module
 */
import type { CertificateSigningRequest } from "kubernetes-types/certificates/v1.d.ts";
import type { CryptoPort } from "../ports/crypto.ts";
import type { RandomSource } from "../ports/random.ts";
import { KubeadmError } from "../errors.ts";
import type { KubeClient } from "../kube/client.ts";
import { poll } from "../kube/retry.ts";
import { type Certificate, encodeCertificatePEM, parseCertificatesPEM } from "../pki/cert.ts";
import { createCSR, encodeCSRPEM } from "../pki/csr.ts";
import { encodePrivateKeyPEM, generateKeyPair } from "../pki/keys.ts";
import { base64Decode, base64Encode } from "../text/base64.ts";
import { utf8 } from "../text/utf8.ts";
import { formatDuration } from "../text/duration.ts";

/** The signer of kubelet client certificates. */
export const KUBELET_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet";

/** What {@link requestKubeletClientCert} needs. */
export interface KubeletClientCertRequest {
  /** A client authenticated as the node (its kubelet's credentials). */
  client: KubeClient;
  nodeName: string;
  crypto: CryptoPort;
  random: RandomSource;
  /** How long the approval and signature may take. */
  timeoutMs: number;
}

/** A signed kubelet client certificate and the PEM file the kubelet reads (cert, then key). */
export interface KubeletClientCert {
  cert: Certificate;
  pem: string;
}

/**
 * Requests, waits for and returns a kubelet client certificate (see the module documentation).
 * Throws when the request is denied or fails, or is not signed within the timeout.
 */
export async function requestKubeletClientCert(
  req: KubeletClientCertRequest,
): Promise<KubeletClientCert> {
  const key = await generateKeyPair("ECDSA-P256", req);
  const csr = await createCSR({
    commonName: `system:node:${req.nodeName}`,
    organization: ["system:nodes"],
  }, key);
  const created = await req.client.create<CertificateSigningRequest>({
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: {
      name: `kubeadm-kubelet-client-${req.nodeName}-${
        Array.from(req.random.bytes(4), (b) => b.toString(16).padStart(2, "0")).join("")
      }`,
    },
    spec: {
      request: base64Encode(new TextEncoder().encode(encodeCSRPEM(csr))),
      signerName: KUBELET_CLIENT_SIGNER,
      usages: ["digital signature", "client auth"],
    },
  });
  const name = created.metadata?.name ?? "";
  let last = "not approved yet";
  const issued = await poll<string>(async (window) => {
    const got = await req.client.get<CertificateSigningRequest>(
      { kind: "CertificateSigningRequest", name },
      window.limits(),
    );
    const bad = got.status?.conditions?.find((c) => c.type === "Denied" || c.type === "Failed");
    if (bad) {
      throw new KubeadmError(
        `the kubelet client certificate request ${name} was ${bad.type.toLowerCase()}: ${
          bad.message ?? bad.reason ?? ""
        }`,
        {
          hint:
            "kubeadm binds system:nodes to the selfnodeclient auto-approval (ClusterRoleBinding kubeadm:node-autoapprove-certificate-rotation); check it exists",
        },
      );
    }
    if (got.status?.certificate) return { done: true, value: got.status.certificate };
    if (got.status?.conditions?.some((c) => c.type === "Approved")) {
      last = "approved, not signed yet";
    }
    return { done: false };
  }, {
    ...req.client.timing,
    intervalMs: 1_000,
    timeoutMs: req.timeoutMs,
    timeoutError: () =>
      new KubeadmError(
        `the kubelet client certificate request ${name} was not signed within ${
          formatDuration(req.timeoutMs)
        }: ${last}`,
        {
          hint:
            "is kube-controller-manager running, with its csrapproving and csrsigning controllers?",
        },
      ),
  });
  const certPEM = utf8(base64Decode(issued));
  const cert = parseCertificatesPEM(certPEM)[0];
  return { cert, pem: encodeCertificatePEM(cert) + await encodePrivateKeyPEM(key) };
}
