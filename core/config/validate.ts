/**
 * Validation of a defaulted InitConfiguration and ClusterConfiguration.
 *
 * Rules and wording follow upstream `apis/kubeadm/validation/validation.go`; each problem is
 * a {@link FieldError} naming the config path, the bad value (bootstrap-token secrets
 * redacted) and, where the set is closed, the allowed values. All problems are collected;
 * `resolveInitConfig` throws them as one {@link ValidationError} (exit status 3).
 *
 * @module
 */
import {
  CERTIFICATE_KEY_SIZE,
  MAX_BITS_FOR_SERVICE_SUBNET,
  MIN_ADDRESSES_IN_POD_SUBNET,
  MIN_ADDRESSES_IN_SERVICE_SUBNET,
  POD_SUBNET_NODE_MASK_MAX_DIFF,
} from "../constants.ts";
import { type FieldError, ValidationError } from "../errors.ts";
import {
  groupNameError,
  isValidToken,
  redactToken,
  TOKEN_PATTERN_TEXT,
  usagesError,
} from "../bootstraptoken/token.ts";
import {
  type CIDR,
  cidrContains,
  formatCIDR,
  isDualStack,
  parseCIDR,
  parseCIDRList,
  rangeSize,
} from "../net/cidr.ts";
import { isIP } from "../net/ip.ts";
import { parseHostPort } from "../net/host_port.ts";
import { dns1123SubdomainErrors, wildcardDNS1123SubdomainErrors } from "../net/dns_name.ts";
import { parseDuration, parseDurationNs } from "../text/duration.ts";
import { isKnownFeature } from "./features.ts";
import type {
  Arg,
  BootstrapToken,
  ClusterConfiguration,
  ControlPlaneComponent,
  Etcd,
  HostPathMount,
  InitConfiguration,
  NodeRegistrationOptions,
  Taint,
  UpgradeConfiguration,
} from "./types.ts";
import { ENCRYPTION_ALGORITHMS } from "./types.ts";
import { CA_CERT_VALIDITY_HOURS, CERT_VALIDITY_HOURS } from "../constants.ts";
import { formatDuration } from "../text/duration.ts";

/** Problems and warnings found by a validation pass. */
export interface ValidationResult {
  errors: FieldError[];
  warnings: string[];
}

/** Image pull policies. */
const IMAGE_PULL_POLICIES = ["Always", "IfNotPresent", "Never"] as const;
/** HostPath volume types (`""` = no check). */
const HOST_PATH_TYPES = [
  "",
  "DirectoryOrCreate",
  "Directory",
  "FileOrCreate",
  "File",
  "Socket",
  "CharDevice",
  "BlockDevice",
] as const;
/** Taint effects. */
const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;

const quoteList = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(", ");

function invalid(field: string, value: unknown, detail: string): FieldError {
  return { field, value: typeof value === "string" ? value : JSON.stringify(value), detail };
}

function required(field: string, detail: string): FieldError {
  return { field, detail: `Required value: ${detail}` };
}

function unsupported(field: string, value: string, allowed: readonly string[]): FieldError {
  return { field, value, detail: `Unsupported value: supported values: ${quoteList(allowed)}` };
}

// ---- bootstrap tokens -----------------------------------------------------------------

