/**
 * The node side of the kubelet's client-certificate bootstrap: make a key, send a
 * `certificates.k8s.io/v1` CertificateSigningRequest for `system:node:<name>` /
 * `system:nodes` to the `kubernetes.io/kube-apiserver-client-kubelet` signer under the
 * kubelet's deterministic name, and wait until it is approved and signed (upstream
 * `requestNodeCertificate`, client-go `csr.RequestCertificate` / `WaitForCertificate`).
 *
 * The client is whatever the caller authenticates with: the bootstrap token of
 * `bootstrap-kubelet.conf` for a first bootstrap. Approval and signing are the cluster's
 * business (kube-controller-manager's `csrapproving` and `csrsigning` controllers).
 *
 * @module
 */
import type { ObjectMeta } from "kubernetes-types/meta/v1.d.ts";
import { errorMessage, KubeadmError, PkiError } from "../errors.ts";
import type { Clock, Sleep } from "../ports/clock.ts";
import type { KubeClient } from "../kube/client.ts";
import { poll } from "../kube/retry.ts";
import { isAlreadyExists, isNotFound } from "../kube/status.ts";
import { parseCertificatesPEM } from "../pki/cert.ts";
import { createCSR, encodeCSRPEM, parseCSR } from "../pki/csr.ts";
import { encodePrivateKeyPEM, exportSPKI, type KeyPair, samePublicKey } from "../pki/keys.ts";
import { base64Decode, base64Encode } from "../text/base64.ts";
import {
  KUBELET_CLIENT_SIGNER,
  kubeletClientUsages,
  kubeletCsrName,
  nodeCommonName,
  NODES_ORGANIZATION,
} from "./csr_name.ts";

/** A `certificates.k8s.io/v1` CertificateSigningRequest (the fields used here). */
export interface CertificateSigningRequest {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: {
    /** Base64 of the PEM CSR. */
    request: string;
    signerName: string;
    usages?: string[];
    expirationSeconds?: number;
    username?: string;
    groups?: string[];
  };
  status?: {
    conditions?: { type: string; status?: string; reason?: string; message?: string }[];
    /** Base64 of the issued PEM certificate (chain). */
    certificate?: string;
  };
}

/** How long the kubelet waits for its certificate (3600s). */
export const CSR_WAIT_TIMEOUT_MS = 3_600_000;

/** Inputs of {@link requestNodeClientCertificate}. */
export interface NodeCertificateRequestOptions {
  /** Client authenticated as the requester (bootstrap token, or the node itself). */
  client: KubeClient;
  /** The node name (`system:node:<nodeName>`). */
  nodeName: string;
  /** Key to certify (the kubelet makes an ECDSA P-256 key). */
  key: KeyPair;
  clock: Clock;
  sleep: Sleep;
  /** Bound of the wait for the signed certificate (default 1h, as the kubelet). */
  timeoutMs?: number;
  /** Delay between status reads (default 1s). */
  intervalMs?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** The issued credentials. */
export interface NodeClientCertificate {
  /** The CSR object's name (`node-csr-...`). */
  csrName: string;
  /** The issued certificate chain (PEM). */
  certPem: string;
  /** The private key (PEM, `EC PRIVATE KEY` for the default key). Secret. */
  keyPem: string;
}

/** The CSR object the kubelet sends for a key. */
export async function nodeCsrObject(
  nodeName: string,
  key: KeyPair,
): Promise<CertificateSigningRequest> {
  const cn = nodeCommonName(nodeName);
  const csr = await createCSR({ commonName: cn, organization: [NODES_ORGANIZATION] }, key);
  const usages = kubeletClientUsages(key.spec);
  return {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name: kubeletCsrName(csr.spki, cn, [NODES_ORGANIZATION], usages) },
    spec: {
      request: base64Encode(new TextEncoder().encode(encodeCSRPEM(csr))),
      signerName: KUBELET_CLIENT_SIGNER,
      usages,
    },
  };
}

/**
 * An existing CSR of the same name is reused only when it asks for the same thing with the
 * same key (client-go `ensureCompatible`).
 */
