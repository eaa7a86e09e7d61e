/**
 * The `kubeadm join` configuration: a JoinConfiguration from `--config`, or one built from
 * the join inputs (`./inputs.ts`), statically and dynamically defaulted and validated as
 * upstream v1beta4 does (`SetDefaults_JoinConfiguration`, `SetJoinDynamicDefaults`,
 * `ValidateJoinConfiguration`).
 *
 * Inputs follow upstream's `newJoinData`: `--token` fills the discovery and TLS-bootstrap
 * tokens where those are empty; without a positional API server endpoint the token discovery
 * object is dropped; without `--discovery-file` the file discovery object is dropped; without
 * `--control-plane` the control-plane section is dropped (with upstream's warning when
 * control-plane flags were given anyway). With `--config`, only the node name, CRI socket,
 * ignored preflight errors, patches, dry-run and skipped phases come from the inputs.
 *
 * Everything secret (tokens, the certificate key) is redacted in errors.
 *
 * @module
 */
import { isValidToken, redactToken } from "../bootstraptoken/token.ts";
import { DEFAULT_API_SERVER_PORT } from "../constants.ts";
import { ConfigError, type FieldError, ValidationError } from "../errors.ts";
import { parseHostPort, splitHostPort } from "../net/host_port.ts";
import { pinProblem } from "../pki/pin.ts";
import { clone } from "./component_merge.ts";
import {
  ADVERTISE_ADDRESS_FLAG,
  configField,
  CONTROL_PLANE_TAINT,
  DEFAULT_CA_CERT_PATH,
  defaultNodeIdentity,
  type InitHostFacts,
  resolveAdvertiseAddress,
  type ValueSource,
  withDefaultTimeouts,
} from "./defaults.ts";
import { KUBEADM_GROUP, loadConfigDocuments } from "./parse.ts";
import type {
  APIEndpoint,
  Discovery,
  JoinConfiguration,
  NodeRegistrationOptions,
  Patches,
  ResolvedAPIEndpoint,
  ResolvedNodeRegistration,
  Timeouts,
} from "./types.ts";
import { KUBEADM_API_VERSION } from "./types.ts";
import type { Inputs } from "./inputs.ts";
import {
  validateAPIEndpoint,
  validateCertificateKey,
  validateIgnorePreflightErrors,
  validateNodeRegistration,
  validateTimeouts,
} from "./validate.ts";

/** The flags that only matter for a control-plane join (upstream's warning lists them). */
const JOIN_CONTROL_PLANE_FLAGS: readonly string[] = [
  "certificate-key",
  "apiserver-advertise-address",
  "apiserver-bind-port",
];

/** A fully defaulted and validated JoinConfiguration: the input of every join phase. */
export interface ResolvedJoinConfig extends JoinConfiguration {
  apiVersion: string;
  kind: "JoinConfiguration";
  caCertPath: string;
  discovery: Discovery;
  /** Taints resolve to the control-plane taint for control-plane joins when unset. */
  nodeRegistration: ResolvedNodeRegistration & { ignorePreflightErrors: string[] };
  /** Present for `--control-plane` joins. */
  controlPlane?: { localAPIEndpoint: ResolvedAPIEndpoint; certificateKey?: string };
  timeouts: Required<Timeouts>;
  skipPhases?: string[];
  patches?: Patches;
  dryRun?: boolean;
}

/** Input of {@link resolveJoinConfig}. */
export interface ResolveJoinOptions {
  /** Content of the `--config` file, if any. */
  text?: string;
  /** Name of the config file, for messages. */
  source?: string;
  /** The values given besides the file (`./inputs.ts`); `apiServerEndpoint` is the argument. */
  inputs?: Inputs;
  /** Host facts: hostname, default advertise address, detected CRI socket. */
  host: InitHostFacts;
  /**
   * Whether a discovery file path exists on this machine (upstream validation stats it).
   * Without it, any path is accepted.
   */
  fileExists?: (path: string) => boolean;
  /**
   * For phase commands without discovery flags (upstream: the command has no
   * `--discovery-file`): use this kubeconfig (admin.conf) as file discovery instead.
   */
  discoveryFallbackFile?: string;
  /** Unknown fields are errors (default) or warnings. */
  strict?: boolean;
  /** Read the experimental `kubeadm.k8s.io/v1` (`--allow-experimental-api`). */
  allowExperimental?: boolean;
}

/** Output of {@link resolveJoinConfig}. */
export interface ResolveJoinResult {
  config: ResolvedJoinConfig;
  /** Warnings for the user, in order. */
  warnings: string[];
}

function invalid(field: string, value: string, detail: string): FieldError {
  return { field, value, detail };
}

