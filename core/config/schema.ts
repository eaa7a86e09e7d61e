/**
 * The field schema of every kubeadm kind (v1beta4, and the experimental v1: v1beta4 plus
 * `mergeMethod` on arguments), used for strict decoding.
 *
 * Upstream decodes documents into Go structs with strict checks: a field the struct does not
 * have is reported as `unknown field "<path>"`, and a value of the wrong JSON type fails the
 * decode. {@link checkDocument} does the same against the tables below and, for unknown
 * fields, suggests the closest known name.
 *
 * @module
 */

/** The shape of one field. `null` is accepted for every field (Go reads it as the zero value). */
export type FieldSchema =
  | { type: "string" }
  | { type: "bool" }
  | { type: "int" }
  | { type: "duration" }
  | { type: "any" }
  | { type: "object"; fields: Readonly<Record<string, FieldSchema>> }
  | { type: "list"; items: FieldSchema }
  | { type: "map"; values: FieldSchema };

const str: FieldSchema = { type: "string" };
const bool: FieldSchema = { type: "bool" };
const int: FieldSchema = { type: "int" };
const duration: FieldSchema = { type: "duration" };
const any: FieldSchema = { type: "any" };
const obj = (fields: Record<string, FieldSchema>): FieldSchema => ({ type: "object", fields });
const list = (items: FieldSchema): FieldSchema => ({ type: "list", items });
const map = (values: FieldSchema): FieldSchema => ({ type: "map", values });
const strings = list(str);
const typeMeta = { apiVersion: str, kind: str };

// ---- shared pieces ----------------------------------------------------------------------

const argV4 = obj({ name: str, value: str });
const hostPathMount = obj({
  name: str,
  hostPath: str,
  mountPath: str,
  readOnly: bool,
  pathType: str,
});
const keySelector = obj({ name: str, key: str, optional: bool });
const envVar = obj({
  name: str,
  value: str,
  valueFrom: obj({
    fieldRef: obj({ apiVersion: str, fieldPath: str }),
    resourceFieldRef: obj({ containerName: str, resource: str, divisor: any }),
    configMapKeyRef: keySelector,
    secretKeyRef: keySelector,
    fileKeyRef: obj({ volumeName: str, path: str, key: str, optional: bool }),
  }),
});
const taint = obj({ key: str, value: str, effect: str, timeAdded: str });
const apiEndpoint = obj({ advertiseAddress: str, bindPort: int });
const bootstrapToken = obj({
  token: str,
  description: str,
  ttl: duration,
  expires: str,
  usages: strings,
  groups: strings,
});
const patches = obj({ directory: str });
const timeouts = obj({
  controlPlaneComponentHealthCheck: duration,
  kubeletHealthCheck: duration,
  kubernetesAPICall: duration,
  etcdAPICall: duration,
  tlsBootstrap: duration,
  discovery: duration,
  upgradeManifests: duration,
});
const externalEtcd = obj({
  endpoints: strings,
  httpEndpoints: strings,
  caFile: str,
  certFile: str,
  keyFile: str,
});
const networking = obj({ serviceSubnet: str, podSubnet: str, dnsDomain: str });

// ---- v1beta4 and v1 ---------------------------------------------------------------------

