/**
 * Reading a kubeadm configuration file: splitting documents, identifying their kinds and
 * decoding them strictly.
 *
 * Follows upstream's `SplitConfigDocuments` and `documentMapToInitConfiguration`: every
 * document needs `apiVersion` and `kind`, a kind may appear only once, old kubeadm API
 * versions are rejected, `v1beta3` is accepted (converted to v1beta4, with a deprecation
 * warning), documents of unknown groups are ignored with a warning. Unlike `kubeadm init`
 * upstream (which only warns), unknown fields are an error unless `strict: false`, and the
 * error names the field and suggests the closest known one. Warnings are returned, never
 * printed.
 *
 * @module
 */
import { ConfigError, type FieldError, ValidationError } from "../errors.ts";
import { parseKubeYaml } from "../yaml/kube_yaml.ts";
import {
  convertClusterConfiguration,
  convertInitConfiguration,
  convertJoinConfiguration,
} from "./convert_v1beta3.ts";
import {
  checkDocument,
  describeTypeMismatch,
  describeUnknownField,
  type StrictCheck,
  V1_SCHEMAS,
  V1BETA3_SCHEMAS,
  V1BETA4_SCHEMAS,
} from "./schema.ts";
import type {
  ClusterConfiguration,
  InitConfiguration,
  JoinConfiguration,
  KubeletConfiguration,
  KubeProxyConfiguration,
  ResetConfiguration,
  UpgradeConfiguration,
} from "./types.ts";

/** The kubeadm API group. */
export const KUBEADM_GROUP = "kubeadm.k8s.io";
/** The kubelet component-config group. */
export const KUBELET_GROUP = "kubelet.config.k8s.io";
/** The kube-proxy component-config group. */
export const KUBEPROXY_GROUP = "kubeproxy.config.k8s.io";

/** kubeadm API versions that were removed, with the kubeadm release that still reads them. */
const OLD_KUBEADM_VERSIONS: Readonly<Record<string, string>> = {
  "kubeadm.k8s.io/v1alpha1": "v1.11",
  "kubeadm.k8s.io/v1alpha2": "v1.12",
  "kubeadm.k8s.io/v1alpha3": "v1.14",
  "kubeadm.k8s.io/v1beta1": "v1.15",
  "kubeadm.k8s.io/v1beta2": "v1.22",
};

/** Identity of one document in the file. */
export interface DocumentInfo {
  /** 0-based position in the stream. */
  index: number;
  group: string;
  version: string;
  kind: string;
  /** Upstream's rendering: `kubeadm.k8s.io/v1beta4, Kind=InitConfiguration`. */
  gvk: string;
}

/** Everything read from a configuration file, converted to v1beta4. */
export interface LoadedConfig {
  init?: InitConfiguration;
  cluster?: ClusterConfiguration;
  join?: JoinConfiguration;
  reset?: ResetConfiguration;
  upgrade?: UpgradeConfiguration;
  kubelet?: KubeletConfiguration;
  kubeProxy?: KubeProxyConfiguration;
  /** The documents found, in file order. */
  documents: DocumentInfo[];
  /** Whether any kubeadm document used the deprecated v1beta3 API (and was converted). */
  convertedFromV1beta3: boolean;
  /** Warnings for the user (deprecated API, ignored documents, unknown fields when not strict). */
  warnings: string[];
}

/** Options for {@link loadConfigDocuments} and {@link loadInitConfig}. */
export interface LoadOptions {
  /** Name used in messages (the file path). Default `<config>`. */
  source?: string;
  /** Unknown fields are errors (default) or, when `false`, warnings. */
  strict?: boolean;
  /**
   * Read the experimental `kubeadm.k8s.io/v1` (`--allow-experimental-api` of `config validate`
   * and `config migrate`); otherwise its documents are refused as upstream refuses them.
   */
  allowExperimental?: boolean;
}

/** kubeadm API versions read only when experimental APIs are allowed. */
const EXPERIMENTAL_KUBEADM_VERSIONS: ReadonlySet<string> = new Set(["kubeadm.k8s.io/v1"]);

/**
 * Checks the `mergeMethod` of every argument list of an experimental `v1` document (upstream's
 * `ValidateExtraArgs`) and drops it: it does not exist in v1beta4, into which the document is
 * read.
 */
