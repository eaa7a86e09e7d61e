/**
 * The KubeProxyConfiguration (`kubeproxy.config.k8s.io/v1alpha1`) kubeadm stores in the
 * `kube-proxy` ConfigMap (`config.conf`).
 *
 * Like the kubelet config, kubeadm marshals the struct without kube-proxy's own defaulting:
 * every non-`omitempty` field appears at its zero value. kubeadm sets `bindAddress`
 * (`0.0.0.0`, or `::` for an IPv6 advertise address), `clusterCIDR` (the pod subnet),
 * `clientConnection.kubeconfig` and, since v1.37, `mode: iptables` when the mode is empty
 * (upstream `componentconfigs/kubeproxy.go`).
 *
 * @module
 */
import { isIP, isIPv4 } from "../net/ip.ts";
import {
  type JsonObject,
  normalizeDurations,
  overlay,
  recommendationWarning,
} from "./component_merge.ts";
import { KUBEPROXY_API_VERSION, type KubeProxyConfiguration } from "./types.ts";

/** kubeconfig path inside the kube-proxy Pod. */
const KUBE_PROXY_KUBECONFIG = "/var/lib/kube-proxy/kubeconfig.conf";
/** Default bind address for an IPv4 advertise address. */
const KUBE_PROXY_BIND_ADDRESS_V4 = "0.0.0.0";
/** Default bind address for an IPv6 advertise address. */
const KUBE_PROXY_BIND_ADDRESS_V6 = "::";
/** The proxy mode kubeadm sets when the user leaves `mode` empty (v1.37). */
const KUBE_PROXY_DEFAULT_MODE = "iptables";

/** The fields upstream always serializes, at their Go zero values. */
function kubeProxySkeleton(): JsonObject {
  return {
    apiVersion: KUBEPROXY_API_VERSION,
    kind: "KubeProxyConfiguration",
    bindAddress: "",
    bindAddressHardFail: false,
    clientConnection: {
      acceptContentTypes: "",
      burst: 0,
      contentType: "",
      kubeconfig: "",
      qps: 0,
    },
    clusterCIDR: "",
    configSyncPeriod: "0s",
    conntrack: {
      maxPerCore: null,
      min: null,
      tcpBeLiberal: false,
      tcpCloseWaitTimeout: null,
      tcpEstablishedTimeout: null,
      udpStreamTimeout: "0s",
      udpTimeout: "0s",
    },
    detectLocal: { bridgeInterface: "", interfaceNamePrefix: "" },
    detectLocalMode: "",
    enableProfiling: false,
    healthzBindAddress: "",
    hostnameOverride: "",
    iptables: {
      localhostNodePorts: null,
      masqueradeAll: false,
      masqueradeBit: null,
      minSyncPeriod: "0s",
      syncPeriod: "0s",
    },
    ipvs: {
      excludeCIDRs: null,
      minSyncPeriod: "0s",
      scheduler: "",
      strictARP: false,
      syncPeriod: "0s",
      tcpFinTimeout: "0s",
      tcpTimeout: "0s",
      udpTimeout: "0s",
    },
    logging: {
      flushFrequency: 0,
      options: { json: { infoBufferSize: "0" }, text: { infoBufferSize: "0" } },
      verbosity: 0,
    },
    metricsBindAddress: "",
    mode: "",
    nftables: { masqueradeAll: false, masqueradeBit: null, minSyncPeriod: "0s", syncPeriod: "0s" },
    nodePortAddresses: null,
    oomScoreAdj: null,
    portRange: "",
    showHiddenMetricsForVersion: "",
    winkernel: {
      enableDSR: false,
      forwardHealthCheckVip: false,
      networkName: "",
      rootHnsEndpointName: "",
      sourceVip: "",
    },
  };
}

