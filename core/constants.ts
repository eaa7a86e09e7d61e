/**
 * Upstream kubeadm's constants: paths, file names, ports, identities, versions.
 *
 * Values mirror `cmd/kubeadm/app/constants/constants.go` of kubeadm v1.37. The versions (the
 * kubeadm release we match, and what depends on the target minor) are in `versions.ts`.
 *
 * @module
 */

/** Default image registry. */
export const DEFAULT_IMAGE_REPOSITORY = "registry.k8s.io";

/** `/etc/kubernetes`. */
export const KUBERNETES_DIR = "/etc/kubernetes";
/** Static Pod manifests directory. */
export const MANIFESTS_DIR = "/etc/kubernetes/manifests";
/** kubeadm's temp dir. */
export const KUBEADM_TMP_DIR = "/etc/kubernetes/tmp";
/** The kubelet's working directory. */
export const KUBELET_RUN_DIR = "/var/lib/kubelet";
/** Default local etcd data directory. */
export const DEFAULT_ETCD_DATA_DIR = "/var/lib/etcd";
/** The etcd data directory's mode, when kubeadm creates it (upstream's `CreateDataDirectory`). */
export const ETCD_DATA_DIR_MODE = 0o700;
/** KubeletConfiguration written by kubelet-start. */
export const KUBELET_CONFIG_FILE = "/var/lib/kubelet/config.yaml";
/** Environment file with the kubelet's flags. */
export const KUBELET_ENV_FILE = "/var/lib/kubelet/kubeadm-flags.env";
/** Default kubelet PKI dir. */
export const KUBELET_PKI_DIR = "/var/lib/kubelet/pki";

/** Kubeconfig file names in `/etc/kubernetes`. */
export const KubeconfigFile = {
  admin: "admin.conf",
  superAdmin: "super-admin.conf",
  kubelet: "kubelet.conf",
  bootstrapKubelet: "bootstrap-kubelet.conf",
  controllerManager: "controller-manager.conf",
  scheduler: "scheduler.conf",
} as const;

/** Control-plane component names (also the static Pod and manifest names). */
export const Component = {
  apiServer: "kube-apiserver",
  controllerManager: "kube-controller-manager",
  scheduler: "kube-scheduler",
  etcd: "etcd",
} as const;

/** Default API server port. */
export const DEFAULT_API_SERVER_PORT = 6443;
/** etcd client port. */
export const ETCD_CLIENT_PORT = 2379;
/** etcd peer port. */
export const ETCD_PEER_PORT = 2380;
/** etcd metrics/health port. */
export const ETCD_METRICS_PORT = 2381;
/** kubelet API port. */
export const KUBELET_PORT = 10250;
/** kubelet healthz port. */
export const KUBELET_HEALTHZ_PORT = 10248;
/** kube-controller-manager secure port. */
export const CONTROLLER_MANAGER_PORT = 10257;
/** kube-scheduler secure port. */
export const SCHEDULER_PORT = 10259;

/** Default service CIDR. */
export const DEFAULT_SERVICE_SUBNET = "10.96.0.0/12";
/** Default DNS domain. */
export const DEFAULT_DNS_DOMAIN = "cluster.local";
/** Default cluster name. */
export const DEFAULT_CLUSTER_NAME = "kubernetes";
/** Default CRI socket. */
export const DEFAULT_CRI_SOCKET = "unix:///var/run/containerd/containerd.sock";

/** Default validity of leaf certificates (1 year). */
export const CERT_VALIDITY_HOURS = 8760;
/** Default validity of CA certificates (10 years). */
export const CA_CERT_VALIDITY_HOURS = 87600;
/** NotBefore backdating applied to every certificate. */
export const CERT_BACKDATE_MS = 5 * 60 * 1000;

/** Well-known identities and groups. */
export const Identity = {
  adminUser: "kubernetes-admin",
  superAdminUser: "kubernetes-super-admin",
  clusterAdminsGroup: "kubeadm:cluster-admins",
  mastersGroup: "system:masters",
  nodesGroup: "system:nodes",
  nodeUserPrefix: "system:node:",
  controllerManagerUser: "system:kube-controller-manager",
  schedulerUser: "system:kube-scheduler",
  bootstrapDefaultGroup: "system:bootstrappers:kubeadm:default-node-token",
  apiServerKubeletClientUser: "kube-apiserver-kubelet-client",
} as const;

/** ClusterRoleBinding granting the API server's kubelet client the kubelet API (v1.37+). */
export const KUBELET_API_ADMIN_CLUSTER_ROLE_BINDING = "kubeadm:apiserver-kubelet-client";
/** The ClusterRole that binding refers to. */
export const KUBELET_API_ADMIN_CLUSTER_ROLE = "system:kubelet-api-admin";