/** Validates `bootstrapTokens` (format, usages, groups, ttl/expires). Secrets are redacted. */
export function validateBootstrapTokens(
  tokens: readonly BootstrapToken[],
  path = "bootstrapTokens",
): FieldError[] {
  const errs: FieldError[] = [];
  tokens.forEach((bt, i) => {
    const p = `${path}[${i}]`;
    const token = bt.token ?? "";
    if (!isValidToken(token)) {
      errs.push(
        invalid(
          `${p}.token`,
          redactToken(token),
          `the bootstrap token is invalid: it must be of the form ${TOKEN_PATTERN_TEXT} ([a-z0-9]{6}.[a-z0-9]{16})`,
        ),
      );
    }
    const usages = bt.usages ?? [];
    const usageMsg = usagesError(usages);
    if (usageMsg) errs.push(invalid(`${p}.usages`, usages.join(","), usageMsg));
    const groups = bt.groups ?? [];
    if (groups.length > 0 && !usages.includes("authentication")) {
      errs.push(
        invalid(
          `${p}.groups`,
          groups.join(","),
          `token groups cannot be specified unless --usages includes "authentication"`,
        ),
      );
    }
    for (const g of groups) {
      const msg = groupNameError(g);
      if (msg) errs.push(invalid(`${p}.groups`, g, msg));
    }
    if (bt.expires !== undefined && bt.ttl !== undefined) {
      errs.push(
        invalid(p, "", "the BootstrapToken .TTL and .Expires fields are mutually exclusive"),
      );
    }
    if (bt.ttl !== undefined) {
      try {
        if (parseDurationNs(bt.ttl) < 0n) {
          errs.push(
            invalid(`${p}.ttl`, bt.ttl, "the TTL must not be negative (0 = never expires)"),
          );
        }
      } catch (e) {
        errs.push(invalid(`${p}.ttl`, bt.ttl, (e as Error).message));
      }
    }
    if (bt.expires !== undefined && Number.isNaN(Date.parse(bt.expires))) {
      errs.push(
        invalid(`${p}.expires`, bt.expires, "must be an RFC 3339 time, e.g. 2025-01-01T00:00:00Z"),
      );
    }
  });
  return errs;
}

/** Validates `certificateKey`: empty, or the hex encoding of a 32-byte AES key. */
export function validateCertificateKey(
  key: string | undefined,
  path = "certificateKey",
): FieldError[] {
  if (!key) return [];
  // The key is a secret: never echo it.
  if (!/^[0-9a-fA-F]*$/.test(key) || key.length % 2 !== 0) {
    return [
      invalid(path, "<redacted>", "certificate key decoding error: the key must be hex-encoded"),
    ];
  }
  const size = key.length / 2;
  if (size !== CERTIFICATE_KEY_SIZE) {
    return [
      invalid(
        path,
        "<redacted>",
        `invalid certificate key size ${size}, the key must be an AES key of size ${CERTIFICATE_KEY_SIZE}`,
      ),
    ];
  }
  return [];
}

// ---- node registration ----------------------------------------------------------------

/** Validates `nodeRegistration` (name, criSocket, kubeletExtraArgs, imagePullPolicy, taints). */
export function validateNodeRegistration(
  nr: NodeRegistrationOptions,
  path = "nodeRegistration",
): FieldError[] {
  const errs: FieldError[] = [];
  if (!nr.name) {
    errs.push(
      required(
        path,
        "--node-name or .nodeRegistration.name in the config file is a required value. It seems like this value couldn't be automatically detected in your environment, please specify the desired value using the CLI or config file.",
      ),
    );
  } else {
    for (const msg of dns1123SubdomainErrors(nr.name)) {
      errs.push(invalid(`${path}.name`, nr.name, msg));
    }
  }
  errs.push(...validateSocketPath(nr.criSocket ?? "", `${path}.criSocket`));
  errs.push(...validateExtraArgs(nr.kubeletExtraArgs, `${path}.kubeletExtraArgs`));
  errs.push(...validateImagePullPolicy(nr.imagePullPolicy, `${path}.imagePullPolicy`));
  errs.push(...validateTaints(nr.taints ?? [], `${path}.taints`));
  return errs;
}

/** Validates a CRI socket: a `unix://` URL. */
export function validateSocketPath(socket: string, path: string): FieldError[] {
  if (socket === "") return [invalid(path, socket, "empty CRI socket")];
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(socket);
  const scheme = m ? m[1].toLowerCase() : "";
  if (scheme !== "unix") {
    return [
      invalid(path, socket, `only URL scheme "unix" is supported, got ${JSON.stringify(scheme)}`),
    ];
  }
  return [];
}