function takeMergeMethods(value: unknown, path: string, errors: FieldError[]): void {
  if (Array.isArray(value)) {
    value.forEach((v) => takeMergeMethods(v, path, errors));
    return;
  }
  if (!isObject(value)) return;
  for (const [key, v] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if ((key === "extraArgs" || key === "kubeletExtraArgs") && Array.isArray(v)) {
      v.forEach((a, i) => {
        if (!isObject(a) || a.mergeMethod === undefined || a.mergeMethod === null) return;
        const m = a.mergeMethod;
        if (m !== "" && m !== "append" && m !== "prepend") {
          errors.push({
            field: at,
            value: `index ${i}`,
            detail: "argument has an invalid merge method",
          });
        }
        delete a.mergeMethod;
      });
    } else {
      takeMergeMethods(v, at, errors);
    }
  }
}

/** Upstream's `GroupVersionKind.String()`. */
export function gvkString(group: string, version: string, kind: string): string {
  return `${group}/${version}, Kind=${kind}`;
}

function goGVK(info: DocumentInfo): string {
  return `schema.GroupVersionKind{Group:${JSON.stringify(info.group)}, Version:${
    JSON.stringify(info.version)
  }, Kind:${JSON.stringify(info.kind)}}`;
}

function splitAPIVersion(apiVersion: string): { group: string; version: string } | undefined {
  if (apiVersion === "") return { group: "", version: "" };
  const parts = apiVersion.split("/");
  if (parts.length === 1) return { group: "", version: parts[0] };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return undefined;
}

/** Replaces YAML timestamps (read as Date) with RFC 3339 strings, recursively. */
function normalizeScalars(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString().replace(/\.000Z$/, "Z");
  if (Array.isArray(v)) return v.map(normalizeScalars);
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalizeScalars(x)]));
  }
  return v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Splits and decodes a configuration stream. Throws {@link ConfigError} (exit status 3) for
 * malformed YAML, documents without `apiVersion`/`kind`, a kind given twice, unsupported API
 * versions, unknown kinds in a known group, values of the wrong type and — when strict —
 * unknown fields.
 */