const DURATION_FIELDS = [
  "configSyncPeriod",
  "conntrack.tcpCloseWaitTimeout",
  "conntrack.tcpEstablishedTimeout",
  "conntrack.udpStreamTimeout",
  "conntrack.udpTimeout",
  "iptables.minSyncPeriod",
  "iptables.syncPeriod",
  "ipvs.minSyncPeriod",
  "ipvs.syncPeriod",
  "ipvs.tcpFinTimeout",
  "ipvs.tcpTimeout",
  "ipvs.udpTimeout",
  "nftables.minSyncPeriod",
  "nftables.syncPeriod",
];

/** What the kube-proxy defaulting depends on. */
export interface KubeProxyDefaultsInput {
  /** `localAPIEndpoint.advertiseAddress` (selects the IPv4 or IPv6 bind address). */
  advertiseAddress?: string;
  /** `networking.podSubnet`. */
  podSubnet?: string;
}

/** The wildcard bind address of an address's family (`0.0.0.0`, else `::`). */
function kubeProxyBindAddress(advertiseAddress: string | undefined): string {
  // IPv4-mapped IPv6 addresses count as IPv4 (Go: `To4() != nil`).
  return advertiseAddress && isIPv4(advertiseAddress)
    ? KUBE_PROXY_BIND_ADDRESS_V4
    : KUBE_PROXY_BIND_ADDRESS_V6;
}

/**
 * The defaulted KubeProxyConfiguration and the warnings for user values that differ from
 * kubeadm's recommendations. `user` is the user's document, or `undefined`.
 */
export function defaultKubeProxyConfiguration(
  user: KubeProxyConfiguration | undefined,
  input: KubeProxyDefaultsInput,
): { config: KubeProxyConfiguration; warnings: string[] } {
  const kind = "KubeProxyConfiguration";
  const warnings: string[] = [];
  const warn = (field: string, recommended: unknown, provided: unknown) =>
    warnings.push(recommendationWarning(kind, field, recommended, provided));
  const cfg = overlay(kubeProxySkeleton(), user ?? {});
  cfg.apiVersion = KUBEPROXY_API_VERSION;
  cfg.kind = kind;
  normalizeDurations(cfg, DURATION_FIELDS);

  const bindAddress = cfg.bindAddress;
  if (!bindAddress) cfg.bindAddress = kubeProxyBindAddress(input.advertiseAddress);
  else if (typeof bindAddress !== "string" || !isIP(bindAddress)) {
    warnings.push(
      `The bindAddress ${JSON.stringify(bindAddress)} in ${
        JSON.stringify(kind)
      } is not a valid IP address`,
    );
  } else if (
    bindAddress !== KUBE_PROXY_BIND_ADDRESS_V4 && bindAddress !== KUBE_PROXY_BIND_ADDRESS_V6
  ) {
    // v1.37: an explicit wildcard of either family is fine; any other IP is compared with the
    // wildcard of its own family.
    warn("bindAddress", kubeProxyBindAddress(bindAddress), bindAddress);
  }

  const podSubnet = input.podSubnet ?? "";
  if (!cfg.clusterCIDR && podSubnet) cfg.clusterCIDR = podSubnet;
  else if (podSubnet && cfg.clusterCIDR !== podSubnet) {
    warn("clusterCIDR", podSubnet, cfg.clusterCIDR);
  }

  const conn = cfg.clientConnection as JsonObject;
  if (!conn.kubeconfig) conn.kubeconfig = KUBE_PROXY_KUBECONFIG;
  else if (conn.kubeconfig !== KUBE_PROXY_KUBECONFIG) {
    warn("clientConnection.kubeconfig", KUBE_PROXY_KUBECONFIG, conn.kubeconfig);
  }

  if (cfg.mode === "ipvs") {
    warnings.push(
      `The ${
        JSON.stringify(kind)
      } field "mode" is set to "ipvs" which has been deprecated since version v1.35. For newer Linux kernel versions, we recommend using the "nftables" mode, which has been GA since v1.33. For older Linux kernel versions, you can use the "iptables" mode which is still the default one.`,
    );
  }
  if (!cfg.mode) cfg.mode = KUBE_PROXY_DEFAULT_MODE;
  return { config: cfg as KubeProxyConfiguration, warnings };
}
