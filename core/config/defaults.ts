/**
 * Defaulting of InitConfiguration and ClusterConfiguration, as upstream v1beta4 does it.
 *
 * Static defaults (`SetDefaults_*` in upstream `v1beta4/defaults.go`) need nothing but the
 * document. Dynamic defaults (`SetInitDynamicDefaults`) depend on the host — hostname,
 * detected advertise address and CRI socket — which the runtime detects and passes in as
 * {@link InitHostFacts}, plus a random source for bootstrap tokens. Functions here return new
 * objects; their inputs are not modified.
 *
 * @module
 */
import {
  CA_CERT_VALIDITY_HOURS,
  CERT_VALIDITY_HOURS,
  CONTROL_PLANE_LABEL,
  DEFAULT_API_SERVER_PORT,
  DEFAULT_CERTIFICATES_DIR,
  DEFAULT_CLUSTER_NAME,
  DEFAULT_CRI_SOCKET,
  DEFAULT_DNS_DOMAIN,
  DEFAULT_ETCD_DATA_DIR,
  DEFAULT_IMAGE_REPOSITORY,
  DEFAULT_KUBERNETES_VERSION_LABEL,
  DEFAULT_SERVICE_SUBNET,
  DefaultTimeouts,
  Identity,
} from "../constants.ts";
import { ConfigError } from "../errors.ts";
import type { RandomSource } from "../host/ports.ts";
import { DEFAULT_TOKEN_TTL, DEFAULT_TOKEN_USAGES, generateToken } from "../bootstraptoken/token.ts";
import { formatIP, isLoopbackIP, isUnspecifiedIP, parseIP } from "../net/ip.ts";
import { joinHostPort, parseHostPort } from "../net/host_port.ts";
import { clone } from "./component_merge.ts";
import { formatDuration, isDuration, normalizeDuration } from "./duration.ts";
import type {
  ClusterConfiguration,
  ControlPlaneComponent,
  InitConfiguration,
  NodeRegistrationOptions,
  Taint,
  Timeouts,
} from "./types.ts";
import { KUBEADM_API_VERSION } from "./types.ts";

/** The taint a control-plane node gets when `nodeRegistration.taints` is unset. */
export const CONTROL_PLANE_TAINT: Readonly<Taint> = {
  key: CONTROL_PLANE_LABEL,
  effect: "NoSchedule",
};

/** URL scheme every CRI socket must carry. */
export const CRI_SOCKET_SCHEME = "unix";

/** Facts about the host that dynamic defaulting needs; the runtime detects them. */
export interface InitHostFacts {
  /** OS hostname (node-name default; lowercased here). */
  hostname: string;
  /** IP of the default-route interface (advertise-address default). */
  defaultAdvertiseAddress: string;
  /** Detected CRI socket; {@link DEFAULT_CRI_SOCKET} when absent. */
  criSocket?: string;
  /** A global unicast IP on the loopback interface, used when the advertise address is loopback. */
  loopbackAdvertiseAddress?: string;
  /** Whether systemd-resolved is active (sets the kubelet's `resolvConf`). */
  systemdResolvedActive?: boolean;
}

/** Default timeouts as Go durations (`4m0s`, ...). */
export function defaultTimeouts(): Required<Timeouts> {
  return {
    controlPlaneComponentHealthCheck: formatDuration(
      DefaultTimeouts.controlPlaneComponentHealthCheck,
    ),
    kubeletHealthCheck: formatDuration(DefaultTimeouts.kubeletHealthCheck),
    kubernetesAPICall: formatDuration(DefaultTimeouts.kubernetesAPICall),
    etcdAPICall: formatDuration(DefaultTimeouts.etcdAPICall),
    tlsBootstrap: formatDuration(DefaultTimeouts.tlsBootstrap),
    discovery: formatDuration(DefaultTimeouts.discovery),
    upgradeManifests: formatDuration(DefaultTimeouts.upgradeManifests),
  };
}

/**
 * Static defaults of an InitConfiguration (`SetDefaults_InitConfiguration`): one bootstrap
 * token when none is given (ttl 24h, default usages and group; the token value itself is a
 * dynamic default), bindPort 6443, image pull policy and serial pulls, every timeout.
 */
