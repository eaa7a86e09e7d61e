/**
 * kubeadm-ts as a library: kubeadm's decisions as data, with no I/O.
 *
 * Everything here uses web APIs only (WebCrypto, `TextEncoder`), so it runs unchanged in Deno,
 * Node, Bun, browsers and edge functions (Cloudflare Workers). Time and randomness come in as
 * arguments; results are plain data: files with their paths, modes and contents, Kubernetes
 * objects, PEM text, verdicts.
 *
 * - **Plans**: {@link planControlPlane} (what `kubeadm init` writes on the node and creates in
 *   the cluster), {@link planWorker} and {@link planControlPlaneJoin} (what `kubeadm join`
 *   writes), {@link toCloudInit} (cloud-init user-data that brings the node up). They run
 *   kubeadm's own workflows offline, the same phases as the command line.
 * - **Reproducible plans**: with `random: seededRandom(seed)` and a fixed `clock`, a plan is
 *   byte-identical in every runtime: ECDSA keys are derived from the seed and signatures are
 *   deterministic (RFC 6979) through the {@link deterministicCryptoPort}. RSA keys cannot be
 *   derived from a seed: such a plan fails naming `encryptionAlgorithm` unless the RSA keys
 *   are given (`keys`).
 * - **Day-2 certificates**: {@link planCertificateRenewal} (`kubeadm certs renew`; with
 *   `within`, what the scheduled renewal renews; the restarts in order) and
 *   {@link checkCertificateExpiration} (`kubeadm certs check-expiration`) from the node's
 *   files; {@link planCertificateAutoRenewal} (the renewal schedule's systemd units or OpenRC
 *   script); {@link planCaRotation} (where `kubeadm certs rotate-ca` stands, its steps).
 * - **Upgrades**: {@link planUpgrade} (`kubeadm upgrade plan`): the upgrades kubeadm can make to
 *   a cluster, from its objects or through a transport to its API server.
 * - **Bootstrap tokens** ({@link generateToken}, {@link tokenToSecret}), **cluster-info**
 *   ({@link clusterInfoFor}, {@link signClusterInfo}, {@link checkClusterInfo}) and **CA pins**
 *   ({@link certificatePin}).
 *
 * @example Plan a control plane and a worker, and render cloud-init for both
 * ```ts
 * import { planControlPlane, planWorker, seededRandom, toCloudInit } from "./mod.ts";
 * const cp = await planControlPlane({
 *   config: "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nencryptionAlgorithm: ECDSA-P256\n",
 *   host: { hostname: "cp1", advertiseAddress: "192.0.2.10" },
 *   random: seededRandom("a secret seed of at least 32 bytes, kept like a key"),
 *   clock: { now: () => new Date("2026-01-01T00:00:00Z") },
 * });
 * cp.files; // [{ path: "/etc/kubernetes/pki/ca.key", mode: 0o600, content: "-----BEGIN EC PRIVATE KEY-----…" }, …]
 * cp.joinCommand; // "kubeadm join 192.0.2.10:6443 --token … --discovery-token-ca-cert-hash sha256:…"
 * const worker = await planWorker({
 *   cluster: cp,
 *   host: { hostname: "w1", advertiseAddress: "192.0.2.21" },
 * });
 * const userData = toCloudInit(worker); // "#cloud-config\nwrite_files: …\nruncmd: …"
 * ```
 *
 * @example Check a cluster-info ConfigMap before trusting an API server
 * ```ts
 * import { checkClusterInfo } from "./mod.ts";
 * const verdict = await checkClusterInfo({
 *   clusterInfo: "<kubectl get cm cluster-info -n kube-public -o yaml>",
 *   token: "abcdef.0123456789abcdef",
 *   caCertHashes: ["sha256:…"],
 * });
 * verdict.verdict; // "verified" | "rejected", with the reason and every check
 * ```
 *
 * @module
 */

