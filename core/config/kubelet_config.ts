/**
 * The cluster-wide KubeletConfiguration (`kubelet.config.k8s.io/v1beta1`) kubeadm uploads to the
 * `kubelet-config` ConfigMap, and this node's copy of it written to
 * `/var/lib/kubelet/config.yaml`.
 *
 * kubeadm does not run the kubelet's own defaulting: it marshals the struct, so every field
 * without `omitempty` appears with its zero value (`0s`, `""`, `{}`), and kubeadm fills in the
 * values it cares about (upstream `componentconfigs/kubelet.go`). A user value that differs
 * from kubeadm's recommendation is kept and reported with a warning.
 *
 * @module
 */
import { KUBELET_HEALTHZ_PORT, MANIFESTS_DIR } from "../constants.ts";
import { clusterDNSIP } from "../net/service_ip.ts";
import {
  getPath,
  type JsonObject,
  normalizeDurations,
  overlay,
  recommendationWarning,
  setPath,
} from "./component_merge.ts";
import { KUBELET_API_VERSION, type KubeletConfiguration } from "./types.ts";
import type { LogFn } from "../ports/printer.ts";

/** resolv.conf the kubelet should use when systemd-resolved is active. */
const SYSTEMD_RESOLV_CONF = "/run/systemd/resolve/resolv.conf";
/** Default cgroup driver kubeadm sets when the user leaves it empty. */
const DEFAULT_CGROUP_DRIVER = "systemd";

/** The fields upstream always serializes, at their Go zero values. */
function kubeletSkeleton(): JsonObject {
  return {
    apiVersion: KUBELET_API_VERSION,
    kind: "KubeletConfiguration",
    authentication: { anonymous: {}, webhook: { cacheTTL: "0s" }, x509: {} },
    authorization: { webhook: { cacheAuthorizedTTL: "0s", cacheUnauthorizedTTL: "0s" } },
    containerRuntimeEndpoint: "",
    cpuManagerReconcilePeriod: "0s",
    crashLoopBackOff: {},
    evictionPressureTransitionPeriod: "0s",
    fileCheckFrequency: "0s",
    httpCheckFrequency: "0s",
    imageMaximumGCAge: "0s",
    imageMinimumGCAge: "0s",
    logging: {
      flushFrequency: 0,
      options: { json: { infoBufferSize: "0" }, text: { infoBufferSize: "0" } },
      verbosity: 0,
    },
    memorySwap: {},
    nodeStatusReportFrequency: "0s",
    nodeStatusUpdateFrequency: "0s",
    runtimeRequestTimeout: "0s",
    shutdownGracePeriod: "0s",
    shutdownGracePeriodCriticalPods: "0s",
    streamingConnectionIdleTimeout: "0s",
    syncFrequency: "0s",
    volumeStatsAggPeriod: "0s",
  };
}

/** Duration fields re-rendered in canonical form when the user sets them. */
const DURATION_FIELDS = [
  "authentication.webhook.cacheTTL",
  "authorization.webhook.cacheAuthorizedTTL",
  "authorization.webhook.cacheUnauthorizedTTL",
  "cpuCFSQuotaPeriod",
  "cpuManagerReconcilePeriod",
  "crashLoopBackOff.maxContainerRestartPeriod",
  "evictionPressureTransitionPeriod",
  "fileCheckFrequency",
  "httpCheckFrequency",
  "imageMaximumGCAge",
  "imageMinimumGCAge",
  "nodeStatusReportFrequency",
  "nodeStatusUpdateFrequency",
  "runtimeRequestTimeout",
  "shutdownGracePeriod",
  "shutdownGracePeriodCriticalPods",
  "streamingConnectionIdleTimeout",
  "syncFrequency",
  "volumeStatsAggPeriod",
];

/** What the kubelet defaulting depends on: the defaulted, validated cluster configuration. */
export interface KubeletDefaultsInput {
  /** `networking`: the service subnet gives `clusterDNS`, the DNS domain `clusterDomain`. */
  networking: { serviceSubnet: string; dnsDomain: string };
  /** `certificatesDir` (for `authentication.x509.clientCAFile`). */
  certificatesDir: string;
  /** Verbose log lines (the `cgroupDriver` default). */
  log?: LogFn;
}

/**
 * The defaulted KubeletConfiguration and the warnings for user values that differ from
 * kubeadm's recommendations. `user` is the user's document, or `undefined`.
 */