const QUALIFIED_NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Validates taints: key (qualified name), value (≤ 63 chars) and effect. */
function validateTaints(taints: readonly Taint[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((t, i) => {
    const p = `${path}[${i}]`;
    const key = t.key ?? "";
    if (key === "") {
      errs.push(required(`${p}.key`, "the taint key must be set"));
    } else {
      const slash = key.lastIndexOf("/");
      const prefix = slash >= 0 ? key.slice(0, slash) : "";
      const name = slash >= 0 ? key.slice(slash + 1) : key;
      const bad = (slash >= 0 && dns1123SubdomainErrors(prefix).length > 0) || name.length > 63 ||
        !QUALIFIED_NAME_RE.test(name);
      if (bad) {
        errs.push(
          invalid(
            `${p}.key`,
            key,
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/'",
          ),
        );
      }
    }
    if (
      t.value !== undefined && t.value !== "" &&
      (t.value.length > 63 || !QUALIFIED_NAME_RE.test(t.value))
    ) {
      errs.push(
        invalid(
          `${p}.value`,
          t.value,
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (at most 63 characters)",
        ),
      );
    }
    const effect: string = t.effect ?? "";
    if (effect === "") {
      errs.push(required(`${p}.effect`, `supported values: ${quoteList(TAINT_EFFECTS)}`));
    } else if (!(TAINT_EFFECTS as readonly string[]).includes(effect)) {
      errs.push(unsupported(`${p}.effect`, effect, TAINT_EFFECTS));
    }
    const id = `${key}:${effect}`;
    if (seen.has(id)) errs.push(invalid(p, id, "taints must be unique by key and effect pair"));
    seen.add(id);
  });
  return errs;
}

/** Validates `extraArgs` / `kubeletExtraArgs`: every argument needs a name. */
function validateExtraArgs(args: readonly Arg[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (args ?? []).forEach((a, i) => {
    if (!a?.name) errs.push(invalid(path, `index ${i}`, "argument has no name"));
  });
  return errs;
}

/** Validates `extraVolumes`: name, hostPath and mountPath required, pathType known. */
function validateExtraVolumes(
  volumes: readonly HostPathMount[] | undefined,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (volumes ?? []).forEach((v, i) => {
    const p = `${path}[${i}]`;
    if (!v.name) errs.push(required(`${p}.name`, "the volume name must be set"));
    else if (names.has(v.name)) errs.push(invalid(`${p}.name`, v.name, "duplicate volume name"));
    else names.add(v.name);
    if (!v.hostPath) errs.push(required(`${p}.hostPath`, "the host path must be set"));
    if (!v.mountPath) errs.push(required(`${p}.mountPath`, "the mount path must be set"));
    const pt = v.pathType ?? "";
    if (!(HOST_PATH_TYPES as readonly string[]).includes(pt)) {
      errs.push(unsupported(`${p}.pathType`, pt, HOST_PATH_TYPES));
    }
  });
  return errs;
}

function validateComponent(c: ControlPlaneComponent | undefined, path: string): FieldError[] {
  const errs = [
    ...validateExtraArgs(c?.extraArgs, `${path}.extraArgs`),
    ...validateExtraVolumes(c?.extraVolumes, `${path}.extraVolumes`),
  ];
  (c?.extraEnvs ?? []).forEach((e, i) => {
    if (!e?.name) {
      errs.push(required(`${path}.extraEnvs[${i}].name`, "the variable name must be set"));
    }
  });
  return errs;
}

// ---- addresses ------------------------------------------------------------------------

/** Validates the local API endpoint: an IP advertise address and a port in 1..65535. */
export function validateAPIEndpoint(
  ep: { advertiseAddress?: string; bindPort?: number },
  path = "localAPIEndpoint",
): FieldError[] {
  const errs: FieldError[] = [];
  if (!isIP(ep.advertiseAddress ?? "")) {
    errs.push(
      invalid(`${path}.advertiseAddress`, ep.advertiseAddress ?? "", "ip address is not valid"),
    );
  }
  const port = ep.bindPort ?? 0;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    errs.push(
      invalid(
        `${path}.bindPort`,
        String(port),
        "port number is not valid; allowed range is 1-65535",
      ),
    );
  }
  return errs;
}

/**
 * Validates a comma-separated subnet list: parseable, at most two CIDRs (one per family),
 * each with at least `minAddresses` addresses.
 */
function validateIPNetList(text: string, minAddresses: number, path: string): {
  errors: FieldError[];
  warnings: string[];
  cidrs?: CIDR[];
} {
  // Go's ParseCIDRs does not trim: " fd00::/108" is invalid.
  const cidrs = /\s/.test(text) ? undefined : parseCIDRList(text);
  if (!cidrs) return { errors: [invalid(path, text, "couldn't parse subnet")], warnings: [] };
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  const dualStackMsg =
    "expected one (IPv4 or IPv6) CIDR or two CIDRs from each family for dual-stack networking";
  if (cidrs.length > 2 || (cidrs.length === 2 && !isDualStack(cidrs))) {
    errors.push(invalid(path, text, dualStackMsg));
  }
  for (const c of cidrs) {
    const size = rangeSize(c);
    if (size < BigInt(minAddresses)) {
      errors.push(
        invalid(
          path,
          formatCIDR(c),
          `subnet with ${size} address(es) is too small, the minimum is ${minAddresses}`,
        ),
      );
    }
    if (
      c.bits === 128 && (cidrContains(SITE_LOCAL, c.ip) || cidrContains(c, SITE_LOCAL.ip))
    ) {
      warnings.push(
        `the subnet ${
          formatCIDR(c)
        } contains IPv6 site-local addresses that belong to fec0::/10 which has been deprecated by rfc3879`,
      );
    }
  }
  return { errors, warnings, cidrs };
}

const SITE_LOCAL = parseCIDR("fec0::/10")!;

function argValue(args: readonly Arg[] | undefined, name: string): string | undefined {
  let out: string | undefined;
  for (const a of args ?? []) if (a.name === name) out = a.value;
  return out;
}

/** Validates `networking`: DNS domain, service subnet (size limits) and pod subnet (node mask). */
function validateNetworking(
  cluster: ClusterConfiguration,
  path = "networking",
): ValidationResult {
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  const net = cluster.networking ?? {};
  const domain = net.dnsDomain ?? "";
  for (const msg of dns1123SubdomainErrors(domain)) {
    errors.push(invalid(`${path}.dnsDomain`, domain, msg));
  }

  if (net.serviceSubnet) {
    const r = validateIPNetList(
      net.serviceSubnet,
      MIN_ADDRESSES_IN_SERVICE_SUBNET,
      `${path}.serviceSubnet`,
    );
    errors.push(...r.errors);
    warnings.push(...r.warnings);
    for (const c of r.cidrs ?? []) {
      const bits = c.bits;
      if (bits - c.prefix > MAX_BITS_FOR_SERVICE_SUBNET) {
        errors.push(
          invalid(
            `${path}.serviceSubnet`,
            formatCIDR(c),
            `specified service subnet is too large; for ${bits}-bit addresses, the mask must be >= ${
              bits - MAX_BITS_FOR_SERVICE_SUBNET
            }`,
          ),
        );
      }
    }
  }
  if (net.podSubnet) {
    const r = validateIPNetList(net.podSubnet, MIN_ADDRESSES_IN_POD_SUBNET, `${path}.podSubnet`);
    errors.push(...r.errors);
    warnings.push(...r.warnings);
    const cmArgs = cluster.controllerManager?.extraArgs;
    if (argValue(cmArgs, "allocate-node-cidrs") !== "false") {
      for (const c of r.cidrs ?? []) {
        const argName = c.bits === 128 ? "node-cidr-mask-size-ipv6" : "node-cidr-mask-size-ipv4";
        const given = argValue(cmArgs, argName);
        let nodeMask = c.bits === 128 ? 64 : 24;
        if (given !== undefined && given !== "") {
          if (!/^[+-]?\d+$/.test(given)) {
            errors.push(
              invalid(
                `${path}.podSubnet`,
                formatCIDR(c),
                `could not parse the value of the kube-controller-manager flag ${argName} as an integer`,
              ),
            );
            continue;
          }
          nodeMask = Number(given);
        }
        if (c.prefix > nodeMask) {
          errors.push(
            invalid(
              `${path}.podSubnet`,
              formatCIDR(c),
              `the size of pod subnet with mask ${c.prefix} is smaller than the size of node subnet with mask ${nodeMask}`,
            ),
          );
        } else if (nodeMask - c.prefix > POD_SUBNET_NODE_MASK_MAX_DIFF) {
          errors.push(
            invalid(
              `${path}.podSubnet`,
              formatCIDR(c),
              `pod subnet mask (${c.prefix}) and node-mask (${nodeMask}) difference is greater than ${POD_SUBNET_NODE_MASK_MAX_DIFF}`,
            ),
          );
        }
      }
    }
  }
  return { errors, warnings };
}

/** Validates certificate SANs: each an IP, a DNS-1123 subdomain or a wildcard subdomain. */
function validateCertSANs(sans: readonly string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const san of sans ?? []) {
    const e1 = dns1123SubdomainErrors(san);
    if (e1.length === 0) continue;
    const e2 = wildcardDNS1123SubdomainErrors(san);
    if (e2.length === 0 || isIP(san)) continue;
    errs.push(
      invalid(
        path,
        san,
        `altname is not a valid IP address, DNS label or a DNS label with subdomain wildcards: ${
          e1.join("; ")
        }; ${e2.join("; ")}`,
      ),
    );
  }
  return errs;
}