/** The kinds of v1beta4, or of v1 when `arg` carries `mergeMethod`. */
function kubeadmSchemas(arg: FieldSchema): Readonly<Record<string, FieldSchema>> {
  const componentV4 = {
    extraArgs: list(arg),
    extraVolumes: list(hostPathMount),
    extraEnvs: list(envVar),
  };
  const nodeRegistrationV4 = obj({
    name: str,
    criSocket: str,
    taints: list(taint),
    kubeletExtraArgs: list(arg),
    ignorePreflightErrors: strings,
    imagePullPolicy: str,
    imagePullSerial: bool,
  });
  const discoveryV4 = {
    bootstrapToken: obj({
      token: str,
      apiServerEndpoint: str,
      caCertHashes: strings,
      unsafeSkipCAVerification: bool,
    }),
    file: obj({ kubeConfigPath: str }),
    tlsBootstrapToken: str,
  };

  return {
    InitConfiguration: obj({
      ...typeMeta,
      bootstrapTokens: list(bootstrapToken),
      dryRun: bool,
      nodeRegistration: nodeRegistrationV4,
      localAPIEndpoint: apiEndpoint,
      certificateKey: str,
      skipPhases: strings,
      patches,
      timeouts,
    }),
    ClusterConfiguration: obj({
      ...typeMeta,
      etcd: obj({
        local: obj({
          imageRepository: str,
          imageTag: str,
          dataDir: str,
          extraArgs: list(arg),
          extraEnvs: list(envVar),
          serverCertSANs: strings,
          peerCertSANs: strings,
        }),
        external: externalEtcd,
      }),
      networking,
      kubernetesVersion: str,
      controlPlaneEndpoint: str,
      apiServer: obj({ ...componentV4, certSANs: strings }),
      controllerManager: obj(componentV4),
      scheduler: obj(componentV4),
      dns: obj({ imageRepository: str, imageTag: str, disabled: bool }),
      proxy: obj({ disabled: bool }),
      certificatesDir: str,
      imageRepository: str,
      featureGates: map(bool),
      clusterName: str,
      encryptionAlgorithm: str,
      certificateValidityPeriod: duration,
      caCertificateValidityPeriod: duration,
    }),
    JoinConfiguration: obj({
      ...typeMeta,
      dryRun: bool,
      nodeRegistration: nodeRegistrationV4,
      caCertPath: str,
      discovery: obj(discoveryV4),
      controlPlane: obj({ localAPIEndpoint: apiEndpoint, certificateKey: str }),
      skipPhases: strings,
      patches,
      timeouts,
    }),
    ResetConfiguration: obj({
      ...typeMeta,
      cleanupTmpDir: bool,
      certificatesDir: str,
      criSocket: str,
      dryRun: bool,
      force: bool,
      ignorePreflightErrors: strings,
      skipPhases: strings,
      unmountFlags: strings,
      timeouts,
    }),
    UpgradeConfiguration: obj({
      ...typeMeta,
      apply: obj({
        kubernetesVersion: str,
        allowExperimentalUpgrades: bool,
        allowRCUpgrades: bool,
        certificateRenewal: bool,
        dryRun: bool,
        etcdUpgrade: bool,
        forceUpgrade: bool,
        ignorePreflightErrors: strings,
        patches,
        printConfig: bool,
        skipPhases: strings,
        SkipPhases: strings,
        imagePullPolicy: str,
        imagePullSerial: bool,
      }),
      diff: obj({ kubernetesVersion: str, contextLines: int }),
      node: obj({
        certificateRenewal: bool,
        dryRun: bool,
        etcdUpgrade: bool,
        ignorePreflightErrors: strings,
        skipPhases: strings,
        patches,
        imagePullPolicy: str,
        imagePullSerial: bool,
      }),
      plan: obj({
        kubernetesVersion: str,
        allowExperimentalUpgrades: bool,
        allowRCUpgrades: bool,
        dryRun: bool,
        etcdUpgrade: bool,
        ignorePreflightErrors: strings,
        printConfig: bool,
      }),
      timeouts,
    }),
  };
}

/** v1beta4 kinds. */
export const V1BETA4_SCHEMAS = kubeadmSchemas(argV4);
/** The experimental v1 kinds (`--allow-experimental-api`): v1beta4 plus `Arg.mergeMethod`. */
export const V1_SCHEMAS = kubeadmSchemas(obj({ name: str, value: str, mergeMethod: str }));

// ---- checking ---------------------------------------------------------------------------

/** An unknown field found by {@link checkDocument}. */
export interface UnknownField {
  /** Dotted path, list indexes in brackets: `apiServer.extraArgs[0].nam`. */
  path: string;
  /** The closest known field name at that level, when one is near. */
  suggestion?: string;
}

/** A value of the wrong type found by {@link checkDocument}. */
export interface TypeMismatch {
  path: string;
  /** What the field holds in Go: `string`, `bool`, `int32`, `duration`, `object`, `list`. */
  expected: string;
  /** The JSON type found: `number`, `string`, `bool`, `object`, `array`. */
  found: string;
  /** The offending value as text. */
  value: string;
}

/** Result of a strict check. */
export interface StrictCheck {
  unknown: UnknownField[];
  mismatches: TypeMismatch[];
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (v instanceof Date) return "string";
  if (typeof v === "boolean") return "bool";
  return typeof v;
}