export function applyInitStaticDefaults(input: InitConfiguration): InitConfiguration {
  const cfg = clone(input);
  cfg.apiVersion = KUBEADM_API_VERSION;
  cfg.kind = "InitConfiguration";
  if (!cfg.bootstrapTokens || cfg.bootstrapTokens.length === 0) cfg.bootstrapTokens = [{}];
  cfg.bootstrapTokens = cfg.bootstrapTokens.map((bt) => {
    const t = { ...bt };
    // Upstream defaults the TTL unconditionally, which would make `expires` always clash with
    // it in validation; only an unset pair gets the default TTL here.
    if (t.ttl === undefined && t.expires === undefined) t.ttl = DEFAULT_TOKEN_TTL;
    t.ttl = canonicalDuration(t.ttl);
    if (!t.usages || t.usages.length === 0) t.usages = [...DEFAULT_TOKEN_USAGES];
    if (!t.groups || t.groups.length === 0) t.groups = [Identity.bootstrapDefaultGroup];
    return t;
  });
  cfg.localAPIEndpoint = { ...cfg.localAPIEndpoint };
  if (!cfg.localAPIEndpoint.bindPort) cfg.localAPIEndpoint.bindPort = DEFAULT_API_SERVER_PORT;
  cfg.nodeRegistration = { ...cfg.nodeRegistration };
  if (!cfg.nodeRegistration.imagePullPolicy) cfg.nodeRegistration.imagePullPolicy = "IfNotPresent";
  if (cfg.nodeRegistration.imagePullSerial === undefined) {
    cfg.nodeRegistration.imagePullSerial = true;
  }
  if (cfg.nodeRegistration.taints === undefined) cfg.nodeRegistration.taints = null;
  const timeouts: Record<string, string | undefined> = {
    ...defaultTimeouts(),
    ...dropUndefined(cfg.timeouts ?? {}),
  };
  for (const k of Object.keys(timeouts)) timeouts[k] = canonicalDuration(timeouts[k]);
  cfg.timeouts = timeouts as Timeouts;
  return cfg;
}

/** Go re-renders durations it decoded (`3m` → `3m0s`); invalid ones are left for validation. */
function canonicalDuration(v: string | undefined): string | undefined {
  return v !== undefined && isDuration(v) ? normalizeDuration(v) : v;
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(
    Object.entries(o).filter(([, v]) => v !== undefined && v !== null),
  ) as T;
}

function defaultEnvVars<T extends ControlPlaneComponent>(c: T | undefined): T {
  const out = { ...c } as T;
  if (out.extraEnvs) {
    out.extraEnvs = out.extraEnvs.map((e) => {
      const fieldRef = e.valueFrom?.fieldRef;
      if (!fieldRef || fieldRef.apiVersion) return e;
      return { ...e, valueFrom: { ...e.valueFrom, fieldRef: { ...fieldRef, apiVersion: "v1" } } };
    });
  }
  return out;
}

/**
 * Static defaults of a ClusterConfiguration (`SetDefaults_ClusterConfiguration`):
 * kubernetesVersion `stable-1`, service subnet, DNS domain, certificates dir, image
 * repository, cluster name, encryption algorithm, certificate validity periods, local etcd
 * with its data dir when no etcd is configured, and `fieldRef.apiVersion: v1` in extraEnvs.
 */