/** Validates `host[:port]` endpoints (`controlPlaneEndpoint`). */
function validateHostPort(endpoint: string | undefined, path: string): FieldError[] {
  if (!endpoint) return [];
  try {
    parseHostPort(endpoint);
    return [];
  } catch (e) {
    return [invalid(path, endpoint, `endpoint is not valid: ${(e as Error).message}`)];
  }
}

/** Validates an `imagePullPolicy` (empty, or one of {@link IMAGE_PULL_POLICIES}). */
function validateImagePullPolicy(policy: string | undefined, path: string): FieldError[] {
  const p = policy ?? "";
  if (p === "" || (IMAGE_PULL_POLICIES as readonly string[]).includes(p)) return [];
  return [
    invalid(path, p, `invalid pull policy; supported values: ${quoteList(IMAGE_PULL_POLICIES)}`),
  ];
}

/**
 * Validates a defaulted UpgradeConfiguration (upstream `ValidateUpgradeConfiguration`): the
 * `apply` and `node` patch directories absolute when set, their image pull policies known,
 * the timeouts durations. Throws a {@link ValidationError} naming every bad field.
 */
export function validateUpgradeConfiguration(cfg: UpgradeConfiguration): void {
  const errs: FieldError[] = validateTimeouts(
    cfg.timeouts as Record<string, string | undefined> | undefined,
  );
  for (const name of ["apply", "node"]) {
    const section = (cfg[name] ?? {}) as {
      patches?: { directory?: string };
      imagePullPolicy?: string;
    };
    if (section.patches) {
      errs.push(...validateAbsolutePath(section.patches.directory, `${name}.patches.directory`));
    }
    errs.push(...validateImagePullPolicy(section.imagePullPolicy, `${name}.imagePullPolicy`));
  }
  if (errs.length > 0) throw new ValidationError(errs);
}