async function ensureCompatible(
  existing: CertificateSigningRequest,
  wanted: CertificateSigningRequest,
  key: KeyPair,
): Promise<void> {
  let existingCsr;
  try {
    existingCsr = parseCSR(new TextDecoder().decode(base64Decode(existing.spec.request)));
  } catch (e) {
    throw new KubeadmError(`retrieved csr is not compatible: ${errorMessage(e)}`, { cause: e });
  }
  const wantedCsr = parseCSR(new TextDecoder().decode(base64Decode(wanted.spec.request)));
  const problems: string[] = [];
  if (existingCsr.subject.commonName !== wantedCsr.subject.commonName) {
    problems.push("csr subjects differ");
  }
  if (!(await samePublicKey(existingCsr.spki, await exportSPKI(key)))) {
    problems.push("csr public key does not match the private key");
  }
  if (existing.spec.signerName !== wanted.spec.signerName) {
    problems.push(
      `csr signerNames differ: ${existing.spec.signerName} != ${wanted.spec.signerName}`,
    );
  }
  const a = [...(existing.spec.usages ?? [])].sort().join(",");
  const b = [...(wanted.spec.usages ?? [])].sort().join(",");
  if (a !== b) problems.push(`csr usages differ: ${a} != ${b}`);
  if (problems.length > 0) {
    throw new KubeadmError(`retrieved csr is not compatible: ${problems.join(", ")}`);
  }
}

function condition(csr: CertificateSigningRequest, type: string) {
  return csr.status?.conditions?.find((c) => c.type === type && (c.status ?? "True") === "True");
}

/**
 * Sends the kubelet's CSR (or finds the one an earlier attempt sent with the same key) and
 * waits for the signed certificate. Throws when the request is denied or fails, or on timeout.
 */
export async function requestNodeClientCertificate(
  o: NodeCertificateRequestOptions,
): Promise<NodeClientCertificate> {
  const log = o.log ?? (() => {});
  const key = o.key;
  const wanted = await nodeCsrObject(o.nodeName, key);
  const name = wanted.metadata!.name!;
  try {
    await o.client.create(wanted);
    log(`[tls-bootstrap] Sent certificate signing request ${JSON.stringify(name)}`);
  } catch (e) {
    if (!isAlreadyExists(e)) {
      throw new KubeadmError(`cannot create certificate signing request: ${errorMessage(e)}`, {
        cause: e,
      });
    }
    const existing = await o.client.get<CertificateSigningRequest>({
      kind: "CertificateSigningRequest",
      name,
    });
    await ensureCompatible(existing, wanted, key);
    log(`[tls-bootstrap] Reusing the certificate signing request ${JSON.stringify(name)}`);
  }
  log("[tls-bootstrap] Waiting for the client certificate to be issued");
  let fatal: KubeadmError | undefined;
  const issued = await poll<string>(async (window) => {
    let csr: CertificateSigningRequest;
    try {
      csr = await o.client.get<CertificateSigningRequest>({
        kind: "CertificateSigningRequest",
        name,
      }, window.limits());
    } catch (e) {
      if (isNotFound(e)) {
        throw fatal = new KubeadmError(
          `certificate signing request ${JSON.stringify(name)} was deleted before it was signed`,
          { cause: e },
        );
      }
      return { done: false, error: e };
    }
    for (const type of ["Denied", "Failed"]) {
      const c = condition(csr, type);
      if (c) {
        throw fatal = new KubeadmError(
          `certificate signing request is ${type === "Denied" ? "denied" : "failed"}, reason: ${
            c.reason ?? ""
          }, message: ${c.message ?? ""}`,
          {
            hint: "check kube-controller-manager's csrapproving controller and RBAC for the token",
          },
        );
      }
    }
    if (condition(csr, "Approved") && csr.status?.certificate) {
      return { done: true, value: csr.status.certificate };
    }
    return {
      done: false,
      error: new KubeadmError(
        condition(csr, "Approved")
          ? `certificate signing request ${JSON.stringify(name)} is approved but not signed yet`
          : `certificate signing request ${JSON.stringify(name)} is not approved yet`,
      ),
    };
  }, {
    clock: o.clock,
    sleep: o.sleep,
    intervalMs: o.intervalMs ?? 1_000,
    timeoutMs: o.timeoutMs ?? CSR_WAIT_TIMEOUT_MS,
  }).catch((e) => {
    throw e === fatal ? e : new KubeadmError(
      `certificate request was not signed: ${errorMessage(e)}`,
      {
        cause: e,
        hint: "kube-controller-manager must run with the csrapproving and csrsigning controllers",
      },
    );
  });
  const certPem = new TextDecoder().decode(base64Decode(issued));
  let leaf;
  try {
    leaf = parseCertificatesPEM(certPem)[0];
  } catch (e) {
    throw new PkiError(`the issued certificate cannot be parsed: ${errorMessage(e)}`, {
      cause: e,
    });
  }
  if (!(await samePublicKey(leaf.spki, await exportSPKI(key)))) {
    throw new PkiError("the issued certificate does not match the private key");
  }
  return { csrName: name, certPem, keyPem: await encodePrivateKeyPEM(key) };
}
