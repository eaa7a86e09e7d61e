/**
 * The kubeadm configuration API, `kubeadm.k8s.io/v1beta4`, as TypeScript types.
 *
 * Field names and JSON shapes are upstream's (`cmd/kubeadm/app/apis/kubeadm/v1beta4/types.go`)
 * so documents round-trip unchanged. Durations stay in their Go string form (`24h0m0s`).
 * The {@link ResolvedConfig} at the end is what the core works with after parsing,
 * defaulting and validation: every field filled in.
 *
 * @module
 */
import type { EnvVar } from "kubernetes-types/core/v1.d.ts";
import type { BootstrapToken } from "../bootstraptoken/token.ts";

/** `kubeadm.k8s.io/v1beta4`. */
export const KUBEADM_API_VERSION = "kubeadm.k8s.io/v1beta4";
/** `kubelet.config.k8s.io/v1beta1`. */
export const KUBELET_API_VERSION = "kubelet.config.k8s.io/v1beta1";
/** `kubeproxy.config.k8s.io/v1alpha1`. */
export const KUBEPROXY_API_VERSION = "kubeproxy.config.k8s.io/v1alpha1";

/** A `{name, value}` command-line argument (v1beta4 `extraArgs`). */
export interface Arg {
  name: string;
  value: string;
}

/** A hostPath volume added to a static Pod (`extraVolumes`). */
export interface HostPathMount {
  name: string;
  hostPath: string;
  mountPath: string;
  readOnly?: boolean;
  pathType?: string;
}

/** Settings shared by the control-plane components. */
export interface ControlPlaneComponent {
  extraArgs?: Arg[];
  extraVolumes?: HostPathMount[];
  extraEnvs?: EnvVar[];
}

/** `apiServer` section. */
export interface APIServer extends ControlPlaneComponent {
  certSANs?: string[];
}

/** `etcd.local`. */
export interface LocalEtcd {
  imageRepository?: string;
  imageTag?: string;
  dataDir?: string;
  extraArgs?: Arg[];
  extraEnvs?: EnvVar[];
  serverCertSANs?: string[];
  peerCertSANs?: string[];
}

