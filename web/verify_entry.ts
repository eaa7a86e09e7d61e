/**
 * Entry point of `dist/kubeadm-verify.js`: the cluster-info verifier and the discovery helpers
 * alone (no plans, no key generation), small enough for a page or an edge function that only
 * checks. Web APIs only, no file system, no sockets. See `web/README.md` for the API.
 *
 * @module
 */

import {
  type Kubeconfig,
  parseKubeconfig,
  serializeKubeconfig,
} from "../core/kubeconfig/kubeconfig.ts";

// The offline verdict, the JWS on cluster-info, cluster-info parsing.
export { jwsHeaderSegment } from "../core/discovery/jws.ts";
export {
  type ClusterInfoConfigMap,
  hasSignatureFor,
  parseClusterInfo,
  signatureKey,
  signedTokenIds,
  tryParseClusterInfo,
} from "../core/discovery/cluster_info.ts";
export {
  checkClusterInfo,
  computeDetachedSignature,
  detachedTokenIsValid,
  summarizeCaBundle,
  summarizeCertificate,
  validateClusterInfoToken,
} from "../library/cluster_info.ts";
export {
  certificateAuthorityPem,
  clusterFromKubeconfig,
  embedData as encodeKubeconfigData,
  emptyKubeconfig,
  type Kubeconfig,
  type NamedCluster,
} from "../core/kubeconfig/kubeconfig.ts";

/**
 * Kubeconfig text (YAML or JSON) loaded with `clientcmd.Load`'s rules: empty text is an empty
 * config, `*-data` must be base64, `apiVersion` must be `v1`. Throws an `Error` with the reason.
 */
export function loadKubeconfig(text: string): Kubeconfig {
  return parseKubeconfig(text, "kubeconfig", { clientcmd: true });
}

/** A kubeconfig serialised exactly as `clientcmd.Write` does (empty lists as `null`). */
export function writeKubeconfig(config: Kubeconfig): string {
  return serializeKubeconfig(config, { nullEmptyLists: true });
}
export { type CaCertSummary, validateClusterCA } from "../core/discovery/ca_bundle.ts";
export type {
  CheckStatus,
  DiscoveryVerdict,
  VerdictCa,
  VerdictCheck,
  VerdictInput,
} from "../core/discovery/verdict.ts";

// Public-key pins and certificates.
export { certificatePin, PinSet } from "../library/pki.ts";
export { type Certificate, parseCertificate, parseCertificatesPEM } from "../core/pki/cert.ts";
export { formatName } from "../core/pki/name.ts";
export { decodePem, encodePem } from "../core/pki/pem.ts";
export { base64Decode, base64Encode, base64UrlEncode } from "../core/text/base64.ts";

// Bootstrap tokens.
export {
  generateToken,
  isValidToken,
  isValidTokenId,
  parseToken,
  redactToken,
  TOKEN_PATTERN_TEXT,
  type TokenParts,
  tokenSecretName,
} from "../core/bootstraptoken/token.ts";

// Kubernetes-style YAML.
export { parseKubeYaml, parseKubeYamlOne, toKubeYaml } from "../core/yaml/kube_yaml.ts";

// Ports, errors and constants.
export type { Clock } from "../core/ports/clock.ts";
export { systemClock, webRandom } from "../library/adapters.ts";
export {
  ApiError,
  DiscoveryError,
  errorMessage,
  KubeadmError,
  redactSecrets,
} from "../core/errors.ts";
export {
  CLUSTER_INFO_CONFIGMAP,
  CLUSTER_INFO_KUBECONFIG_KEY,
  DISCOVERY_RETRY_INTERVAL_MS,
  JWS_SIGNATURE_KEY_PREFIX,
  KUBE_PUBLIC_NAMESPACE,
  TLS_BOOTSTRAP_USER,
} from "../core/constants.ts";
export { KUBERNETES_VERSION } from "../core/versions.ts";