export function loadConfigDocuments(text: string, options: LoadOptions = {}): LoadedConfig {
  const source = options.source ?? "<config>";
  const strict = options.strict ?? true;
  const parsed = parseKubeYaml(text, source);
  const result: LoadedConfig = { documents: [], convertedFromV1beta3: false, warnings: [] };
  const seenKinds = new Set<string>();
  const duplicateErrors: string[] = [];
  const entries: { info: DocumentInfo; value: Record<string, unknown> }[] = [];

  for (const doc of parsed) {
    const value = isObject(doc.value) ? doc.value : {};
    const apiVersion = typeof value.apiVersion === "string" ? value.apiVersion : "";
    const kind = typeof value.kind === "string" ? value.kind : "";
    const gv = splitAPIVersion(apiVersion);
    if (!gv) {
      throw new ConfigError(
        `${source}: document ${doc.index + 1}: unexpected GroupVersion string: ${apiVersion}`,
        { field: "apiVersion", value: apiVersion },
      );
    }
    const info: DocumentInfo = {
      index: doc.index,
      group: gv.group,
      version: gv.version,
      kind,
      gvk: gvkString(gv.group, gv.version, kind),
    };
    if (!isObject(doc.value) || !info.group || !info.version || !info.kind) {
      throw new ConfigError(
        `${source}: invalid configuration for GroupVersionKind ${info.gvk}: kind and apiVersion is mandatory information that must be specified`,
        {
          field: !info.kind ? "kind" : "apiVersion",
          value: !info.kind ? kind : apiVersion,
          hint:
            `every document needs a group-qualified apiVersion (e.g. "kubeadm.k8s.io/v1beta4") and a kind`,
        },
      );
    }
    if (seenKinds.has(kind)) {
      duplicateErrors.push(
        `invalid configuration: kind ${JSON.stringify(kind)} is specified twice in YAML file`,
      );
      continue;
    }
    seenKinds.add(kind);
    result.documents.push(info);
    entries.push({ info, value: normalizeScalars(value) as Record<string, unknown> });
  }
  if (duplicateErrors.length > 0) {
    throw new ConfigError(
      `${source}: ${
        duplicateErrors.length === 1 ? duplicateErrors[0] : `[${duplicateErrors.join(", ")}]`
      }`,
      { field: "kind", hint: "merge the documents of the same kind into one" },
    );
  }

  const unknownErrors: string[] = [];
  const typeErrors: string[] = [];
  let firstBadField: string | undefined;
  let timeoutForControlPlane: string | undefined;
  let v1beta3Init: Record<string, unknown> | undefined;
  const mergeErrors: FieldError[] = [];

  // Process in upstream's order (sorted by GVK string) so ClusterConfiguration comes first.
  const ordered = [...entries].sort((
    a,
    b,
  ) => (a.info.gvk < b.info.gvk ? -1 : a.info.gvk > b.info.gvk ? 1 : 0));
  for (const { info, value } of ordered) {
    const gv = `${info.group}/${info.version}`;
    if (info.group === KUBEADM_GROUP) {
      const old = OLD_KUBEADM_VERSIONS[gv];
      if (old) {
        throw new ConfigError(
          `${source}: your configuration file uses an old API spec: ${JSON.stringify(gv)} (kind: ${
            JSON.stringify(info.kind)
          }). Please use kubeadm ${old} instead and run 'kubeadm config migrate --old-config old.yaml --new-config new.yaml', which will write the new, similar spec using a newer API version.`,
          { field: "apiVersion", value: gv },
        );
      }
      const experimental = EXPERIMENTAL_KUBEADM_VERSIONS.has(gv);
      if (experimental && !options.allowExperimental) {
        throw new ConfigError(
          `${source}: experimental API spec: ${JSON.stringify(gv)} (kind: ${
            JSON.stringify(info.kind)
          }) is not allowed. You can use the --allow-experimental-api flag if the command supports it.`,
          { field: "apiVersion", value: gv },
        );
      }
      const schemas = info.version === "v1beta4"
        ? V1BETA4_SCHEMAS
        : experimental
        ? V1_SCHEMAS
        : info.version === "v1beta3"
        ? V1BETA3_SCHEMAS
        : undefined;
      if (!schemas) {
        throw new ConfigError(
          `${source}: no kind ${JSON.stringify(info.kind)} is registered for version ${
            JSON.stringify(gv)
          }`,
          {
            field: "apiVersion",
            value: gv,
            hint:
              `supported versions: kubeadm.k8s.io/v1beta4 (kubeadm.k8s.io/v1beta3 is deprecated)`,
          },
        );
      }
      const schema = schemas[info.kind];
      if (!schema) {
        throw new ConfigError(
          `${source}: no kind ${JSON.stringify(info.kind)} is registered for version ${
            JSON.stringify(gv)
          }`,
          {
            field: "kind",
            value: info.kind,
            hint: `known kinds: ${Object.keys(schemas).join(", ")}`,
          },
        );
      }
      const check: StrictCheck = checkDocument(value, schema);
      if (experimental) takeMergeMethods(value, "", mergeErrors);
      for (const m of check.mismatches) {
        firstBadField ??= m.path;
        typeErrors.push(`${describeTypeMismatch(m)} in document ${info.index + 1} (${info.gvk})`);
      }
      for (const u of check.unknown) {
        if (strict) {
          firstBadField ??= u.path;
          unknownErrors.push(
            `strict decoding error: ${describeUnknownField(u)} in document ${
              info.index + 1
            } (${info.gvk})`,
          );
        } else {
          result.warnings.push(
            `error unmarshaling configuration ${goGVK(info)}: strict decoding error: ${
              describeUnknownField(u)
            }`,
          );
        }
      }
      if (info.version === "v1beta3") {
        result.convertedFromV1beta3 = true;
        result.warnings.push(
          `your configuration file uses a deprecated API spec: ${JSON.stringify(gv)} (kind: ${
            JSON.stringify(info.kind)
          }). Please use 'kubeadm config migrate --old-config old.yaml --new-config new.yaml', which will write the new, similar spec using a newer API version.`,
        );
      }
      const v3 = info.version === "v1beta3";
      switch (info.kind) {
        case "InitConfiguration":
          if (v3) v1beta3Init = value;
          else result.init = value as InitConfiguration;
          break;
        case "ClusterConfiguration":
          if (v3) {
            const converted = convertClusterConfiguration(value);
            timeoutForControlPlane = converted.timeoutForControlPlane;
            result.cluster = converted.cluster as ClusterConfiguration;
          } else {
            result.cluster = value as ClusterConfiguration;
          }
          break;
        case "JoinConfiguration":
          result.join = (v3 ? convertJoinConfiguration(value) : value) as JoinConfiguration;
          break;
        case "ResetConfiguration":
          result.reset = value as ResetConfiguration;
          break;
        case "UpgradeConfiguration":
          result.upgrade = value as UpgradeConfiguration;
          break;
      }
      continue;
    }
    if (info.group === KUBELET_GROUP || info.group === KUBEPROXY_GROUP) {
      const isKubelet = info.group === KUBELET_GROUP;
      const wantVersion = isKubelet ? "v1beta1" : "v1alpha1";
      const wantKind = isKubelet ? "KubeletConfiguration" : "KubeProxyConfiguration";
      if (info.version !== wantVersion) {
        throw new ConfigError(
          `${source}: unsupported apiVersion ${
            JSON.stringify(gv)
          }, you may have to do manual conversion to ${
            JSON.stringify(`${info.group}/${wantVersion}`)
          } and run kubeadm again`,
          { field: "apiVersion", value: gv },
        );
      }
      if (info.kind !== wantKind) {
        throw new ConfigError(
          `${source}: no kind ${JSON.stringify(info.kind)} is registered for version ${
            JSON.stringify(gv)
          }`,
          { field: "kind", value: info.kind, hint: `expected kind ${wantKind}` },
        );
      }
      if (isKubelet) result.kubelet = value as KubeletConfiguration;
      else result.kubeProxy = value as KubeProxyConfiguration;
      continue;
    }
    result.warnings.push(
      `[config] WARNING: Ignored configuration document with GroupVersionKind ${info.gvk}`,
    );
  }

  if (v1beta3Init || timeoutForControlPlane !== undefined) {
    result.init = convertInitConfiguration(
      v1beta3Init ?? (result.init as Record<string, unknown> | undefined) ??
        { apiVersion: "kubeadm.k8s.io/v1beta4", kind: "InitConfiguration" },
      timeoutForControlPlane,
    ) as InitConfiguration;
  }

  const problems = [...typeErrors, ...unknownErrors];
  if (problems.length > 0) {
    throw new ConfigError(`${source}: ${problems.join("; ")}`, {
      field: firstBadField,
      hint: unknownErrors.length > 0
        ? "remove or correct the field; 'kubeadm config print init-defaults' shows the known fields"
        : "quote values that must be strings",
    });
  }
  if (mergeErrors.length > 0) {
    throw new ValidationError(mergeErrors, { hint: 'a merge method is "append" or "prepend"' });
  }
  return result;
}

/**
 * Loads the configuration for `kubeadm init`. With no text, returns an empty result. With
 * text, at least an InitConfiguration or a ClusterConfiguration must be present; JoinConfiguration
 * and the other kubeadm kinds are recognized and ignored with upstream's warning.
 */
export function loadInitConfig(text: string | undefined, options: LoadOptions = {}): LoadedConfig {
  if (text === undefined) return { documents: [], convertedFromV1beta3: false, warnings: [] };
  const loaded = loadConfigDocuments(text, options);
  if (!loaded.init && !loaded.cluster) {
    throw new ConfigError(
      `${
        options.source ?? "<config>"
      }: no InitConfiguration or ClusterConfiguration kind was found in the configuration file`,
      { field: "kind", hint: "add an InitConfiguration or ClusterConfiguration document" },
    );
  }
  for (const info of loaded.documents) {
    if (
      info.group === KUBEADM_GROUP && info.kind !== "InitConfiguration" &&
      info.kind !== "ClusterConfiguration"
    ) {
      loaded.warnings.push(
        `[config] WARNING: Ignored configuration document with GroupVersionKind ${info.gvk}`,
      );
    }
  }
  return loaded;
}