export function applyClusterStaticDefaults(input: ClusterConfiguration): ClusterConfiguration {
  const cfg = clone(input);
  cfg.apiVersion = KUBEADM_API_VERSION;
  cfg.kind = "ClusterConfiguration";
  if (!cfg.kubernetesVersion) cfg.kubernetesVersion = DEFAULT_KUBERNETES_VERSION_LABEL;
  cfg.networking = { ...cfg.networking };
  if (!cfg.networking.serviceSubnet) cfg.networking.serviceSubnet = DEFAULT_SERVICE_SUBNET;
  if (!cfg.networking.dnsDomain) cfg.networking.dnsDomain = DEFAULT_DNS_DOMAIN;
  if (!cfg.certificatesDir) cfg.certificatesDir = DEFAULT_CERTIFICATES_DIR;
  if (!cfg.imageRepository) cfg.imageRepository = DEFAULT_IMAGE_REPOSITORY;
  if (!cfg.clusterName) cfg.clusterName = DEFAULT_CLUSTER_NAME;
  if (!cfg.encryptionAlgorithm) cfg.encryptionAlgorithm = "RSA-2048";
  cfg.certificateValidityPeriod = canonicalDuration(cfg.certificateValidityPeriod);
  cfg.caCertificateValidityPeriod = canonicalDuration(cfg.caCertificateValidityPeriod);
  if (!cfg.certificateValidityPeriod) {
    cfg.certificateValidityPeriod = formatDuration(CERT_VALIDITY_HOURS * 3_600_000);
  }
  if (!cfg.caCertificateValidityPeriod) {
    cfg.caCertificateValidityPeriod = formatDuration(CA_CERT_VALIDITY_HOURS * 3_600_000);
  }
  cfg.etcd = { ...cfg.etcd };
  if (!cfg.etcd.local && !cfg.etcd.external) cfg.etcd.local = {};
  if (cfg.etcd.local) {
    cfg.etcd.local = { ...cfg.etcd.local };
    if (!cfg.etcd.local.dataDir) cfg.etcd.local.dataDir = DEFAULT_ETCD_DATA_DIR;
    if (cfg.etcd.local.extraEnvs) {
      cfg.etcd.local.extraEnvs = defaultEnvVars({ extraEnvs: cfg.etcd.local.extraEnvs }).extraEnvs;
    }
  }
  cfg.apiServer = defaultEnvVars(cfg.apiServer);
  cfg.controllerManager = defaultEnvVars(cfg.controllerManager);
  cfg.scheduler = defaultEnvVars(cfg.scheduler);
  cfg.dns = { ...cfg.dns };
  cfg.proxy = { ...cfg.proxy };
  return cfg;
}

/** Result of dynamic defaulting: the updated documents and warnings. */
export interface DynamicDefaultsResult {
  init: InitConfiguration;
  cluster: ClusterConfiguration;
  warnings: string[];
}

/**
 * Node name and CRI socket defaulting shared by init and join: the name falls back to the
 * (lowercased) hostname, the socket to the detected one; a scheme-less socket path gets
 * `unix://` with upstream's deprecation warning (another scheme is left for validation to
 * reject, where upstream would produce `unix://tcp://x`).
 */
export function defaultNodeIdentity(
  nr: NodeRegistrationOptions,
  host: Pick<InitHostFacts, "hostname" | "criSocket">,
  warnings: string[],
): void {
  const name = (nr.name || host.hostname || "").trim();
  if (name === "") {
    throw new ConfigError("empty hostname is invalid", {
      field: "nodeRegistration.name",
      hint: "set --node-name or nodeRegistration.name",
    });
  }
  nr.name = name.toLowerCase();
  if (!nr.criSocket) {
    nr.criSocket = host.criSocket || DEFAULT_CRI_SOCKET;
  } else if (!nr.criSocket.startsWith(CRI_SOCKET_SCHEME) && !nr.criSocket.includes("://")) {
    warnings.push(
      `Usage of CRI endpoints without URL scheme is deprecated and can cause kubelet errors in the future. Automatically prepending scheme ${
        JSON.stringify(CRI_SOCKET_SCHEME)
      } to the "criSocket" with value ${
        JSON.stringify(nr.criSocket)
      }. Please update your configuration!`,
    );
    nr.criSocket = `${CRI_SOCKET_SCHEME}://${nr.criSocket}`;
  }
}

/**
 * Dynamic defaults (`SetInitDynamicDefaults`): random tokens where none is set, node name
 * from the hostname (lowercased), the control-plane taint when taints are unset, the CRI
 * socket (with `unix://` prepended to scheme-less values, warning), the advertise address
 * (detected when unset or unspecified), the control-plane endpoint's port and lowercase
 * certSANs. Kubernetes version resolution and component configs are handled by the caller.
 * Throws {@link ConfigError} where upstream's dynamic defaulting fails.
 */