/** Builds the versioned JoinConfiguration from the inputs alone (upstream `newJoinData`). */
function joinConfigurationFromInputs(
  f: Inputs,
  warnings: string[] = [],
): JoinConfiguration {
  const cfg: JoinConfiguration = {
    apiVersion: KUBEADM_API_VERSION,
    kind: "JoinConfiguration",
    nodeRegistration: {},
    discovery: {},
  };
  const discovery = cfg.discovery!;
  if (f.tlsBootstrapToken) discovery.tlsBootstrapToken = f.tlsBootstrapToken;
  const bootstrapToken = {
    token: f.discoveryToken ?? "",
    caCertHashes: [...(f.caCertHashes ?? [])],
    unsafeSkipCAVerification: f.unsafeSkipCAVerification ?? false,
    apiServerEndpoint: "",
  };
  if (f.token) {
    if (!discovery.tlsBootstrapToken) discovery.tlsBootstrapToken = f.token;
    if (!bootstrapToken.token) bootstrapToken.token = f.token;
  }
  if (f.discoveryFile) discovery.file = { kubeConfigPath: f.discoveryFile };
  if (f.apiServerEndpoint !== undefined) {
    bootstrapToken.apiServerEndpoint = f.apiServerEndpoint;
    discovery.bootstrapToken = bootstrapToken;
  }
  if (f.nodeName) cfg.nodeRegistration!.name = f.nodeName;
  if (f.criSocket) cfg.nodeRegistration!.criSocket = f.criSocket;
  if (f.controlPlane) {
    cfg.controlPlane = {
      localAPIEndpoint: {
        advertiseAddress: f.advertiseAddress ?? "",
        bindPort: f.bindPort ?? DEFAULT_API_SERVER_PORT,
      },
      ...(f.certificateKey ? { certificateKey: f.certificateKey } : {}),
    };
  } else if (
    f.certificateKey || f.advertiseAddress ||
    (f.bindPort !== undefined && f.bindPort !== DEFAULT_API_SERVER_PORT)
  ) {
    warnings.push(
      `[preflight] WARNING: --control-plane is also required when passing control-plane related flags such as [${
        JOIN_CONTROL_PLANE_FLAGS.join(", ")
      }]`,
    );
  }
  if (f.skipPhases !== undefined) cfg.skipPhases = [...f.skipPhases];
  if (f.patchesDir !== undefined) cfg.patches = { directory: f.patchesDir };
  if (f.dryRun !== undefined) cfg.dryRun = f.dryRun;
  return cfg;
}

/** A JoinConfiguration after static defaulting: what needs no host facts is set. */
interface StaticJoinConfiguration extends JoinConfiguration {
  apiVersion: string;
  kind: "JoinConfiguration";
  caCertPath: string;
  discovery: Discovery;
  nodeRegistration: NodeRegistrationOptions & {
    imagePullPolicy: "Always" | "IfNotPresent" | "Never";
    imagePullSerial: boolean;
  };
  controlPlane?: { localAPIEndpoint: APIEndpoint & { bindPort: number }; certificateKey?: string };
  timeouts: Required<Timeouts>;
}

/** A JoinConfiguration after dynamic defaulting (preflight errors still to merge). */
type DynamicJoinConfiguration = Omit<ResolvedJoinConfig, "nodeRegistration"> & {
  nodeRegistration: ResolvedNodeRegistration;
};

/**
 * Static defaults (`SetDefaults_JoinConfiguration`): `caCertPath`, the control plane's bind
 * port, the TLS-bootstrap token from the discovery token, `file://` discovery URLs as paths,
 * image pull policy and serial pulls, every timeout.
 */
function applyJoinStaticDefaults(input: JoinConfiguration): StaticJoinConfiguration {
  const cfg = clone(input);
  const d: Discovery = { ...cfg.discovery };
  if (!d.tlsBootstrapToken && d.bootstrapToken) d.tlsBootstrapToken = d.bootstrapToken.token;
  if (d.file?.kubeConfigPath) {
    const m = /^file:\/\/[^/]*(\/.*)$/.exec(d.file.kubeConfigPath);
    if (m) d.file = { ...d.file, kubeConfigPath: decodeURIComponent(m[1]) };
  }
  const { controlPlane: cp, ...rest } = cfg;
  const nr = cfg.nodeRegistration ?? {};
  return {
    ...rest,
    apiVersion: KUBEADM_API_VERSION,
    kind: "JoinConfiguration",
    caCertPath: cfg.caCertPath || DEFAULT_CA_CERT_PATH,
    discovery: d,
    nodeRegistration: {
      ...nr,
      imagePullPolicy: nr.imagePullPolicy || "IfNotPresent",
      imagePullSerial: nr.imagePullSerial === undefined ? true : nr.imagePullSerial,
    },
    ...(cp && {
      controlPlane: {
        ...cp,
        localAPIEndpoint: {
          ...cp.localAPIEndpoint,
          bindPort: cp.localAPIEndpoint?.bindPort || DEFAULT_API_SERVER_PORT,
        },
      },
    }),
    timeouts: withDefaultTimeouts(cfg.timeouts),
  };
}