/** `etcd.external`. */
export interface ExternalEtcd {
  /** gRPC endpoints (the API server's `--etcd-servers`). */
  endpoints: string[];
  /** HTTP endpoints for health and version checks; default: `endpoints` (v1.35+). */
  httpEndpoints?: string[];
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

/** `etcd` section: local XOR external. */
export interface Etcd {
  local?: LocalEtcd;
  external?: ExternalEtcd;
}

/** `networking` section. */
export interface Networking {
  serviceSubnet?: string;
  podSubnet?: string;
  dnsDomain?: string;
}

/** `dns` section. */
export interface DNS {
  imageRepository?: string;
  imageTag?: string;
  disabled?: boolean;
}

/** `proxy` section. */
export interface Proxy {
  disabled?: boolean;
}

/** Key algorithm for every generated key. */
export type EncryptionAlgorithm =
  | "RSA-2048"
  | "RSA-3072"
  | "RSA-4096"
  | "ECDSA-P256"
  | "ECDSA-P384";

/** All accepted {@link EncryptionAlgorithm} values, in upstream's order. */
export const ENCRYPTION_ALGORITHMS: readonly EncryptionAlgorithm[] = [
  "ECDSA-P256",
  "ECDSA-P384",
  "RSA-2048",
  "RSA-3072",
  "RSA-4096",
];

/** `ClusterConfiguration`. */
export interface ClusterConfiguration {
  apiVersion?: string;
  kind?: "ClusterConfiguration";
  etcd?: Etcd;
  networking?: Networking;
  kubernetesVersion?: string;
  controlPlaneEndpoint?: string;
  apiServer?: APIServer;
  controllerManager?: ControlPlaneComponent;
  scheduler?: ControlPlaneComponent;
  dns?: DNS;
  proxy?: Proxy;
  certificatesDir?: string;
  imageRepository?: string;
  featureGates?: Record<string, boolean>;
  clusterName?: string;
  encryptionAlgorithm?: EncryptionAlgorithm;
  certificateValidityPeriod?: string;
  caCertificateValidityPeriod?: string;
}

/** A Kubernetes taint. */
export interface Taint {
  key: string;
  value?: string;
  effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
  timeAdded?: string;
}

/** `nodeRegistration`. */
export interface NodeRegistrationOptions {
  name?: string;
  criSocket?: string;
  /** `null`/absent means the default control-plane taint; `[]` means none. */
  taints?: Taint[] | null;
  kubeletExtraArgs?: Arg[];
  ignorePreflightErrors?: string[];
  imagePullPolicy?: "Always" | "IfNotPresent" | "Never";
  imagePullSerial?: boolean;
}

/** `localAPIEndpoint`. */
export interface APIEndpoint {
  advertiseAddress?: string;
  bindPort?: number;
}

/** A bootstrap token in `bootstrapTokens` (declared with the token format it carries). */
export type { BootstrapToken } from "../bootstraptoken/token.ts";

/** `patches`. */
export interface Patches {
  directory?: string;
}

/** `timeouts` (Go duration strings). */
export interface Timeouts {
  controlPlaneComponentHealthCheck?: string;
  kubeletHealthCheck?: string;
  kubernetesAPICall?: string;
  etcdAPICall?: string;
  tlsBootstrap?: string;
  discovery?: string;
  upgradeManifests?: string;
}

/** `InitConfiguration`. */
export interface InitConfiguration {
  apiVersion?: string;
  kind?: "InitConfiguration";
  bootstrapTokens?: BootstrapToken[];
  dryRun?: boolean;
  nodeRegistration?: NodeRegistrationOptions;
  localAPIEndpoint?: APIEndpoint;
  certificateKey?: string;
  skipPhases?: string[];
  patches?: Patches;
  timeouts?: Timeouts;
}

/** `discovery.bootstrapToken` of a JoinConfiguration. */
export interface BootstrapTokenDiscovery {
  token?: string;
  apiServerEndpoint?: string;
  caCertHashes?: string[];
  unsafeSkipCAVerification?: boolean;
}

/** `discovery.file` of a JoinConfiguration. */
export interface FileDiscovery {
  kubeConfigPath?: string;
}

/** `discovery` of a JoinConfiguration. */
export interface Discovery {
  bootstrapToken?: BootstrapTokenDiscovery;
  file?: FileDiscovery;
  tlsBootstrapToken?: string;
}

/** `controlPlane` of a JoinConfiguration. */
export interface JoinControlPlane {
  localAPIEndpoint?: APIEndpoint;
  certificateKey?: string;
}

/** `JoinConfiguration` (recognized by the config loader; `kubeadm join` owns its defaults). */
export interface JoinConfiguration {
  apiVersion?: string;
  kind?: "JoinConfiguration";
  dryRun?: boolean;
  nodeRegistration?: NodeRegistrationOptions;
  caCertPath?: string;
  discovery?: Discovery;
  controlPlane?: JoinControlPlane;
  skipPhases?: string[];
  patches?: Patches;
  timeouts?: Timeouts;
}

/** `ResetConfiguration`. */
export interface ResetConfiguration {
  apiVersion?: string;
  kind?: "ResetConfiguration";
  cleanupTmpDir?: boolean;
  certificatesDir?: string;
  criSocket?: string;
  dryRun?: boolean;
  force?: boolean;
  ignorePreflightErrors?: string[];
  skipPhases?: string[];
  unmountFlags?: string[];
  timeouts?: Timeouts;
}

/** `UpgradeConfiguration` (kept loosely typed: only recognized by the init loader). */
export type UpgradeConfiguration = Record<string, unknown> & {
  apiVersion?: string;
  kind?: "UpgradeConfiguration";
};

/** A KubeletConfiguration document (kept loosely typed: kubelet owns its schema). */
export type KubeletConfiguration = Record<string, unknown> & {
  apiVersion?: string;
  kind?: "KubeletConfiguration";
};

/** A KubeProxyConfiguration document (kept loosely typed: kube-proxy owns its schema). */
export type KubeProxyConfiguration = Record<string, unknown> & {
  apiVersion?: string;
  kind?: "KubeProxyConfiguration";
};

/** A bootstrap token after defaulting: its value, usages and groups are always set. */
export interface ResolvedBootstrapToken extends BootstrapToken {
  token: string;
  usages: string[];
  groups: string[];
}

/** `nodeRegistration` after defaulting (init and join alike). */
export interface ResolvedNodeRegistration extends NodeRegistrationOptions {
  name: string;
  criSocket: string;
  /** Resolved taints: the control-plane taint when the user left `taints` unset. */
  taints: Taint[];
  imagePullPolicy: "Always" | "IfNotPresent" | "Never";
  imagePullSerial: boolean;
}

/** A node's API server endpoint after defaulting. */
export interface ResolvedAPIEndpoint {
  advertiseAddress: string;
  bindPort: number;
}

/** An InitConfiguration after static and dynamic defaulting. */
export interface ResolvedInitConfiguration extends InitConfiguration {
  apiVersion: string;
  kind: "InitConfiguration";
  bootstrapTokens: ResolvedBootstrapToken[];
  nodeRegistration: ResolvedNodeRegistration;
  localAPIEndpoint: ResolvedAPIEndpoint;
  timeouts: Required<Timeouts>;
}

/** A ClusterConfiguration after defaulting (and Kubernetes version resolution). */
export interface ResolvedClusterConfiguration extends ClusterConfiguration {
  apiVersion: string;
  kind: "ClusterConfiguration";
  etcd: Etcd;
  networking: { serviceSubnet: string; podSubnet?: string; dnsDomain: string };
  kubernetesVersion: string;
  apiServer: APIServer;
  controllerManager: ControlPlaneComponent;
  scheduler: ControlPlaneComponent;
  dns: DNS;
  proxy: Proxy;
  certificatesDir: string;
  imageRepository: string;
  clusterName: string;
  encryptionAlgorithm: EncryptionAlgorithm;
  certificateValidityPeriod: string;
  caCertificateValidityPeriod: string;
}

/**
 * A fully parsed, defaulted and validated configuration of one node in one cluster: what
 * `init` resolves from its flags and file, and what `join` (and later `upgrade`) resolve from
 * the cluster's stored configuration for this node. Every field the core reads is set; it is
 * produced once, by `resolveInitConfig`.
 */
export interface ResolvedConfig {
  init: ResolvedInitConfiguration;
  cluster: ResolvedClusterConfiguration;
  /** The KubeletConfiguration after kubeadm's defaults (component config). */
  kubelet: KubeletConfiguration;
  /** The KubeProxyConfiguration after kubeadm's defaults (component config). */
  kubeProxy: KubeProxyConfiguration;
  /** Whether the user supplied the component configs (affects the hash annotation). */
  userSupplied: { kubelet: boolean; kubeProxy: boolean };
  /** `--upload-certs`: upload the control-plane certificates (then `certificateKey` is set). */
  uploadCerts: boolean;
}