function show(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** Edit distance (case-insensitive) between two names. */
function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      const same = a[i - 1].toLowerCase() === b[j - 1].toLowerCase();
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (same ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

/** The candidate closest to `name` when it is near enough to be a likely typo. */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d < bestDist) {
      best = c;
      bestDist = d;
    }
  }
  if (best !== undefined && bestDist <= Math.max(2, Math.floor(name.length / 3))) return best;
  // A truncated or extended name (`network` for `networking`) is also a likely typo.
  const lower = name.toLowerCase();
  return name.length >= 4
    ? candidates.find((c) => c.toLowerCase().startsWith(lower) || lower.startsWith(c.toLowerCase()))
    : undefined;
}

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

function check(value: unknown, schema: FieldSchema, path: string, out: StrictCheck): void {
  if (value === null || value === undefined || schema.type === "any") return;
  const mismatch = (expected: string): void => {
    out.mismatches.push({ path, expected, found: jsonType(value), value: show(value) });
  };
  switch (schema.type) {
    case "string":
      if (typeof value !== "string" && !(value instanceof Date)) mismatch("string");
      return;
    case "duration":
      if (typeof value !== "string") mismatch("duration");
      return;
    case "bool":
      if (typeof value !== "boolean") mismatch("bool");
      return;
    case "int":
      if (typeof value !== "number" || !Number.isInteger(value)) mismatch("int32");
      return;
    case "list":
      if (!Array.isArray(value)) return mismatch("list");
      value.forEach((item, i) => check(item, schema.items, `${path}[${i}]`, out));
      return;
    case "map":
      if (typeof value !== "object" || Array.isArray(value)) return mismatch("object");
      for (const [k, v] of Object.entries(value)) check(v, schema.values, join(path, k), out);
      return;
    case "object": {
      if (typeof value !== "object" || Array.isArray(value) || value instanceof Date) {
        return mismatch("object");
      }
      const known = Object.keys(schema.fields);
      for (const [k, v] of Object.entries(value)) {
        const field = schema.fields[k];
        if (field === undefined) {
          out.unknown.push({ path: join(path, k), suggestion: closestName(k, known) });
          continue;
        }
        check(v, field, join(path, k), out);
      }
      return;
    }
  }
}

function zeroValue(schema: FieldSchema): unknown {
  switch (schema.type) {
    case "string":
    case "duration":
      return "";
    case "bool":
      return false;
    case "int":
      return 0;
    case "list":
      return [];
    case "object":
    case "map":
      return {};
    case "any":
      return null;
  }
}

/**
 * A document as Go decodes it into the kind's structs: a `null` field is left unset (its zero
 * value), a `null` list item or map value becomes the zero value of its type (`bootstrapTokens:
 * [null]` is one empty token, as upstream). Values of the wrong type are left as they are
 * ({@link checkDocument} reports them).
 */
export function withGoZeroValues(value: unknown, schema: FieldSchema): unknown {
  const item = (v: unknown, s: FieldSchema) =>
    v === null && s.type !== "any" ? zeroValue(s) : withGoZeroValues(v, s);
  switch (schema.type) {
    case "list":
      return Array.isArray(value) ? value.map((v) => item(v, schema.items)) : value;
    case "map":
      if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, item(v, schema.values)]),
      );
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
      if (value instanceof Date) return value;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (v === null) continue;
        const field = schema.fields[k];
        out[k] = field ? withGoZeroValues(v, field) : v;
      }
      return out;
    }
    default:
      return value;
  }
}

/** Checks a decoded document against a kind's schema (strict decoding). */
export function checkDocument(value: unknown, schema: FieldSchema): StrictCheck {
  const out: StrictCheck = { unknown: [], mismatches: [] };
  check(value, schema, "", out);
  return out;
}

/** Renders an unknown field the way upstream's strict decoder does, plus a suggestion. */
export function describeUnknownField(u: UnknownField): string {
  const base = `unknown field ${JSON.stringify(u.path)}`;
  if (!u.suggestion) return base;
  const dot = u.path.lastIndexOf(".");
  const suggested = dot < 0 ? u.suggestion : `${u.path.slice(0, dot)}.${u.suggestion}`;
  return `${base} (did you mean ${JSON.stringify(suggested)}?)`;
}

/** Renders a type mismatch like Go's JSON decoder does. */
export function describeTypeMismatch(m: TypeMismatch): string {
  return `cannot unmarshal ${m.found} into field ${
    JSON.stringify(m.path)
  } of type ${m.expected} (value: ${m.value})`;
}