/** Control-plane node label and taint key. */
export const CONTROL_PLANE_LABEL = "node-role.kubernetes.io/control-plane";
/** Label that excludes control-plane nodes from external load balancers. */
export const EXCLUDE_LB_LABEL = "node.kubernetes.io/exclude-from-external-load-balancers";
/** Pod annotation carrying the API server's advertise endpoint. */
export const API_SERVER_ENDPOINT_ANNOTATION =
  "kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint";
/** Pod annotation carrying etcd's client URLs. */
export const ETCD_ENDPOINT_ANNOTATION = "kubeadm.kubernetes.io/etcd.advertise-client-urls";

/** Default health-check and API timeouts, in milliseconds (v1beta4 `timeouts`). */
export const DefaultTimeouts = {
  controlPlaneComponentHealthCheck: 4 * 60_000,
  kubeletHealthCheck: 4 * 60_000,
  kubernetesAPICall: 60_000,
  etcdAPICall: 2 * 60_000,
  tlsBootstrap: 5 * 60_000,
  discovery: 5 * 60_000,
  upgradeManifests: 5 * 60_000,
} as const;

/** Registry for control-plane images when `kubernetesVersion` is a CI build (`ci/...`). */
export const DEFAULT_CI_IMAGE_REPOSITORY = "gcr.io/k8s-staging-ci-images";
/** Per-node kubelet config (the CRI socket), written by every kubelet-start. */
export const KUBELET_INSTANCE_CONFIG_FILE = "/var/lib/kubelet/instance-config.yaml";
/** The one variable in `kubeadm-flags.env`. */
export const KUBELET_ENV_VARIABLE = "KUBELET_KUBEADM_ARGS";
/** Name of the container port every static Pod probe refers to (v1.34+). */
export const PROBE_PORT_NAME = "probe-port";

/** Default `kubernetesVersion` label (resolved offline to kubeadm's own version). */
export const DEFAULT_KUBERNETES_VERSION_LABEL = "stable-1";
/** Smallest service subnet kubeadm accepts, in addresses. */
export const MIN_ADDRESSES_IN_SERVICE_SUBNET = 10;
/** Largest service subnet kubeadm accepts, in host bits (`/12` IPv4, `/108` IPv6). */
export const MAX_BITS_FOR_SERVICE_SUBNET = 20;
/** Smallest pod subnet kubeadm accepts, in addresses. */
export const MIN_ADDRESSES_IN_POD_SUBNET = 14;
/** Largest allowed difference between the pod subnet mask and the node CIDR mask. */
export const POD_SUBNET_NODE_MASK_MAX_DIFF = 16;
/** Size in bytes of the upload-certs certificate key (AES-256). */
export const CERTIFICATE_KEY_SIZE = 32;

/** Namespace of the `cluster-info` ConfigMap. */
export const KUBE_PUBLIC_NAMESPACE = "kube-public";
/** The ConfigMap anonymous clients read during token discovery. */
export const CLUSTER_INFO_CONFIGMAP = "cluster-info";
/** Key of the signed kubeconfig in `cluster-info`. */
export const CLUSTER_INFO_KUBECONFIG_KEY = "kubeconfig";
/** Prefix of the per-token JWS signature keys in `cluster-info` (`jws-kubeconfig-<id>`). */
export const JWS_SIGNATURE_KEY_PREFIX = "jws-kubeconfig-";
/**
 * Interval between discovery attempts, token and file discovery alike: 1s, where upstream's
 * `DiscoveryRetryInterval` is 5s, so that a join started with its control plane (a fleet
 * booted at once) goes on within a second of the API server serving a signed cluster-info. A
 * failed attempt is a refused connect or one small anonymous GET on a kept connection; a server
 * that asks for longer (`Retry-After`) gets longer.
 */
export const DISCOVERY_RETRY_INTERVAL_MS = 1_000;
/**
 * Deadline of one discovery request (connect, TLS, headers and body); never past the overall
 * `timeouts.discovery`.
 */
export const DISCOVERY_REQUEST_TIMEOUT_MS = 10_000;
/**
 * Largest discovery response body accepted: a ConfigMap cannot exceed etcd's default request
 * limit (1.5 MiB), so a bigger answer is not cluster-info.
 */
export const DISCOVERY_MAX_BODY_BYTES = 2 * 1024 * 1024;
/** User of the TLS-bootstrap kubeconfig written to `bootstrap-kubelet.conf`. */
export const TLS_BOOTSTRAP_USER = "tls-bootstrap-token-user";
/**
 * The `init` and `join` phase that installs the certificate auto-renewal schedule (run alone, it
 * installs it unasked; beyond upstream). Here, not in `certs/auto_renewal.ts`, so that a run
 * that does not ask for the schedule can tell so without loading that module.
 */
export const AUTO_RENEWAL_PHASE = "certs-auto-renewal";
