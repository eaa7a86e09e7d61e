/**
 * `cluster-info` for library callers: signing it as the bootstrap signer does, checking its
 * signatures and CA bundle, the offline verdict. The core's functions with the library's
 * crypto port (`./adapters.ts`) where the caller passes none.
 *
 * @module
 */
import type { ConfigMap } from "kubernetes-types/core/v1.d.ts";
import type { Hashing } from "../core/ports/crypto.ts";
import type { Certificate } from "../core/pki/cert.ts";
import * as jws from "../core/discovery/jws.ts";
import * as signer from "../core/cluster/cluster_info.ts";
import * as discovery from "../core/discovery/cluster_info.ts";
import type { ClusterInfoConfigMap } from "../core/discovery/cluster_info.ts";
import * as caBundle from "../core/discovery/ca_bundle.ts";
import type { CaCertSummary } from "../core/discovery/ca_bundle.ts";
import * as verdict from "../core/discovery/verdict.ts";
import type { DiscoveryVerdict, VerdictInput } from "../core/discovery/verdict.ts";
import { webHashing } from "./adapters.ts";

/**
 * Computes the detached signature `<header>..<mac>` of `content` (the cluster-info
 * `kubeconfig` value) for the token `<tokenId>.<tokenSecret>`.
 */
export function computeDetachedSignature(
  content: string,
  tokenId: string,
  tokenSecret: string,
  crypto: Hashing = webHashing,
): Promise<string> {
  return jws.computeDetachedSignature(content, tokenId, tokenSecret, crypto);
}

/**
 * Whether `detachedToken` is the signature of `content` for the token: recomputes it and
 * compares the whole string (any extra character, other header order or padding fails).
 */
export function detachedTokenIsValid(
  detachedToken: string,
  content: string,
  tokenId: string,
  tokenSecret: string,
  crypto: Hashing = webHashing,
): Promise<boolean> {
  return jws.detachedTokenIsValid(detachedToken, content, tokenId, tokenSecret, crypto);
}

/**
 * `cluster-info` signed as the bootstrap signer (kube-controller-manager) signs it: one
 * `jws-kubeconfig-<id>` entry per token, over the `kubeconfig` value. Existing entries stay.
 */
export function signClusterInfo(
  clusterInfo: ConfigMap,
  tokens: readonly string[],
  crypto: Hashing = webHashing,
): Promise<ConfigMap> {
  return signer.signClusterInfo(clusterInfo, tokens, crypto);
}

/**
 * Checks the signature of the ConfigMap's kubeconfig for the token and returns the signed
 * kubeconfig text. Throws upstream's errors: no `kubeconfig` key, no signature for the token
 * id, or a signature that does not verify.
 */
export function validateClusterInfoToken(
  cm: ClusterInfoConfigMap,
  tokenId: string,
  tokenSecret: string,
  crypto: Hashing = webHashing,
): Promise<string> {
  return discovery.validateClusterInfoToken(cm, tokenId, tokenSecret, crypto);
}

/** Summarises one parsed certificate. */
export function summarizeCertificate(
  cert: Certificate,
  crypto: Hashing = webHashing,
): Promise<CaCertSummary> {
  return caBundle.summarizeCertificate(cert, crypto);
}

/** Summarises every certificate of a PEM bundle (throws when there is none). */
export function summarizeCaBundle(
  pem: string,
  crypto: Hashing = webHashing,
): Promise<CaCertSummary[]> {
  return caBundle.summarizeCaBundle(pem, crypto);
}

/**
 * Checks a cluster-info ConfigMap against a token and CA hashes without any network, `crypto`
 * (default WebCrypto) checking the JWS signature and computing the pins. Never throws for bad
 * input: problems become a `rejected` verdict with the failing check.
 */
export function checkClusterInfo(
  input: VerdictInput,
  crypto: Hashing = webHashing,
): Promise<DiscoveryVerdict> {
  return verdict.checkClusterInfo(input, crypto);
}