/** Validates that a path is absolute. */
function validateAbsolutePath(p: string | undefined, path: string): FieldError[] {
  return (p ?? "").startsWith("/") ? [] : [invalid(path, p ?? "", "path is not absolute")];
}

// ---- images ---------------------------------------------------------------------------

const ALNUM = "[a-z0-9]+";
const SEPARATOR = "(?:[._]|__|[-]+)";
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const IMAGE_REFERENCE_RE = new RegExp(
  `^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*(?::[\\w][\\w.-]{0,127})?$`,
);

/** Validates an image repository (`registry.k8s.io`, `myreg:5000/mirror`). */
function validateImageRepository(repo: string, path: string): FieldError[] {
  return IMAGE_REFERENCE_RE.test(`${repo}/name:tag`)
    ? []
    : [invalid(path, repo, "invalid image repository format")];
}

// ---- etcd -----------------------------------------------------------------------------

/** Validates `etcd`: local XOR external; external TLS files all-or-none; URLs; paths. */
function validateEtcd(etcd: Etcd | undefined, path = "etcd"): FieldError[] {
  const errs: FieldError[] = [];
  const e = etcd ?? {};
  if (!e.local && !e.external) {
    return [invalid(path, "", "either .Etcd.Local or .Etcd.External is required")];
  }
  if (e.local && e.external) {
    return [invalid(path, "", ".Etcd.Local and .Etcd.External are mutually exclusive")];
  }
  if (e.local) {
    const p = `${path}.local`;
    errs.push(...validateAbsolutePath(e.local.dataDir, `${p}.dataDir`));
    errs.push(...validateCertSANs(e.local.serverCertSANs, `${p}.serverCertSANs`));
    errs.push(...validateCertSANs(e.local.peerCertSANs, `${p}.peerCertSANs`));
    if (e.local.imageRepository) {
      errs.push(...validateImageRepository(e.local.imageRepository, `${p}.imageRepository`));
    }
    errs.push(...validateExtraArgs(e.local.extraArgs, `${p}.extraArgs`));
    (e.local.extraEnvs ?? []).forEach((env, i) => {
      if (!env?.name) {
        errs.push(required(`${p}.extraEnvs[${i}].name`, "the variable name must be set"));
      }
    });
  }
  if (e.external) {
    const p = `${path}.external`;
    const ext = e.external;
    const ca = ext.caFile ?? "";
    const cert = ext.certFile ?? "";
    const key = ext.keyFile ?? "";
    const requireHTTPS = !(ca === "" && cert === "" && key === "");
    if ((cert === "") !== (key === "")) {
      errs.push(
        invalid(
          p,
          "",
          "either both or none of .Etcd.External.CertFile and .Etcd.External.KeyFile must be set",
        ),
      );
    }
    if (cert !== "" && key !== "" && ca === "") {
      errs.push(
        invalid(
          p,
          "",
          "setting .Etcd.External.CertFile and .Etcd.External.KeyFile requires .Etcd.External.CAFile",
        ),
      );
    }
    if (!ext.endpoints || ext.endpoints.length === 0) {
      errs.push(invalid(`${p}.endpoints`, "", "at least one endpoint must be specified"));
    } else {
      errs.push(...validateURLs(ext.endpoints, requireHTTPS, `${p}.endpoints`));
    }
    errs.push(...validateURLs(ext.httpEndpoints ?? [], false, `${p}.httpEndpoints`));
    if (ca) errs.push(...validateAbsolutePath(ca, `${p}.caFile`));
    if (cert) errs.push(...validateAbsolutePath(cert, `${p}.certFile`));
    if (key) errs.push(...validateAbsolutePath(key, `${p}.keyFile`));
  }
  return errs;
}

