/**
 * Which checks `init`, `join`, `join --control-plane` and `reset` run, in upstream's order
 * (kubeadm v1.37: `InitNodeChecks`, `JoinNodeChecks`, `RunRootCheckOnly`, `RunPullImagesCheck`).
 *
 * @module
 */
import type { ResolvedConfig } from "../config/types.ts";
import type { LogFn } from "../ports/printer.ts";
import {
  CONTROLLER_MANAGER_PORT,
  DEFAULT_API_SERVER_PORT,
  DEFAULT_ETCD_DATA_DIR,
  ETCD_CLIENT_PORT,
  ETCD_PEER_PORT,
  KubeconfigFile,
  KUBELET_PORT,
  KUBERNETES_DIR,
  MANIFESTS_DIR,
  SCHEDULER_PORT,
} from "../constants.ts";
import { DEFAULT_CA_CERT_PATH } from "../config/defaults.ts";
import { pauseImage } from "../manifests/images.ts";
import { getArgValue } from "../manifests/arguments.ts";
import { splitHostPort } from "../net/host_port.ts";
import { parseCIDR } from "../net/cidr.ts";
import { parseIP } from "../net/ip.ts";
import { type Check, pathCheckName } from "./check.ts";
import {
  containerRuntimeCheck,
  containerRuntimeVersionCheck,
  controlPlaneImages,
  imagePullCheck,
} from "./checks/container_runtime.ts";
import { linuxExecutableChecks } from "./checks/executables.ts";
import { externalEtcdVersionCheck } from "./checks/external_etcd.ts";
import { hostnameCheck } from "./checks/hostname.ts";
import {
  dirAvailableCheck,
  fileAvailableCheck,
  fileContentCheck,
  fileExistingCheck,
  IPV4_FORWARD,
  IPV6_DEFAULT_FORWARDING,
} from "./checks/paths.ts";
import { portOpenCheck } from "./checks/ports.ts";
import { isPrivilegedUserCheck } from "./checks/privileges.ts";
import { httpProxyCheck, httpProxyCIDRCheck } from "./checks/proxy.ts";
import { memCheck, numCPUCheck } from "./checks/resources.ts";
import { firewalldCheck, serviceCheck } from "./checks/services.ts";
import { swapCheck } from "./checks/swap.ts";
import { systemVerificationCheck } from "./checks/system_verification.ts";
import { kubeletVersionCheck, kubernetesVersionCheck } from "./checks/versions.ts";

const CONTROL_PLANE_MANIFESTS = [
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "etcd",
].map((c) => `${MANIFESTS_DIR}/${c}.yaml`);

/**
 * Every check name any kubeadm command runs with default settings (what
 * `--ignore-preflight-errors` accepts besides `all`). Names that depend on configuration
 * (`Port-<bindPort>`, `DirAvailable-<dataDir>`, `FileAvailable-<caCertPath>`) are added per run.
 */
export const KNOWN_CHECK_NAMES: readonly string[] = [
  "IsPrivilegedUser",
  "NumCPU",
  "Mem",
  "KubernetesVersion",
  "Firewalld",
  `Port-${DEFAULT_API_SERVER_PORT}`,
  `Port-${SCHEDULER_PORT}`,
  `Port-${CONTROLLER_MANAGER_PORT}`,
  ...CONTROL_PLANE_MANIFESTS.map((p) => pathCheckName("FileAvailable", p)),
  "HTTPProxy",
  "HTTPProxyCIDR",
  "CRI",
  "ContainerRuntimeVersion",
  "Swap",
  ...linuxExecutableChecks().map((c) => c.name),
  "SystemVerification",
  "Hostname",
  "KubeletVersion",
  "Service-kubelet",
  `Port-${KUBELET_PORT}`,
  pathCheckName("FileContent", IPV4_FORWARD),
  pathCheckName("FileContent", IPV6_DEFAULT_FORWARDING),
  "ExternalEtcdVersion",
  `Port-${ETCD_CLIENT_PORT}`,
  `Port-${ETCD_PEER_PORT}`,
  pathCheckName("DirAvailable", DEFAULT_ETCD_DATA_DIR),
  "ExternalEtcdClientCertificates",
  pathCheckName("FileAvailable", `${KUBERNETES_DIR}/${KubeconfigFile.kubelet}`),
  pathCheckName("FileAvailable", `${KUBERNETES_DIR}/${KubeconfigFile.bootstrapKubelet}`),
  pathCheckName("FileAvailable", DEFAULT_CA_CERT_PATH),
  "ImagePull",
];

