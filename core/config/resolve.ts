/**
 * The one call that turns `kubeadm init`'s inputs — an optional config file, the values given
 * besides it (`./inputs.ts`), host facts and a random source — into a {@link ResolvedConfig}.
 *
 * Pipeline (as upstream): parse and convert documents → apply the inputs → static
 * defaults → dynamic defaults (host) → Kubernetes version resolution → component configs →
 * skipped-addon bookkeeping → validation. Every problem found by validation is reported in
 * one {@link ValidationError}; warnings are returned, never printed.
 *
 * @module
 */
import { type FieldError, ValidationError } from "../errors.ts";
import type { LogFn } from "../ports/printer.ts";
import type { RandomSource } from "../ports/random.ts";
import { clone } from "./component_merge.ts";
import {
  ADVERTISE_ADDRESS_FLAG,
  applyClusterStaticDefaults,
  applyInitDynamicDefaults,
  applyInitStaticDefaults,
  configField,
  type InitHostFacts,
} from "./defaults.ts";
import { isKnownFeature } from "./features.ts";
import { defaultKubeletConfiguration } from "./kubelet_config.ts";
import { defaultKubeProxyConfiguration } from "./kube_proxy_config.ts";
import { type DocumentInfo, loadInitConfig } from "./parse.ts";
import type { Inputs } from "./inputs.ts";
import type { ClusterConfiguration, InitConfiguration, ResolvedConfig } from "./types.ts";
import { validateIgnorePreflightErrors, validateInitConfiguration } from "./validate.ts";
import { normalizeKubernetesVersion } from "./version.ts";

export type { InitHostFacts } from "./defaults.ts";

/** Input of {@link resolveInitConfig}. */
export interface ResolveInitOptions {
  /** Content of the `--config` file, if any. */
  text?: string;
  /** Name of the config file for messages. */
  source?: string;
  /** The values given besides the file (`./inputs.ts`), which win over its. */
  inputs?: Inputs;
  /** Host facts detected by the runtime. */
  host: InitHostFacts;
  /** Random source for bootstrap tokens and the certificate key. */
  random: RandomSource;
  /** Verbose log lines (upstream's `klog.V`), e.g. the kubelet's `cgroupDriver` default. */
  log?: LogFn;
  /** Unknown fields are errors (default) or warnings (`false`). */
  strict?: boolean;
  /** Accept the experimental `kubeadm.k8s.io/v1` (`--allow-experimental-api`). */
  allowExperimental?: boolean;
  /**
   * The documents were read from a cluster's `kubeadm-config` (upstream never validates what
   * it fetches): feature gates this release no longer knows are carried along, not refused;
   * `upgrade` names them (`Unknown feature gate flag: X`).
   */
  fromCluster?: boolean;
}

/** Output of {@link resolveInitConfig}. */
export interface ResolveInitResult {
  config: ResolvedConfig;
  /** Warnings for the user, in the order they arose. */
  warnings: string[];
  /** The documents of the configuration text, in file order (none without a text). */
  documents: DocumentInfo[];
}

/** Phase names involved in addon bookkeeping. */
const ADDON_PHASE = "addon";
const DNS_ADDON_PHASE = "addon/coredns";
const PROXY_ADDON_PHASE = "addon/kube-proxy";

function applyInputs(init: InitConfiguration, cluster: ClusterConfiguration, f: Inputs) {
  const ep = (init.localAPIEndpoint ??= {});
  if (f.advertiseAddress !== undefined) ep.advertiseAddress = f.advertiseAddress;
  if (f.bindPort !== undefined) ep.bindPort = f.bindPort;
  const nr = (init.nodeRegistration ??= {});
  if (f.nodeName !== undefined) nr.name = f.nodeName;
  if (f.criSocket !== undefined) nr.criSocket = f.criSocket;
  if (f.token !== undefined || f.tokenTTL !== undefined) {
    if (!init.bootstrapTokens || init.bootstrapTokens.length === 0) init.bootstrapTokens = [{}];
    if (f.token !== undefined) init.bootstrapTokens[0].token = f.token;
    if (f.tokenTTL !== undefined) init.bootstrapTokens[0].ttl = f.tokenTTL;
  }
  if (f.skipPhases !== undefined) init.skipPhases = [...f.skipPhases];
  if (f.patchesDir !== undefined) init.patches = { directory: f.patchesDir };
  if (f.certificateKey !== undefined) init.certificateKey = f.certificateKey;
  if (f.dryRun !== undefined) init.dryRun = f.dryRun;

  const net = (cluster.networking ??= {});
  if (f.serviceSubnet !== undefined) net.serviceSubnet = f.serviceSubnet;
  if (f.podSubnet !== undefined) net.podSubnet = f.podSubnet;
  if (f.dnsDomain !== undefined) net.dnsDomain = f.dnsDomain;
  if (f.certificatesDir !== undefined) cluster.certificatesDir = f.certificatesDir;
  if (f.kubernetesVersion !== undefined) cluster.kubernetesVersion = f.kubernetesVersion;
  if (f.controlPlaneEndpoint !== undefined) cluster.controlPlaneEndpoint = f.controlPlaneEndpoint;
  if (f.imageRepository !== undefined) cluster.imageRepository = f.imageRepository;
  if (f.certSANs !== undefined) {
    cluster.apiServer = { ...cluster.apiServer, certSANs: [...f.certSANs] };
  }
  if (f.featureGates !== undefined) {
    cluster.featureGates = { ...cluster.featureGates, ...f.featureGates };
  }
}