/**
 * Upstream's `ValidateURLs`: each URL must parse (Go's `url.Parse`), have a scheme, and use
 * `https` when `requireHTTPS`.
 */
function validateURLs(urls: readonly string[], requireHTTPS: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const url of urls) {
    const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url);
    const scheme = m?.[1].toLowerCase() ?? "";
    const parseError = url.startsWith(":")
      ? "missing protocol scheme"
      : !m && (url.split("/")[0] ?? "").includes(":")
      ? "first path segment in URL cannot contain colon"
      : undefined;
    if (parseError) {
      errs.push(
        invalid(path, url, `URL parse error: parse ${JSON.stringify(url)}: ${parseError}`),
      );
      continue;
    }
    if (requireHTTPS && scheme !== "https") {
      errs.push(invalid(path, url, "the URL must be using the HTTPS scheme"));
    }
    if (scheme === "") errs.push(invalid(path, url, "the URL without scheme is not allowed"));
  }
  return errs;
}

// ---- cluster-wide ---------------------------------------------------------------------

/** Validates `featureGates`: only kubeadm's known gates, boolean values. */
export function validateFeatureGates(
  gates: Readonly<Record<string, unknown>> | undefined,
  path = "featureGates",
): FieldError[] {
  const errs: FieldError[] = [];
  // Upstream reports each unknown gate with the whole map (rendered as JSON) as the value.
  const sorted = Object.fromEntries(Object.entries(gates ?? {}).sort(([a], [b]) => a < b ? -1 : 1));
  for (const [k, v] of Object.entries(sorted)) {
    if (!isKnownFeature(k)) {
      errs.push({
        field: path,
        value: JSON.stringify(sorted),
        detail: `${k} is not a valid feature name.`,
        jsonValue: true,
      });
    } else if (typeof v !== "boolean") {
      errs.push(
        invalid(
          `${path}.${k}`,
          String(v),
          `invalid value ${String(v)} for feature-gate key: ${k}, use true|false instead`,
        ),
      );
    }
  }
  return errs;
}

