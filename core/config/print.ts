/**
 * Serializing the configuration the way upstream marshals its Go structs: `config print
 * init-defaults`, the `kubeadm-config` ConfigMap's `ClusterConfiguration`, and the documents
 * `config migrate` writes.
 *
 * Go prints struct fields without `omitempty` even when empty (`taints: null`,
 * `apiServer: {}`, `dataDir`, `etcd.external.caFile`), and omits empty `omitempty` ones; the
 * `versioned*` functions below apply those rules so the YAML matches upstream byte for byte.
 *
 * @module
 */
import type { EnvVar } from "kubernetes-types/core/v1.d.ts";
import { DEFAULT_CRI_SOCKET } from "../constants.ts";
import { CURRENT_KUBERNETES_VERSION } from "../versions.ts";
import { ConfigError } from "../errors.ts";
import { toKubeYaml } from "../yaml/kube_yaml.ts";
import { PLACEHOLDER_TOKEN } from "../bootstraptoken/token.ts";
import {
  applyClusterStaticDefaults,
  applyInitStaticDefaults,
  applyUpgradeDefaults,
} from "./defaults.ts";
import { type ResolvedJoinConfig, resolveJoinConfig } from "./join.ts";
import { defaultResetConfiguration } from "./reset.ts";
import { defaultKubeletConfiguration } from "./kubelet_config.ts";
import type { LogFn, Printer } from "../ports/printer.ts";
import { defaultKubeProxyConfiguration } from "./kube_proxy_config.ts";
import {
  type APIEndpoint,
  type APIServer,
  type Arg,
  type BootstrapToken,
  type ClusterConfiguration,
  type ControlPlaneComponent,
  type HostPathMount,
  type InitConfiguration,
  type JoinConfiguration,
  KUBEADM_API_VERSION,
  type KubeletConfiguration,
  type KubeProxyConfiguration,
  type NodeRegistrationOptions,
  type ResetConfiguration,
  type Taint,
  type Timeouts,
  type UpgradeConfiguration,
} from "./types.ts";

/** Upstream's YAML document separator. */
export const YAML_DOCUMENT_SEPARATOR = "---\n";

/** Component configs `--component-configs` accepts, sorted. */
const COMPONENT_CONFIG_KINDS = ["KubeProxyConfiguration", "KubeletConfiguration"] as const;

type Obj = Record<string, unknown>;

/** Sets `key` only when the value is non-empty (Go `omitempty`). */
function omitEmpty(out: Obj, key: string, v: unknown): void {
  if (v === undefined || v === null || v === "" || v === false || v === 0) return;
  if (Array.isArray(v) && v.length === 0) return;
  if (
    typeof v === "object" && !Array.isArray(v) && Object.keys(v as Obj).length === 0 &&
    key === "featureGates"
  ) return;
  out[key] = v;
}

/** Sets `key` when the pointer is set (Go `*T` with `omitempty`): `false` and `0` print. */
function omitNil(out: Obj, key: string, v: unknown): void {
  if (v !== undefined && v !== null) out[key] = v;
}

function args(list: readonly Arg[] | undefined): Obj[] | undefined {
  return list?.map((a) => ({ name: a.name ?? "", value: a.value ?? "" }));
}

function volumes(list: readonly HostPathMount[] | undefined): Obj[] | undefined {
  return list?.map((v) => {
    const o: Obj = { name: v.name ?? "", hostPath: v.hostPath ?? "", mountPath: v.mountPath ?? "" };
    omitEmpty(o, "readOnly", v.readOnly);
    omitEmpty(o, "pathType", v.pathType);
    return o;
  });
}

function envs(list: readonly EnvVar[] | undefined): Obj[] | undefined {
  return list?.map((e) => {
    const o: Obj = { name: e.name ?? "" };
    omitEmpty(o, "value", e.value);
    omitNil(o, "valueFrom", e.valueFrom);
    return o;
  });
}

function component(c: ControlPlaneComponent | undefined): Obj {
  const o: Obj = {};
  omitEmpty(o, "extraArgs", args(c?.extraArgs));
  omitEmpty(o, "extraVolumes", volumes(c?.extraVolumes));
  omitEmpty(o, "extraEnvs", envs(c?.extraEnvs));
  return o;
}

function timeouts(t: Timeouts | undefined): Obj | undefined {
  if (!t) return undefined;
  const o: Obj = {};
  for (const [k, v] of Object.entries(t)) omitNil(o, k, v);
  return o;
}

