/**
 * What the kubelet puts in its bootstrap CertificateSigningRequest: subject, usages, signer
 * and the deterministic object name (upstream `pkg/kubelet/certificate/bootstrap`), so a
 * retried bootstrap with the same key finds its earlier request instead of making another.
 *
 * The name is `node-csr-` + base64url (no padding) of SHA-512/256 over, each followed by `|`:
 * base64UrlEncode(PKIX public key DER), base64UrlEncode(CN), base64UrlEncode(each O), base64UrlEncode(each usage).
 *
 * @module
 */
import { Identity } from "../constants.ts";
import type { KeySpec } from "../pki/keys.ts";
import { sha512_256 } from "./sha512_256.ts";
import { base64UrlEncode } from "../text/base64.ts";

/** The signer of kubelet client certificates. */
export const KUBELET_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet";

/** Organization of every node certificate. */
export const NODES_ORGANIZATION = Identity.nodesGroup;

/** A CSR key usage (certificates.k8s.io/v1). */
export type CsrKeyUsage = "digital signature" | "key encipherment" | "client auth";

/** `system:node:<nodeName>`. */
export function nodeCommonName(nodeName: string): string {
  return `${Identity.nodeUserPrefix}${nodeName}`;
}

/**
 * The usages the kubelet requests: digital signature and client auth, plus key encipherment
 * for RSA keys (appended last, as the kubelet does).
 */
export function kubeletClientUsages(spec: KeySpec): CsrKeyUsage[] {
  const usages: CsrKeyUsage[] = ["digital signature", "client auth"];
  if (spec.type === "RSA") usages.push("key encipherment");
  return usages;
}

/** The kubelet's CSR name for a public key (SPKI DER), subject and usages. */
export function kubeletCsrName(
  spki: Uint8Array,
  commonName: string,
  organizations: readonly string[],
  usages: readonly string[],
): string {
  const enc = new TextEncoder();
  const parts: string[] = [
    base64UrlEncode(spki),
    base64UrlEncode(enc.encode(commonName)),
    ...organizations.map((o) => base64UrlEncode(enc.encode(o))),
    ...usages.map((u) => base64UrlEncode(enc.encode(u))),
  ];
  const stream = enc.encode(parts.map((p) => `${p}|`).join(""));
  return `node-csr-${base64UrlEncode(sha512_256(stream))}`;
}
