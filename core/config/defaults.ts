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
import type { RandomSource } from "../ports/random.ts";
import { DEFAULT_TOKEN_TTL, DEFAULT_TOKEN_USAGES, generateToken } from "../bootstraptoken/token.ts";
import { formatIP, isLoopbackIP, isUnspecifiedIP, parseIP } from "../net/ip.ts";
import { joinHostPort, parseHostPort } from "../net/host_port.ts";
import { clone } from "./component_merge.ts";
import { formatDuration, isDuration, normalizeDuration } from "../text/duration.ts";
import {
  type APIEndpoint,
  type BootstrapToken,
  type ClusterConfiguration,
  type ControlPlaneComponent,
  type Etcd,
  type InitConfiguration,
  KUBEADM_API_VERSION,
  type NodeRegistrationOptions,
  type ResolvedClusterConfiguration,
  type ResolvedInitConfiguration,
  type Taint,
  type Timeouts,
  type UpgradeConfiguration,
} from "./types.ts";

/** `certificatesDir` when the configuration, a flag or the cluster names none. */
const DEFAULT_CERTIFICATES_DIR = "/etc/kubernetes/pki";

/**
 * The certificates directory: `certificatesDir` as given, else kubeadm's default
 * (`/etc/kubernetes/pki`, upstream `DefaultCertificatesDir`). The one place it is defaulted: the
 * ClusterConfiguration's and ResetConfiguration's defaults, `reset` and the certs commands go
 * through it; without an argument, the default itself.
 */
export function certificatesDirOrDefault(certificatesDir?: string): string {
  return certificatesDir || DEFAULT_CERTIFICATES_DIR;
}

/** A joining node's default `caCertPath`: `ca.crt` in the default certificates directory. */
export const DEFAULT_CA_CERT_PATH = `${DEFAULT_CERTIFICATES_DIR}/ca.crt`;

/** The taint a control-plane node gets when `nodeRegistration.taints` is unset. */
export const CONTROL_PLANE_TAINT: Readonly<Taint> = {
  key: CONTROL_PLANE_LABEL,
  effect: "NoSchedule",
};

/** URL scheme every CRI socket must carry. */
const CRI_SOCKET_SCHEME = "unix";

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
}