/** The root check every command runs first, on its own. */
export function rootChecks(): Check[] {
  return [isPrivilegedUserCheck()];
}

/**
 * The node checks of `upgrade apply|node` (upstream's `RunUpgradeChecks`): the system judged
 * for the kubelet's next minor, and the container runtime's version.
 */
export function upgradeChecks(criSocket: string): Check[] {
  return [systemVerificationCheck({ isUpgrade: true }), containerRuntimeVersionCheck(criSocket)];
}

/** Checks shared by `init` and `join` (upstream's `addCommonChecks`). */
function commonChecks(kubernetesVersion: string, nodeName: string, criSocket: string): Check[] {
  return [
    containerRuntimeCheck(criSocket),
    containerRuntimeVersionCheck(criSocket),
    swapCheck(),
    ...linuxExecutableChecks(),
    systemVerificationCheck(),
    hostnameCheck(nodeName),
    kubeletVersionCheck(kubernetesVersion),
    serviceCheck("kubelet"),
    portOpenCheck(KUBELET_PORT),
  ];
}

function isIPv4CIDR(s: string): boolean {
  return parseCIDR(s)?.bits === 32;
}

function isIPv6CIDR(s: string): boolean {
  return parseCIDR(s)?.bits === 128;
}

/** Options of {@link initNodeChecks}. */
export interface InitCheckOptions {
  /** Checks for `join --control-plane` (skips the common and forwarding checks). */
  isSecondaryControlPlane?: boolean;
  /** Certificates come from the cluster (`--certificate-key`): skip external etcd file checks. */
  downloadCerts?: boolean;
}

/** The checks of a control-plane node (upstream's `InitNodeChecks`). */
export function initNodeChecks(cfg: ResolvedConfig, opts: InitCheckOptions = {}): Check[] {
  const { init, cluster } = cfg;
  const bindPort = init.localAPIEndpoint.bindPort;
  // v1.37: each port is checked on the address its component will bind, when configured.
  const bindAddress = (args: ResolvedConfig["cluster"]["apiServer"]["extraArgs"]) =>
    getArgValue(args, "bind-address") ?? "";
  const checks: Check[] = [
    numCPUCheck(),
    memCheck(),
    kubernetesVersionCheck(cluster.kubernetesVersion),
    firewalldCheck([bindPort, KUBELET_PORT]),
    portOpenCheck(bindPort, bindAddress(cluster.apiServer.extraArgs)),
    portOpenCheck(SCHEDULER_PORT, bindAddress(cluster.scheduler.extraArgs)),
    portOpenCheck(CONTROLLER_MANAGER_PORT, bindAddress(cluster.controllerManager.extraArgs)),
    ...CONTROL_PLANE_MANIFESTS.map((p) => fileAvailableCheck(p)),
    httpProxyCheck(init.localAPIEndpoint.advertiseAddress),
  ];
  let ipv4 = false;
  let ipv6 = false;
  for (const subnet of [cluster.networking.serviceSubnet, cluster.networking.podSubnet ?? ""]) {
    for (const cidr of subnet.split(",")) {
      if (cidr !== "") checks.push(httpProxyCIDRCheck(cidr));
      ipv4 ||= isIPv4CIDR(cidr);
      ipv6 ||= isIPv6CIDR(cidr);
    }
  }
  if (!opts.isSecondaryControlPlane) {
    checks.push(
      ...commonChecks(
        cluster.kubernetesVersion,
        init.nodeRegistration.name,
        init.nodeRegistration.criSocket,
      ),
    );
    const ip = parseIP(init.localAPIEndpoint.advertiseAddress);
    if (ip) {
      ipv4 ||= ip.length === 4;
      ipv6 ||= ip.length === 16;
    }
    if (ipv4) checks.push(fileContentCheck(IPV4_FORWARD));
    if (ipv6) checks.push(fileContentCheck(IPV6_DEFAULT_FORWARDING));
    if (cluster.etcd.external) checks.push(externalEtcdVersionCheck(cluster.etcd.external));
  }
  if (cluster.etcd.local || !cluster.etcd.external) {
    // etcd listens on the API server's advertise address, not its bind address.
    const etcdAddress = getArgValue(cluster.apiServer.extraArgs, "advertise-address") ||
      init.localAPIEndpoint.advertiseAddress;
    checks.push(
      portOpenCheck(ETCD_CLIENT_PORT, etcdAddress),
      portOpenCheck(ETCD_PEER_PORT, etcdAddress),
      dirAvailableCheck(cluster.etcd.local?.dataDir || DEFAULT_ETCD_DATA_DIR),
    );
  }
  const ext = cluster.etcd.external;
  if (ext && !(opts.isSecondaryControlPlane && opts.downloadCerts)) {
    for (const file of [ext.caFile, ext.certFile, ext.keyFile]) {
      if (file) checks.push(fileExistingCheck(file, "ExternalEtcdClientCertificates"));
    }
  }
  return checks;
}