/**
 * Dynamic defaults (`SetJoinDynamicDefaults`): node name from the hostname (lowercased), the
 * control-plane taint for control-plane joins when taints are unset, the CRI socket (with
 * `unix://` prepended, warning), and the control plane's advertise address.
 */
function applyJoinDynamicDefaults(
  input: StaticJoinConfiguration,
  host: InitHostFacts,
  warnings: string[],
  advertiseAddressFrom: ValueSource,
): DynamicJoinConfiguration {
  const { controlPlane: cp, ...cfg } = clone(input);
  const nr = cfg.nodeRegistration;
  return {
    ...cfg,
    nodeRegistration: {
      ...nr,
      ...defaultNodeIdentity(nr, host, warnings),
      taints: nr.taints ?? (cp ? [{ ...CONTROL_PLANE_TAINT }] : []),
    },
    ...(cp && {
      controlPlane: {
        ...cp,
        localAPIEndpoint: {
          ...cp.localAPIEndpoint,
          advertiseAddress: resolveAdvertiseAddress(
            cp.localAPIEndpoint.advertiseAddress ?? "",
            host,
            advertiseAddressFrom,
          ),
        },
      },
    }),
  };
}

function validateToken(token: string | undefined, field: string): FieldError[] {
  if (isValidToken(token ?? "")) return [];
  return [invalid(field, redactToken(token ?? ""), "the bootstrap token is invalid")];
}

/** Upstream `ValidateDiscoveryKubeConfigPath`: a file on disk, or an `https://` URL. */
function validateDiscoveryFile(
  path: string,
  field: string,
  fileExists?: (path: string) => boolean,
): FieldError[] {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(path);
  if (!m) {
    if (fileExists && !fileExists(path)) {
      return [invalid(field, path, "not a valid HTTPS URL or a file on disk")];
    }
    return [];
  }
  if (m[1].toLowerCase() !== "https") {
    return [invalid(field, path, "if a URL is used, the scheme must be https")];
  }
  try {
    new URL(path);
  } catch {
    return [invalid(field, path, "not a valid HTTPS URL or a file on disk")];
  }
  return [];
}

/** The flag each CA pin came from when the configuration was built from flags. */
const CA_CERT_HASH_FLAG = "--discovery-token-ca-cert-hash";

/**
 * Upstream `ValidateDiscovery`, plus the syntax of every CA pin (upstream checks them only
 * after its first cluster-info fetch; here a bad pin fails before any network call). With
 * `fromFlags`, pin errors name `--discovery-token-ca-cert-hash` instead of the config field.
 */
function validateDiscovery(
  d: Discovery,
  fileExists?: (path: string) => boolean,
  path = "discovery",
  fromFlags = false,
): FieldError[] {
  const errs: FieldError[] = [];
  if (!d.bootstrapToken && !d.file) {
    errs.push(invalid(path, "", "bootstrapToken or file must be set"));
  }
  if (d.bootstrapToken && d.file) {
    errs.push(invalid(path, "", "bootstrapToken and file cannot both be set"));
  }
  if (d.bootstrapToken) {
    const b = d.bootstrapToken;
    const p = `${path}.bootstrapToken`;
    if (!b.apiServerEndpoint) {
      errs.push({ field: p, detail: "Required value: APIServerEndpoint is not set" });
    }
    if ((b.caCertHashes ?? []).length === 0 && !b.unsafeSkipCAVerification) {
      errs.push(
        invalid(
          `${p}.caCertHashes`,
          "",
          "using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue",
        ),
      );
    }
    (b.caCertHashes ?? []).forEach((pin, i) => {
      const problem = pinProblem(pin);
      if (problem) {
        errs.push({
          field: fromFlags ? CA_CERT_HASH_FLAG : `${p}.caCertHashes[${i}]`,
          detail: problem,
        });
      }
    });
    errs.push(...validateToken(b.token, `${p}.token`));
    try {
      splitHostPort(b.apiServerEndpoint ?? "");
      // Beyond upstream (which polls an endpoint it can never dial until discovery times
      // out): the port must be a number and the host an IP address or a DNS name.
      parseHostPort(b.apiServerEndpoint ?? "");
    } catch (e) {
      errs.push(invalid(`${p}.apiServerEndpoint`, b.apiServerEndpoint ?? "", (e as Error).message));
    }
    errs.push(...validateToken(d.tlsBootstrapToken, `${path}.tlsBootstrapToken`));
  }
  if (d.file) {
    errs.push(
      ...validateDiscoveryFile(
        d.file.kubeConfigPath ?? "",
        `${path}.file.kubeConfigPath`,
        fileExists,
      ),
    );
    if (d.tlsBootstrapToken) {
      errs.push(...validateToken(d.tlsBootstrapToken, `${path}.tlsBootstrapToken`));
    }
  }
  return errs;
}