function nodeRegistration(nr: NodeRegistrationOptions | undefined): Obj {
  const o: Obj = {};
  omitEmpty(o, "name", nr?.name);
  omitEmpty(o, "criSocket", nr?.criSocket);
  o.taints = nr?.taints ?? null;
  omitEmpty(o, "kubeletExtraArgs", args(nr?.kubeletExtraArgs));
  omitEmpty(o, "ignorePreflightErrors", nr?.ignorePreflightErrors);
  omitEmpty(o, "imagePullPolicy", nr?.imagePullPolicy);
  omitNil(o, "imagePullSerial", nr?.imagePullSerial);
  return o;
}

function bootstrapToken(bt: BootstrapToken): Obj {
  const o: Obj = { token: bt.token ?? null };
  omitEmpty(o, "description", bt.description);
  omitNil(o, "ttl", bt.ttl);
  omitNil(o, "expires", bt.expires);
  omitEmpty(o, "usages", bt.usages);
  omitEmpty(o, "groups", bt.groups);
  return o;
}

/** An InitConfiguration as upstream marshals it (v1beta4). */
function versionedInitConfiguration(init: InitConfiguration): Obj {
  const o: Obj = { apiVersion: KUBEADM_API_VERSION, kind: "InitConfiguration" };
  omitEmpty(o, "bootstrapTokens", init.bootstrapTokens?.map(bootstrapToken));
  omitEmpty(o, "dryRun", init.dryRun);
  o.nodeRegistration = nodeRegistration(init.nodeRegistration);
  o.localAPIEndpoint = apiEndpoint(init.localAPIEndpoint);
  omitEmpty(o, "certificateKey", init.certificateKey);
  nodeCommandTail(o, init);
  return o;
}

function apiEndpoint(ep: APIEndpoint | undefined): Obj {
  const o: Obj = {};
  omitEmpty(o, "advertiseAddress", ep?.advertiseAddress);
  omitEmpty(o, "bindPort", ep?.bindPort);
  return o;
}

/** `skipPhases`, `patches` and `timeouts`, which Init and JoinConfiguration share. */
function nodeCommandTail(o: Obj, cfg: InitConfiguration | JoinConfiguration): void {
  omitEmpty(o, "skipPhases", cfg.skipPhases);
  if (cfg.patches) {
    const p: Obj = {};
    omitEmpty(p, "directory", cfg.patches.directory);
    o.patches = p;
  }
  omitNil(o, "timeouts", timeouts(cfg.timeouts));
}

/** A ClusterConfiguration as upstream marshals it (v1beta4). */
function versionedClusterConfiguration(cluster: ClusterConfiguration): Obj {
  const o: Obj = { apiVersion: KUBEADM_API_VERSION, kind: "ClusterConfiguration" };
  const etcd: Obj = {};
  const local = cluster.etcd?.local;
  if (local) {
    const l: Obj = {};
    omitEmpty(l, "imageRepository", local.imageRepository);
    omitEmpty(l, "imageTag", local.imageTag);
    l.dataDir = local.dataDir ?? "";
    omitEmpty(l, "extraArgs", args(local.extraArgs));
    omitEmpty(l, "extraEnvs", envs(local.extraEnvs));
    omitEmpty(l, "serverCertSANs", local.serverCertSANs);
    omitEmpty(l, "peerCertSANs", local.peerCertSANs);
    etcd.local = l;
  }
  const ext = cluster.etcd?.external;
  if (ext) {
    const e: Obj = { endpoints: ext.endpoints ?? null };
    omitEmpty(e, "httpEndpoints", ext.httpEndpoints);
    e.caFile = ext.caFile ?? "";
    e.certFile = ext.certFile ?? "";
    e.keyFile = ext.keyFile ?? "";
    etcd.external = e;
  }
  o.etcd = etcd;
  const net: Obj = {};
  omitEmpty(net, "serviceSubnet", cluster.networking?.serviceSubnet);
  omitEmpty(net, "podSubnet", cluster.networking?.podSubnet);
  omitEmpty(net, "dnsDomain", cluster.networking?.dnsDomain);
  o.networking = net;
  omitEmpty(o, "kubernetesVersion", cluster.kubernetesVersion);
  omitEmpty(o, "controlPlaneEndpoint", cluster.controlPlaneEndpoint);
  const api = component(cluster.apiServer);
  omitEmpty(api, "certSANs", (cluster.apiServer as APIServer | undefined)?.certSANs);
  o.apiServer = api;
  o.controllerManager = component(cluster.controllerManager);
  o.scheduler = component(cluster.scheduler);
  const dns: Obj = {};
  omitEmpty(dns, "imageRepository", cluster.dns?.imageRepository);
  omitEmpty(dns, "imageTag", cluster.dns?.imageTag);
  omitEmpty(dns, "disabled", cluster.dns?.disabled);
  o.dns = dns;
  const proxy: Obj = {};
  omitEmpty(proxy, "disabled", cluster.proxy?.disabled);
  o.proxy = proxy;
  omitEmpty(o, "certificatesDir", cluster.certificatesDir);
  omitEmpty(o, "imageRepository", cluster.imageRepository);
  if (cluster.featureGates && Object.keys(cluster.featureGates).length > 0) {
    o.featureGates = { ...cluster.featureGates };
  }
  omitEmpty(o, "clusterName", cluster.clusterName);
  omitEmpty(o, "encryptionAlgorithm", cluster.encryptionAlgorithm);
  omitNil(o, "certificateValidityPeriod", cluster.certificateValidityPeriod);
  omitNil(o, "caCertificateValidityPeriod", cluster.caCertificateValidityPeriod);
  return o;
}