/** The image pull of a control-plane node (upstream's `RunPullImagesCheck`). */
export function imagePullChecks(cfg: ResolvedConfig, log?: LogFn): Check[] {
  const reg = cfg.init.nodeRegistration;
  return [imagePullCheck({
    socket: reg.criSocket,
    images: controlPlaneImages(cfg.cluster, log),
    sandboxImage: pauseImage(cfg.cluster),
    policy: reg.imagePullPolicy,
    serial: reg.imagePullSerial ?? true,
  })];
}

/** What the join-node checks need from a JoinConfiguration. */
export interface JoinCheckConfig {
  /** `nodeRegistration.name`. */
  nodeName: string;
  /** `nodeRegistration.criSocket`. */
  criSocket: string;
  /** `caCertPath` (default `/etc/kubernetes/pki/ca.crt`). */
  caCertPath: string;
  /** Joining as a control-plane node (`--control-plane` / `controlPlane` set). */
  controlPlane: boolean;
  /** `discovery.bootstrapToken.apiServerEndpoint` (token discovery only). */
  discoveryEndpoint?: string;
}

/** The checks of a joining node (upstream's `JoinNodeChecks`). */
export function joinNodeChecks(cfg: JoinCheckConfig): Check[] {
  const checks: Check[] = [
    fileAvailableCheck(`${KUBERNETES_DIR}/${KubeconfigFile.kubelet}`),
    fileAvailableCheck(`${KUBERNETES_DIR}/${KubeconfigFile.bootstrapKubelet}`),
    ...commonChecks("", cfg.nodeName, cfg.criSocket),
  ];
  if (!cfg.controlPlane) checks.push(fileAvailableCheck(cfg.caCertPath));
  if (cfg.discoveryEndpoint !== undefined) {
    let host: string | undefined;
    try {
      host = splitHostPort(cfg.discoveryEndpoint).host;
    } catch {
      host = undefined;
    }
    if (host !== undefined) {
      checks.push(httpProxyCheck(host));
      const ip = parseIP(host);
      if (ip?.length === 4) checks.push(fileContentCheck(IPV4_FORWARD));
      if (ip?.length === 16) checks.push(fileContentCheck(IPV6_DEFAULT_FORWARDING));
    }
  }
  return checks;
}