/** Validates `encryptionAlgorithm`. */
function validateEncryptionAlgorithm(
  algo: string | undefined,
  path = "encryptionAlgorithm",
): FieldError[] {
  const a = algo ?? "";
  if ((ENCRYPTION_ALGORITHMS as readonly string[]).includes(a)) return [];
  const sorted = [...ENCRYPTION_ALGORITHMS].sort();
  return [
    invalid(
      path,
      a,
      `Invalid encryption algorithm ${JSON.stringify(a)}. Must be one of [${sorted.join(" ")}]`,
    ),
  ];
}

/** Validates the certificate validity periods (> 0) and warns above the recommendations. */
function validateCertValidity(cluster: ClusterConfiguration): ValidationResult {
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  const leafDefault = CERT_VALIDITY_HOURS * 3_600_000;
  const caDefault = CA_CERT_VALIDITY_HOURS * 3_600_000;
  const check = (field: "certificateValidityPeriod" | "caCertificateValidityPeriod") => {
    const text = cluster[field];
    if (text === undefined) return undefined;
    let ms: number;
    try {
      ms = parseDuration(text);
    } catch (e) {
      errors.push(invalid(field, text, (e as Error).message));
      return undefined;
    }
    if (ms <= 0) {
      errors.push(invalid(field, text, "the validity period must be greater than 0"));
      return undefined;
    }
    return ms;
  };
  const leaf = check("certificateValidityPeriod");
  const ca = check("caCertificateValidityPeriod");
  if (leaf !== undefined && leaf > leafDefault) {
    warnings.push(
      `WARNING: certificateValidityPeriod: the value ${
        formatDuration(leaf)
      } is more than the recommended default for certificate expiration: ${
        formatDuration(leafDefault)
      }`,
    );
  }
  if (ca !== undefined && ca > caDefault) {
    warnings.push(
      `WARNING: caCertificateValidityPeriod: the value ${
        formatDuration(ca)
      } is more than the recommended default for CA certificate expiration: ${
        formatDuration(caDefault)
      }`,
    );
  }
  if (leaf !== undefined && ca !== undefined && leaf > ca) {
    warnings.push(
      `WARNING: certificateValidityPeriod: the value ${
        formatDuration(leaf)
      } is more than the caCertificateValidityPeriod: ${formatDuration(ca)}`,
    );
  }
  return { errors, warnings };
}