/**
 * The `ClusterConfiguration` value of the `kube-system/kubeadm-config` ConfigMap: the
 * cluster-wide configuration as v1beta4 YAML, without component configs, bootstrap tokens or
 * any other InitConfiguration data.
 */
export function clusterConfigurationForUpload(cluster: ClusterConfiguration): string {
  return toKubeYaml(versionedClusterConfiguration(cluster));
}

/** The ClusterConfiguration as the upgrade commands' `--print-config` prints it. */
export function printConfigurationUsed(cluster: ClusterConfiguration, out: Printer): void {
  out.info("[upgrade/config] Configuration used:");
  for (const line of clusterConfigurationForUpload(cluster).replace(/\n$/, "").split("\n")) {
    out.info(`\t${line}`);
  }
}

/** InitConfiguration and ClusterConfiguration joined with `---` (what `config migrate` writes). */
export function marshalInitConfiguration(
  init: InitConfiguration,
  cluster: ClusterConfiguration,
): string {
  return toKubeYaml(versionedInitConfiguration(init)) + YAML_DOCUMENT_SEPARATOR +
    toKubeYaml(versionedClusterConfiguration(cluster));
}

/** A JoinConfiguration as upstream marshals it (v1beta4). */
function versionedJoinConfiguration(join: JoinConfiguration): Obj {
  const o: Obj = { apiVersion: KUBEADM_API_VERSION, kind: "JoinConfiguration" };
  omitEmpty(o, "dryRun", join.dryRun);
  o.nodeRegistration = nodeRegistration(join.nodeRegistration);
  omitEmpty(o, "caCertPath", join.caCertPath);
  const d: Obj = {};
  const bt = join.discovery?.bootstrapToken;
  if (bt) {
    const b: Obj = { token: bt.token ?? "" };
    omitEmpty(b, "apiServerEndpoint", bt.apiServerEndpoint);
    omitEmpty(b, "caCertHashes", bt.caCertHashes);
    omitEmpty(b, "unsafeSkipCAVerification", bt.unsafeSkipCAVerification);
    d.bootstrapToken = b;
  }
  if (join.discovery?.file) d.file = { kubeConfigPath: join.discovery.file.kubeConfigPath ?? "" };
  omitEmpty(d, "tlsBootstrapToken", join.discovery?.tlsBootstrapToken);
  o.discovery = d;
  const cp = join.controlPlane;
  if (cp) {
    const c: Obj = { localAPIEndpoint: apiEndpoint(cp.localAPIEndpoint) };
    omitEmpty(c, "certificateKey", cp.certificateKey);
    o.controlPlane = c;
  }
  nodeCommandTail(o, join);
  return o;
}

/** A JoinConfiguration as YAML (v1beta4). */
export function marshalJoinConfiguration(join: JoinConfiguration): string {
  return toKubeYaml(versionedJoinConfiguration(join));
}

/** A ResetConfiguration as YAML (v1beta4). */
export function marshalResetConfiguration(reset: ResetConfiguration): string {
  return toKubeYaml({
    ...(reset as Obj),
    apiVersion: KUBEADM_API_VERSION,
    kind: "ResetConfiguration",
  });
}

/**
 * `kubeadm config print join-defaults`: a worker's JoinConfiguration defaulted as upstream's
 * (placeholder token `abcdef.0123456789abcdef` for discovery and TLS bootstrap, endpoint
 * `kube-apiserver:6443` with CA verification skipped, the host's name, the default CRI socket).
 */