export function applyInitDynamicDefaults(
  initInput: InitConfiguration,
  clusterInput: ClusterConfiguration,
  host: InitHostFacts,
  random: RandomSource,
  advertiseAddressFrom: ValueSource = ADVERTISE_ADDRESS_FLAG,
): DynamicDefaultsResult {
  const init = clone(initInput);
  const cluster = clone(clusterInput);
  const warnings: string[] = [];

  init.bootstrapTokens = (init.bootstrapTokens ?? []).map((bt) =>
    bt.token ? bt : { ...bt, token: generateToken(random) }
  );

  const nr = { ...init.nodeRegistration };
  defaultNodeIdentity(nr, host, warnings);
  if (nr.taints === undefined || nr.taints === null) nr.taints = [{ ...CONTROL_PLANE_TAINT }];
  init.nodeRegistration = nr;

  const ep = { ...init.localAPIEndpoint };
  ep.advertiseAddress = resolveAdvertiseAddress(
    ep.advertiseAddress ?? "",
    host,
    advertiseAddressFrom,
  );
  init.localAPIEndpoint = ep;

  if (cluster.controlPlaneEndpoint) {
    let parsed: { host: string; port: string } | undefined;
    try {
      parsed = parseHostPort(cluster.controlPlaneEndpoint);
    } catch {
      parsed = undefined; // reported by validation, with the field name
    }
    if (parsed && parsed.port === "") {
      cluster.controlPlaneEndpoint = joinHostPort(
        parsed.host,
        ep.bindPort ?? DEFAULT_API_SERVER_PORT,
      );
    }
  }
  if (cluster.apiServer?.certSANs) {
    cluster.apiServer = {
      ...cluster.apiServer,
      certSANs: cluster.apiServer.certSANs.map((s) => s.toLowerCase()),
    };
  }
  return { init, cluster, warnings };
}

/** Where a value came from, for error messages: the config field or the flag. */
export interface ValueSource {
  /** `localAPIEndpoint.advertiseAddress`, or `--apiserver-advertise-address`. */
  field: string;
  /** How the message quotes it (upstream quotes the flag without dashes). */
  label: string;
}

/** `--apiserver-advertise-address`, quoted as upstream does. */
export const ADVERTISE_ADDRESS_FLAG: ValueSource = {
  field: "--apiserver-advertise-address",
  label: "apiserver-advertise-address",
};

/** A config field as a {@link ValueSource}. */
export function configField(path: string): ValueSource {
  return { field: path, label: path };
}

/**
 * The advertise address after dynamic defaulting: the detected address when unset or
 * unspecified, the loopback-interface address when a loopback address is given, otherwise
 * the given IP in canonical form. Errors about the given value name `from`: the flag, or the
 * config field when it came from a file.
 */
export function resolveAdvertiseAddress(
  given: string,
  host: InitHostFacts,
  from: ValueSource = ADVERTISE_ADDRESS_FLAG,
): string {
  const ip = parseIP(given);
  if (!ip && given !== "") {
    throw new ConfigError(
      `couldn't use ${JSON.stringify(given)} as ${
        JSON.stringify(from.label)
      }, must be ipv4 or ipv6 address`,
      { field: from.field, value: given },
    );
  }
  if (ip && isLoopbackIP(ip)) {
    if (host.loopbackAdvertiseAddress) return host.loopbackAdvertiseAddress;
    throw new ConfigError("unable to resolve link-local addresses", {
      field: from.field,
      value: given,
      hint:
        `no global unicast address was found on the loopback interface; set ${from.field} to this node's address`,
    });
  }
  if (ip && !isUnspecifiedIP(ip)) return formatIP(ip);
  const detected = parseIP(host.defaultAdvertiseAddress);
  if (!detected) {
    throw new ConfigError(
      `couldn't use ${
        JSON.stringify(host.defaultAdvertiseAddress)
      } as "apiserver-advertise-address", must be ipv4 or ipv6 address`,
      {
        field: "localAPIEndpoint.advertiseAddress",
        value: host.defaultAdvertiseAddress,
        hint: "set --apiserver-advertise-address or localAPIEndpoint.advertiseAddress",
      },
    );
  }
  return formatIP(detected);
}