/** Default timeouts as Go durations (`4m0s`, ...). */
function defaultTimeouts(): Required<Timeouts> {
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

const TIMEOUT_KEYS: readonly (keyof Timeouts)[] = [
  "controlPlaneComponentHealthCheck",
  "kubeletHealthCheck",
  "kubernetesAPICall",
  "etcdAPICall",
  "tlsBootstrap",
  "discovery",
  "upgradeManifests",
];

/**
 * `timeouts` with upstream's defaults for the unset ones and the set ones in Go's canonical
 * form (shared by init and join).
 */
export function withDefaultTimeouts(user: Timeouts | undefined): Required<Timeouts> {
  const out = defaultTimeouts();
  for (const key of TIMEOUT_KEYS) {
    const v = user?.[key];
    if (v !== undefined && v !== null) out[key] = canonicalDuration(v);
  }
  return out;
}

/**
 * An UpgradeConfiguration with upstream's static defaults (`SetDefaults_UpgradeConfiguration`):
 * `apply` and `node` renew certificates and upgrade etcd, pull images `IfNotPresent` one at a
 * time; `plan` upgrades etcd; every timeout set.
 */
export function applyUpgradeDefaults(input: UpgradeConfiguration): UpgradeConfiguration {
  const cfg = structuredClone(input) as Record<string, unknown>;
  const section = (name: string) => {
    const v = cfg[name];
    const o = typeof v === "object" && v !== null ? v as Record<string, unknown> : {};
    cfg[name] = o;
    return o;
  };
  const setIfNil = (o: Record<string, unknown>, k: string, v: unknown) => {
    if (o[k] === undefined || o[k] === null) o[k] = v;
  };
  for (const name of ["apply", "node"]) {
    const o = section(name);
    setIfNil(o, "etcdUpgrade", true);
    setIfNil(o, "certificateRenewal", true);
    if (!o.imagePullPolicy) o.imagePullPolicy = "IfNotPresent";
    setIfNil(o, "imagePullSerial", true);
  }
  setIfNil(section("plan"), "etcdUpgrade", true);
  section("diff");
  cfg.timeouts = withDefaultTimeouts(cfg.timeouts as Timeouts | undefined);
  return cfg as UpgradeConfiguration;
}

/** Go re-renders durations it decoded (`3m` → `3m0s`); invalid ones are left for validation. */
function canonicalDuration(v: string): string {
  return isDuration(v) ? normalizeDuration(v) : v;
}

/** An InitConfiguration after static defaulting: what needs no host facts is set. */
export interface StaticInitConfiguration extends InitConfiguration {
  apiVersion: string;
  kind: "InitConfiguration";
  bootstrapTokens: (BootstrapToken & { usages: string[]; groups: string[] })[];
  localAPIEndpoint: APIEndpoint & { bindPort: number };
  nodeRegistration: NodeRegistrationOptions & {
    imagePullPolicy: "Always" | "IfNotPresent" | "Never";
    imagePullSerial: boolean;
    taints: Taint[] | null;
  };
  timeouts: Required<Timeouts>;
}

/**
 * Static defaults of an InitConfiguration (`SetDefaults_InitConfiguration`): one bootstrap
 * token when none is given (ttl 24h, default usages and group; the token value itself is a
 * dynamic default), bindPort 6443, image pull policy and serial pulls, every timeout.
 */
export function applyInitStaticDefaults(input: InitConfiguration): StaticInitConfiguration {
  const cfg = clone(input);
  const tokens = cfg.bootstrapTokens && cfg.bootstrapTokens.length > 0 ? cfg.bootstrapTokens : [{}];
  const nr = cfg.nodeRegistration ?? {};
  return {
    ...cfg,
    apiVersion: KUBEADM_API_VERSION,
    kind: "InitConfiguration",
    bootstrapTokens: tokens.map((bt) => {
      // Upstream defaults the TTL unconditionally, which would make `expires` always clash
      // with it in validation; only an unset pair gets the default TTL here.
      const ttl = bt.ttl === undefined && bt.expires === undefined ? DEFAULT_TOKEN_TTL : bt.ttl;
      return {
        ...bt,
        ttl: ttl === undefined ? undefined : canonicalDuration(ttl),
        usages: bt.usages && bt.usages.length > 0 ? bt.usages : [...DEFAULT_TOKEN_USAGES],
        groups: bt.groups && bt.groups.length > 0 ? bt.groups : [Identity.bootstrapDefaultGroup],
      };
    }),
    localAPIEndpoint: {
      ...cfg.localAPIEndpoint,
      bindPort: cfg.localAPIEndpoint?.bindPort || DEFAULT_API_SERVER_PORT,
    },
    nodeRegistration: {
      ...nr,
      imagePullPolicy: nr.imagePullPolicy || "IfNotPresent",
      imagePullSerial: nr.imagePullSerial === undefined ? true : nr.imagePullSerial,
      taints: nr.taints === undefined ? null : nr.taints,
    },
    timeouts: withDefaultTimeouts(cfg.timeouts),
  };
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

function defaultedEtcd(input: Etcd | undefined): Etcd {
  const etcd: Etcd = { ...input };
  if (!etcd.local && !etcd.external) etcd.local = {};
  if (etcd.local) {
    etcd.local = { ...etcd.local };
    if (!etcd.local.dataDir) etcd.local.dataDir = DEFAULT_ETCD_DATA_DIR;
    if (etcd.local.extraEnvs) {
      etcd.local.extraEnvs = defaultEnvVars({ extraEnvs: etcd.local.extraEnvs }).extraEnvs;
    }
  }
  // v1beta4 (kubeadm v1.35+): httpEndpoints (health checks, version) default to endpoints.
  const external = etcd.external;
  if (external && !external.httpEndpoints?.length && external.endpoints?.length) {
    etcd.external = { ...external, httpEndpoints: [...external.endpoints] };
  }
  return etcd;
}

/**
 * Static defaults of a ClusterConfiguration (`SetDefaults_ClusterConfiguration`):
 * kubernetesVersion `stable-1`, service subnet, DNS domain, certificates dir, image
 * repository, cluster name, encryption algorithm, certificate validity periods, local etcd
 * with its data dir when no etcd is configured, and `fieldRef.apiVersion: v1` in extraEnvs.
 * The Kubernetes version label is resolved by the caller.
 */
export function applyClusterStaticDefaults(
  input: ClusterConfiguration,
): ResolvedClusterConfiguration {
  const cfg = clone(input);
  return {
    ...cfg,
    apiVersion: KUBEADM_API_VERSION,
    kind: "ClusterConfiguration",
    kubernetesVersion: cfg.kubernetesVersion || DEFAULT_KUBERNETES_VERSION_LABEL,
    networking: {
      ...cfg.networking,
      serviceSubnet: cfg.networking?.serviceSubnet || DEFAULT_SERVICE_SUBNET,
      dnsDomain: cfg.networking?.dnsDomain || DEFAULT_DNS_DOMAIN,
    },
    certificatesDir: certificatesDirOrDefault(cfg.certificatesDir),
    imageRepository: cfg.imageRepository || DEFAULT_IMAGE_REPOSITORY,
    clusterName: cfg.clusterName || DEFAULT_CLUSTER_NAME,
    encryptionAlgorithm: cfg.encryptionAlgorithm || "RSA-2048",
    certificateValidityPeriod: cfg.certificateValidityPeriod
      ? canonicalDuration(cfg.certificateValidityPeriod)
      : formatDuration(CERT_VALIDITY_HOURS * 3_600_000),
    caCertificateValidityPeriod: cfg.caCertificateValidityPeriod
      ? canonicalDuration(cfg.caCertificateValidityPeriod)
      : formatDuration(CA_CERT_VALIDITY_HOURS * 3_600_000),
    etcd: defaultedEtcd(cfg.etcd),
    apiServer: defaultEnvVars(cfg.apiServer),
    controllerManager: defaultEnvVars(cfg.controllerManager),
    scheduler: defaultEnvVars(cfg.scheduler),
    dns: { ...cfg.dns },
    proxy: { ...cfg.proxy },
  };
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
): { name: string; criSocket: string } {
  const name = (nr.name || host.hostname || "").trim();
  if (name === "") {
    throw new ConfigError("empty hostname is invalid", {
      field: "nodeRegistration.name",
      hint: "set --node-name or nodeRegistration.name",
    });
  }
  if (!nr.criSocket) {
    return { name: name.toLowerCase(), criSocket: host.criSocket || DEFAULT_CRI_SOCKET };
  }
  if (!nr.criSocket.startsWith(CRI_SOCKET_SCHEME) && !nr.criSocket.includes("://")) {
    warnings.push(
      `Usage of CRI endpoints without URL scheme is deprecated and can cause kubelet errors in the future. Automatically prepending scheme ${
        JSON.stringify(CRI_SOCKET_SCHEME)
      } to the "criSocket" with value ${
        JSON.stringify(nr.criSocket)
      }. Please update your configuration!`,
    );
    return { name: name.toLowerCase(), criSocket: `${CRI_SOCKET_SCHEME}://${nr.criSocket}` };
  }
  return { name: name.toLowerCase(), criSocket: nr.criSocket };
}

/** Result of dynamic defaulting: the resolved documents and warnings. */
export interface DynamicDefaultsResult {
  init: ResolvedInitConfiguration;
  cluster: ResolvedClusterConfiguration;
  warnings: string[];
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
  initInput: StaticInitConfiguration,
  clusterInput: ResolvedClusterConfiguration,
  host: InitHostFacts,
  random: RandomSource,
  advertiseAddressFrom: ValueSource,
): DynamicDefaultsResult {
  const init = clone(initInput);
  const cluster = clone(clusterInput);
  const warnings: string[] = [];
  const nr = init.nodeRegistration;
  const resolved: ResolvedInitConfiguration = {
    ...init,
    bootstrapTokens: init.bootstrapTokens.map((bt) => ({
      ...bt,
      token: bt.token || generateToken(random),
    })),
    nodeRegistration: {
      ...nr,
      ...defaultNodeIdentity(nr, host, warnings),
      taints: nr.taints ?? [{ ...CONTROL_PLANE_TAINT }],
    },
    localAPIEndpoint: {
      ...init.localAPIEndpoint,
      advertiseAddress: resolveAdvertiseAddress(
        init.localAPIEndpoint.advertiseAddress ?? "",
        host,
        advertiseAddressFrom,
      ),
    },
  };

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
        resolved.localAPIEndpoint.bindPort,
      );
    }
  }
  if (cluster.apiServer.certSANs) {
    cluster.apiServer = {
      ...cluster.apiServer,
      certSANs: cluster.apiServer.certSANs.map((s) => s.toLowerCase()),
    };
  }
  return { init: resolved, cluster, warnings };
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
  from: ValueSource,
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