export function printJoinDefaults(hostname: string): string {
  const { config } = resolveJoinConfig({
    inputs: {
      apiServerEndpoint: "kube-apiserver:6443",
      token: PLACEHOLDER_TOKEN,
      unsafeSkipCAVerification: true,
    },
    host: { hostname, defaultAdvertiseAddress: "" },
  });
  return marshalResolvedJoinConfiguration(config, undefined);
}

/**
 * A defaulted JoinConfiguration as upstream writes it. `userTaints` are the taints the input
 * set: when it set none (or null), a worker's stay nil (`taints: null`) and a control plane's
 * are the defaulted control-plane taint.
 */
export function marshalResolvedJoinConfiguration(
  config: ResolvedJoinConfig,
  userTaints: readonly Taint[] | null | undefined,
): string {
  const { taints, ...nr } = config.nodeRegistration;
  const keep = Array.isArray(userTaints) || config.controlPlane !== undefined;
  return toKubeYaml(
    versionedJoinConfiguration({ ...config, nodeRegistration: keep ? { ...nr, taints } : nr }),
  );
}

/** `kubeadm config print reset-defaults`: the ResetConfiguration's defaults. */
export function printResetDefaults(): string {
  return toKubeYaml(defaultResetConfiguration());
}

/** `kubeadm config print upgrade-defaults`: the UpgradeConfiguration's defaults. */
export function printUpgradeDefaults(): string {
  return marshalUpgradeConfiguration(applyUpgradeDefaults({}));
}

/** An UpgradeConfiguration as YAML (v1beta4). */
export function marshalUpgradeConfiguration(upgrade: UpgradeConfiguration): string {
  return toKubeYaml({
    ...(upgrade as Obj),
    apiVersion: KUBEADM_API_VERSION,
    kind: "UpgradeConfiguration",
  });
}

/** Options for {@link printInitDefaults}. */
export interface PrintInitDefaultsOptions {
  /** `--component-configs` values (`KubeletConfiguration`, `KubeProxyConfiguration`). */
  componentConfigs?: readonly string[];
  /** Verbose log lines (upstream's `klog.V`), e.g. the kubelet's `cgroupDriver` default. */
  log?: LogFn;
}

/** The statically defaulted configuration `config print init-defaults` shows. */
export function staticInitDefaults(log?: LogFn): {
  init: InitConfiguration;
  cluster: ClusterConfiguration;
  kubelet: KubeletConfiguration;
  kubeProxy: KubeProxyConfiguration;
} {
  const init = applyInitStaticDefaults({
    localAPIEndpoint: { advertiseAddress: "1.2.3.4" },
    bootstrapTokens: [{ token: PLACEHOLDER_TOKEN }],
    nodeRegistration: { criSocket: DEFAULT_CRI_SOCKET, name: "node" },
  });
  // Upstream prints its own release line with patch 0 and no leading "v".
  const cluster = applyClusterStaticDefaults({
    kubernetesVersion: CURRENT_KUBERNETES_VERSION.replace(/^v/, ""),
  });
  const kubelet = defaultKubeletConfiguration(undefined, {
    networking: cluster.networking,
    certificatesDir: cluster.certificatesDir,
    log,
  }).config;
  const kubeProxy = defaultKubeProxyConfiguration(undefined, {
    advertiseAddress: init.localAPIEndpoint.advertiseAddress,
    podSubnet: cluster.networking.podSubnet,
  }).config;
  return { init, cluster, kubelet, kubeProxy };
}

/**
 * `kubeadm config print init-defaults [--component-configs ...]`: InitConfiguration and
 * ClusterConfiguration (v1beta4, placeholder token `abcdef.0123456789abcdef`, advertise
 * address `1.2.3.4`, node name `node`), then the requested component configs, joined with
 * `---`. Throws {@link ConfigError} for an unknown component config kind.
 */
export function printInitDefaults(options: PrintInitDefaultsOptions = {}): string {
  const defaults = staticInitDefaults(options.log);
  const parts = [marshalInitConfiguration(defaults.init, defaults.cluster)];
  for (const kind of options.componentConfigs ?? []) {
    if (kind === "KubeletConfiguration") parts.push(toKubeYaml(defaults.kubelet));
    else if (kind === "KubeProxyConfiguration") parts.push(toKubeYaml(defaults.kubeProxy));
    else {
      throw new ConfigError(
        `--component-configs needs to contain some of [${COMPONENT_CONFIG_KINDS.join(" ")}]`,
        { field: "--component-configs", value: kind },
      );
    }
  }
  return parts.join(YAML_DOCUMENT_SEPARATOR);
}