// Plans: nodes as data.
export {
  type BringUp,
  type ControlPlanePlan,
  type ControlPlanePlanOptions,
  INIT_CONFIG_PATH,
  planControlPlane,
} from "./library/control_plane.ts";
export {
  JOIN_CONFIG_PATH,
  type JoinPlan,
  type JoinPlanOptions,
  planControlPlaneJoin,
  planWorker,
} from "./library/join.ts";
export type { PlanFile, PlanHost, PlanRunOptions } from "./library/node_plan.ts";
export {
  type CloudInitFile,
  cloudInitFile,
  type CloudInitInput,
  type CloudInitOptions,
  toCloudInit,
} from "./library/cloud_init.ts";
export {
  type CertificateAutoRenewalOptions,
  type CertificateAutoRenewalPlan,
  type CertificateExpiration,
  type CertificateExpirationInfo,
  type CertificateFilesInput,
  type CertificateRenewalOptions,
  type CertificateRenewalPlan,
  checkCertificateExpiration,
  planCertificateAutoRenewal,
  planCertificateRenewal,
  type RenewedCertificate,
  type RestartStepPlan,
} from "./library/renewal.ts";
export {
  type CaRotationOptions,
  type CaRotationPlan,
  planCaRotation,
  type RotationStage,
  type RotationStep,
} from "./library/ca_rotation.ts";
export {
  type AvailableUpgrade,
  type ClusterObjects,
  type ClusterTransport,
  type ComponentConfigVersionState,
  type ComponentUpgradePlan,
  planUpgrade,
  type UpgradePlan,
  type UpgradePlanOptions,
  type UpgradePlanResult,
} from "./library/upgrade.ts";
export { RENEWAL_SCHEDULES, type RenewalSchedule } from "./core/certs/auto_renewal.ts";
export type { KubeObject } from "./core/kube/client.ts";
export type { Exchange, Transport, TransportLimits } from "./core/ports/transport.ts";
export type { ConfigMap, Secret } from "kubernetes-types/core/v1.d.ts";
export type {
  FieldsV1,
  ManagedFieldsEntry,
  ObjectMeta,
  OwnerReference,
  Time,
} from "kubernetes-types/meta/v1.d.ts";

// Time, randomness and the crypto port.
export type { Clock } from "./core/ports/clock.ts";
export type { RandomSource } from "./core/ports/random.ts";
export { systemClock, webCryptoPort, webRandom } from "./library/adapters.ts";
export { deterministicCryptoPort } from "./adapters/crypto/noble.ts";
export { seededRandom } from "./adapters/offline/random.ts";
export type {
  CryptoPort,
  EcCurve,
  Hashing,
  HashName,
  KeyPair,
  KeySpec,
  PrivateKeyMaterial,
} from "./core/ports/crypto.ts";
export { encodePrivateKeyPEM } from "./core/pki/keys.ts";
export { generateKeyPair, type KeyOptions, parsePrivateKeyPEM } from "./library/pki.ts";
export type { EncryptionAlgorithm } from "./core/config/types.ts";

// Bootstrap tokens.
export {
  type BootstrapToken,
  generateToken,
  isValidToken,
  parseToken,
  type TokenParts,
} from "./core/bootstraptoken/token.ts";
export { tokenFromSecret, tokenToSecret } from "./core/bootstraptoken/secret.ts";

// cluster-info: build, sign, verify.
export { clusterInfoFor } from "./core/cluster/cluster_info.ts";
export {
  checkClusterInfo,
  computeDetachedSignature,
  detachedTokenIsValid,
  signClusterInfo,
} from "./library/cluster_info.ts";
export { withBootstrapSignatures } from "./library/join.ts";
export type {
  CheckStatus,
  DiscoveryVerdict,
  VerdictCa,
  VerdictCheck,
  VerdictInput,
} from "./core/discovery/verdict.ts";
export type { CaCertSummary } from "./core/discovery/ca_bundle.ts";

// CA pins.
export { certificatePin, pemCertificatePins, PinSet } from "./library/pki.ts";
export type { Certificate } from "./core/pki/cert.ts";
export type { DecodedExtensions, X509KeyUsage } from "./core/pki/extensions.ts";
export type { DistinguishedName, ParsedName } from "./core/pki/name.ts";

// Errors and YAML.
export {
  KubeadmError,
  type KubeadmErrorOptions,
  PkiError,
  UnsupportedAlgorithmError,
} from "./core/errors.ts";
export { type ParsedDocument, parseKubeYaml, toKubeYaml } from "./core/yaml/kube_yaml.ts";