/**
 * Upstream `ValidateJoinConfiguration` over a defaulted configuration; `fromFlags` when it was
 * built from flags (errors then name the flags where they differ from the fields).
 */
function validateJoinConfiguration(
  cfg: JoinConfiguration,
  fileExists?: (path: string) => boolean,
  fromFlags = false,
): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateDiscovery(cfg.discovery ?? {}, fileExists, "discovery", fromFlags));
  errs.push(...validateNodeRegistration(cfg.nodeRegistration ?? {}));
  if (cfg.controlPlane) {
    errs.push(
      ...validateAPIEndpoint(
        cfg.controlPlane.localAPIEndpoint ?? {},
        "controlPlane.localAPIEndpoint",
      ),
    );
    errs.push(
      ...validateCertificateKey(cfg.controlPlane.certificateKey, "controlPlane.certificateKey"),
    );
  }
  const ca = cfg.caCertPath ?? "";
  if (!ca.startsWith("/") || !ca.endsWith(".crt")) {
    errs.push(invalid("caCertPath", ca, "the ca certificate path must be an absolute path"));
  }
  errs.push(
    ...validateTimeouts(cfg.timeouts as Record<string, string | undefined> | undefined),
  );
  return errs;
}

/**
 * Parses (or builds from flags), defaults and validates the `kubeadm join` configuration.
 * Throws `ConfigError` for bad documents and `ValidationError` for invalid values (exit 3).
 */
export function resolveJoinConfig(options: ResolveJoinOptions): ResolveJoinResult {
  const inputs = options.inputs ?? {};
  const warnings: string[] = [];
  let cfg: JoinConfiguration;
  if (options.text !== undefined) {
    const loaded = loadConfigDocuments(options.text, {
      source: options.source,
      strict: options.strict,
      allowExperimental: options.allowExperimental,
    });
    warnings.push(...loaded.warnings);
    for (const info of loaded.documents) {
      if (info.group === KUBEADM_GROUP && info.kind !== "JoinConfiguration") {
        warnings.push(
          `[config] WARNING: Ignored configuration document with GroupVersionKind ${info.gvk}`,
        );
      }
    }
    if (!loaded.join) {
      throw new ConfigError(
        `${options.source ?? "<config>"}: no JoinConfiguration found in the supplied config`,
        { field: "kind", hint: "add a kubeadm.k8s.io/v1beta4 JoinConfiguration document" },
      );
    }
    cfg = clone(loaded.join);
    const nr = { ...cfg.nodeRegistration };
    if (inputs.nodeName) nr.name = inputs.nodeName;
    if (inputs.criSocket) nr.criSocket = inputs.criSocket;
    cfg.nodeRegistration = nr;
    if (inputs.skipPhases !== undefined && inputs.skipPhases.length > 0) {
      cfg.skipPhases = [...inputs.skipPhases];
    }
    if (inputs.patchesDir !== undefined) cfg.patches = { directory: inputs.patchesDir };
    if (inputs.dryRun !== undefined) cfg.dryRun = inputs.dryRun;
  } else {
    cfg = joinConfigurationFromInputs(inputs, warnings);
  }
  if (options.discoveryFallbackFile) {
    cfg.discovery = {
      ...cfg.discovery,
      file: { kubeConfigPath: options.discoveryFallbackFile },
    };
    delete cfg.discovery.bootstrapToken;
  }

  const defaulted = applyJoinDynamicDefaults(
    applyJoinStaticDefaults(cfg),
    options.host,
    warnings,
    options.text === undefined
      ? ADVERTISE_ADDRESS_FLAG
      : configField("controlPlane.localAPIEndpoint.advertiseAddress"),
  );

  const errors: FieldError[] = [];
  const preflight = validateIgnorePreflightErrors(
    inputs.ignorePreflightErrors ?? [],
    defaulted.nodeRegistration.ignorePreflightErrors ?? [],
  );
  errors.push(...preflight.errors);
  const config: ResolvedJoinConfig = {
    ...defaulted,
    nodeRegistration: { ...defaulted.nodeRegistration, ignorePreflightErrors: preflight.ignored },
  };
  errors.push(
    ...validateJoinConfiguration(config, options.fileExists, options.text === undefined),
  );
  if (errors.length > 0) {
    throw new ValidationError(errors, {
      hint: "fix the listed fields in the configuration file or flags",
    });
  }
  if (config.skipPhases?.length === 0) delete config.skipPhases;
  return { config, warnings };
}