function hasPhase(phase: string, skip: readonly string[]): boolean {
  return skip.includes(phase);
}

/**
 * Upstream's `manageSkippedAddons`: skipping `addon`, `addon/coredns` or `addon/kube-proxy`
 * marks the addon disabled, and a disabled addon's phase is skipped.
 */
function manageSkippedAddons(cluster: ClusterConfiguration, skipPhases: string[]): string[] {
  let skipDNS = false;
  let skipProxy = false;
  cluster.dns = { ...cluster.dns };
  cluster.proxy = { ...cluster.proxy };
  if (hasPhase(ADDON_PHASE, skipPhases)) {
    skipDNS = skipProxy = true;
    cluster.dns.disabled = true;
    cluster.proxy.disabled = true;
  }
  if (hasPhase(DNS_ADDON_PHASE, skipPhases)) {
    skipDNS = true;
    cluster.dns.disabled = true;
  } else if (cluster.dns.disabled) skipDNS = true;
  if (hasPhase(PROXY_ADDON_PHASE, skipPhases)) {
    skipProxy = true;
    cluster.proxy.disabled = true;
  } else if (cluster.proxy.disabled) skipProxy = true;
  const out = [...skipPhases];
  if (skipDNS && !out.includes(DNS_ADDON_PHASE)) out.push(DNS_ADDON_PHASE);
  if (skipProxy && !out.includes(PROXY_ADDON_PHASE)) out.push(PROXY_ADDON_PHASE);
  return out;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Parses, defaults and validates the `kubeadm init` configuration. Throws `ConfigError` for
 * bad documents and `ValidationError` (with every field problem) for invalid values; both
 * carry exit status 3.
 */
export function resolveInitConfig(options: ResolveInitOptions): ResolveInitResult {
  const inputs = options.inputs ?? {};
  const loaded = loadInitConfig(options.text, {
    source: options.source,
    strict: options.strict,
    allowExperimental: options.allowExperimental,
  });
  const warnings = [...loaded.warnings];

  const init: InitConfiguration = clone(loaded.init ?? {});
  const cluster: ClusterConfiguration = clone(loaded.cluster ?? {});
  applyInputs(init, cluster, inputs);

  const dyn = applyInitDynamicDefaults(
    applyInitStaticDefaults(init),
    applyClusterStaticDefaults(cluster),
    options.host,
    options.random,
    inputs.advertiseAddress !== undefined
      ? ADVERTISE_ADDRESS_FLAG
      : configField("localAPIEndpoint.advertiseAddress"),
  );
  warnings.push(...dyn.warnings);
  const initCfg = dyn.init;
  const clusterCfg = dyn.cluster;

  // Upstream normalizes the version before anything else is validated: a refused version is
  // the only error reported.
  const version = normalizeKubernetesVersion(clusterCfg.kubernetesVersion);
  clusterCfg.kubernetesVersion = version.version;
  warnings.push(...version.warnings);
  const errors: FieldError[] = [];

  initCfg.skipPhases = manageSkippedAddons(clusterCfg, initCfg.skipPhases ?? []);
  if (initCfg.skipPhases.length === 0) delete initCfg.skipPhases;

  const preflight = validateIgnorePreflightErrors(
    inputs.ignorePreflightErrors ?? [],
    initCfg.nodeRegistration.ignorePreflightErrors ?? [],
  );
  errors.push(...preflight.errors);
  if (preflight.ignored.length > 0) {
    initCfg.nodeRegistration = {
      ...initCfg.nodeRegistration,
      ignorePreflightErrors: preflight.ignored,
    };
  }

  const uploadCerts = inputs.uploadCerts ?? false;
  if (uploadCerts && !initCfg.certificateKey) {
    initCfg.certificateKey = hex(options.random.bytes(32));
  }

  const stored = clusterCfg.featureGates;
  if (options.fromCluster && stored) {
    clusterCfg.featureGates = Object.fromEntries(
      Object.entries(stored).filter(([k]) => isKnownFeature(k)),
    );
  }
  const validation = validateInitConfiguration(initCfg, clusterCfg);
  if (stored) clusterCfg.featureGates = stored;
  errors.push(...validation.errors);
  if (errors.length > 0) {
    throw new ValidationError(errors, {
      hint: "fix the listed fields in the configuration file or flags",
    });
  }

  // The component configs derive from the validated cluster configuration.
  const kubelet = defaultKubeletConfiguration(loaded.kubelet, {
    networking: clusterCfg.networking,
    certificatesDir: clusterCfg.certificatesDir,
    log: options.log,
  });
  const kubeProxy = defaultKubeProxyConfiguration(loaded.kubeProxy, {
    advertiseAddress: initCfg.localAPIEndpoint.advertiseAddress,
    podSubnet: clusterCfg.networking.podSubnet,
  });
  warnings.push(...kubelet.warnings, ...kubeProxy.warnings, ...validation.warnings);

  const config: ResolvedConfig = {
    init: initCfg,
    cluster: clusterCfg,
    kubelet: kubelet.config,
    kubeProxy: kubeProxy.config,
    userSupplied: {
      kubelet: loaded.kubelet !== undefined,
      kubeProxy: loaded.kubeProxy !== undefined,
    },
    uploadCerts,
  };
  return { config, warnings, documents: loaded.documents };
}