/** Validates a defaulted ClusterConfiguration. */
function validateClusterConfiguration(cluster: ClusterConfiguration): ValidationResult {
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  if (cluster.dns?.imageRepository) {
    errors.push(...validateImageRepository(cluster.dns.imageRepository, "dns.imageRepository"));
  }
  const net = validateNetworking(cluster);
  errors.push(...net.errors);
  warnings.push(...net.warnings);
  errors.push(...validateCertSANs(cluster.apiServer?.certSANs, "apiServer.certSANs"));
  errors.push(...validateComponent(cluster.apiServer, "apiServer"));
  errors.push(...validateComponent(cluster.controllerManager, "controllerManager"));
  errors.push(...validateComponent(cluster.scheduler, "scheduler"));
  errors.push(...validateAbsolutePath(cluster.certificatesDir, "certificatesDir"));
  errors.push(...validateFeatureGates(cluster.featureGates));
  errors.push(...validateHostPort(cluster.controlPlaneEndpoint, "controlPlaneEndpoint"));
  errors.push(...validateImageRepository(cluster.imageRepository ?? "", "imageRepository"));
  errors.push(...validateEtcd(cluster.etcd));
  errors.push(...validateEncryptionAlgorithm(cluster.encryptionAlgorithm));
  const validity = validateCertValidity(cluster);
  errors.push(...validity.errors);
  warnings.push(...validity.warnings);
  return { errors, warnings };
}

/** Validates `timeouts`: every value a Go duration that is not negative. */
export function validateTimeouts(
  timeouts: Readonly<Record<string, string | undefined>> | undefined,
  path = "timeouts",
): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(timeouts ?? {})) {
    if (v === undefined) continue;
    try {
      if (parseDurationNs(v) < 0n) {
        errs.push(invalid(`${path}.${k}`, v, "the timeout must not be negative"));
      }
    } catch (e) {
      errs.push(invalid(`${path}.${k}`, v, (e as Error).message));
    }
  }
  return errs;
}

/** Validates a defaulted InitConfiguration together with its ClusterConfiguration. */
export function validateInitConfiguration(
  init: InitConfiguration,
  cluster: ClusterConfiguration,
): ValidationResult {
  const errors: FieldError[] = [];
  errors.push(...validateNodeRegistration(init.nodeRegistration ?? {}));
  errors.push(...validateBootstrapTokens(init.bootstrapTokens ?? []));
  const clusterResult = validateClusterConfiguration(cluster);
  errors.push(...clusterResult.errors);
  errors.push(...validateAPIEndpoint(init.localAPIEndpoint ?? {}));
  errors.push(...validateCertificateKey(init.certificateKey));
  errors.push(...validateTimeouts(init.timeouts as Record<string, string | undefined> | undefined));
  return { errors, warnings: clusterResult.warnings };
}

/**
 * Merges the preflight errors to ignore from flags and config (case-insensitive, sorted);
 * `all` cannot be combined with individual checks.
 */
export function validateIgnorePreflightErrors(
  fromFlags: readonly string[],
  fromConfig: readonly string[],
): { ignored: string[]; errors: FieldError[] } {
  const set = new Set<string>();
  for (const item of [...fromConfig, ...fromFlags]) set.add(item.toLowerCase());
  const ignored = [...set].sort();
  const errors = set.has("all") && set.size > 1
    ? [
      invalid(
        "ignore-preflight-errors",
        ignored.join(","),
        "don't specify individual checks if 'all' is used",
      ),
    ]
    : [];
  return { ignored, errors };
}