export function defaultKubeletConfiguration(
  user: KubeletConfiguration | undefined,
  input: KubeletDefaultsInput,
): { config: KubeletConfiguration; warnings: string[] } {
  const kind = "KubeletConfiguration";
  const warnings: string[] = [];
  const warn = (field: string, recommended: unknown, provided: unknown) =>
    warnings.push(recommendationWarning(kind, field, recommended, provided));
  const cfg = overlay(kubeletSkeleton(), user ?? {});
  cfg.apiVersion = KUBELET_API_VERSION;
  cfg.kind = kind;
  normalizeDurations(cfg, DURATION_FIELDS);

  // Upstream ensures a non-nil featureGates map; an empty map is omitted when serialized, so
  // nothing is added here.

  const staticPodPath = cfg.staticPodPath;
  if (!staticPodPath) cfg.staticPodPath = MANIFESTS_DIR;
  else if (staticPodPath !== MANIFESTS_DIR) warn("staticPodPath", MANIFESTS_DIR, staticPodPath);

  const dnsIP = clusterDNSIP(input.networking.serviceSubnet);
  const clusterDNS = cfg.clusterDNS;
  if (clusterDNS === undefined || clusterDNS === null) cfg.clusterDNS = [dnsIP];
  else if (!Array.isArray(clusterDNS) || clusterDNS.length !== 1 || clusterDNS[0] !== dnsIP) {
    warn("clusterDNS", [dnsIP], clusterDNS);
  }

  const dnsDomain = input.networking.dnsDomain;
  if (!cfg.clusterDomain) cfg.clusterDomain = dnsDomain;
  else if (dnsDomain && cfg.clusterDomain !== dnsDomain) {
    warn("clusterDomain", dnsDomain, cfg.clusterDomain);
  }

  const clientCAFile = `${input.certificatesDir}/ca.crt`;
  const ca = getPath(cfg, "authentication.x509.clientCAFile");
  if (!ca) setPath(cfg, "authentication.x509.clientCAFile", clientCAFile);
  else if (ca !== clientCAFile) warn("authentication.x509.clientCAFile", clientCAFile, ca);

  const anonymous = getPath(cfg, "authentication.anonymous.enabled");
  if (anonymous === undefined || anonymous === null) {
    setPath(cfg, "authentication.anonymous.enabled", false);
  } else if (anonymous === true) warn("authentication.anonymous.enabled", false, anonymous);

  const mode = getPath(cfg, "authorization.mode");
  if (!mode) setPath(cfg, "authorization.mode", "Webhook");
  else if (mode !== "Webhook") warn("authorization.mode", "Webhook", mode);

  const webhook = getPath(cfg, "authentication.webhook.enabled");
  if (webhook === undefined || webhook === null) {
    setPath(cfg, "authentication.webhook.enabled", true);
  } else if (webhook === false) warn("authentication.webhook.enabled", true, webhook);

  if (!cfg.healthzBindAddress) cfg.healthzBindAddress = "127.0.0.1";
  else if (cfg.healthzBindAddress !== "127.0.0.1") {
    warn("healthzBindAddress", "127.0.0.1", cfg.healthzBindAddress);
  }

  if (cfg.healthzPort === undefined || cfg.healthzPort === null) {
    cfg.healthzPort = KUBELET_HEALTHZ_PORT;
  } else if (cfg.healthzPort !== KUBELET_HEALTHZ_PORT) {
    warn("healthzPort", KUBELET_HEALTHZ_PORT, cfg.healthzPort);
  }

  if (cfg.readOnlyPort !== undefined && cfg.readOnlyPort !== null && cfg.readOnlyPort !== 0) {
    warn("readOnlyPort", 0, cfg.readOnlyPort);
  }

  // Upstream cannot tell an unset bool from false, so it always forces rotation on.
  cfg.rotateCertificates = true;

  if (!cfg.cgroupDriver) {
    input.log?.(
      1,
      "kubelet_config.ts",
      `the value of KubeletConfiguration.cgroupDriver is empty; setting it to ${
        JSON.stringify(DEFAULT_CGROUP_DRIVER)
      }`,
    );
    cfg.cgroupDriver = DEFAULT_CGROUP_DRIVER;
  }
  return { config: cfg as KubeletConfiguration, warnings };
}

/**
 * This node's copy of the cluster KubeletConfiguration (upstream's `Mutate` on a deep copy):
 * with systemd-resolved active, `resolvConf` points at its resolv.conf (a different user value
 * is kept, with a warning). The cluster-wide configuration, uploaded to `kubelet-config`, is
 * never changed (kubeadm v1.37).
 */
export function nodeKubeletConfiguration(
  cluster: KubeletConfiguration,
  node: { systemdResolvedActive?: boolean },
): { config: KubeletConfiguration; warnings: string[] } {
  const cfg = structuredClone(cluster);
  const warnings: string[] = [];
  if (node.systemdResolvedActive) {
    if (cfg.resolvConf === undefined || cfg.resolvConf === null) {
      cfg.resolvConf = SYSTEMD_RESOLV_CONF;
    } else if (cfg.resolvConf !== SYSTEMD_RESOLV_CONF) {
      warnings.push(
        recommendationWarning(
          "KubeletConfiguration",
          "resolvConf",
          SYSTEMD_RESOLV_CONF,
          cfg.resolvConf,
        ),
      );
    }
  }
  return { config: cfg, warnings };
}
