/**
 * Reading a kubeadm configuration file: splitting documents, identifying their kinds and
 * decoding them strictly.
 *
 * Follows upstream's `SplitConfigDocuments` and `documentMapToInitConfiguration` (v1.37):
 * every document needs `apiVersion` and `kind`, a kind may appear only once, old kubeadm API
 * versions (`v1beta3` and older) are rejected with the kubeadm release that still reads them,
 * the experimental `kubeadm.k8s.io/v1` only where the command allows it, documents of unknown
 * groups are ignored with a warning. Unlike `kubeadm init` upstream (which only warns),
 * unknown fields are an error unless `strict: false`, and the error names the field and
 * suggests the closest known one. Warnings are returned, never printed.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import { parseKubeYaml } from "../yaml/kube_yaml.ts";
import {
  checkDocument,
  describeTypeMismatch,
  describeUnknownField,
  type StrictCheck,
  V1_SCHEMAS,
  V1BETA4_SCHEMAS,
  withGoZeroValues,
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
const KUBELET_GROUP = "kubelet.config.k8s.io";
/** The kube-proxy component-config group. */
const KUBEPROXY_GROUP = "kubeproxy.config.k8s.io";

/** kubeadm API versions that were removed, with the kubeadm release that still reads them. */
const OLD_KUBEADM_VERSIONS: Readonly<Record<string, string>> = {
  "kubeadm.k8s.io/v1alpha1": "v1.11",
  "kubeadm.k8s.io/v1alpha2": "v1.12",
  "kubeadm.k8s.io/v1alpha3": "v1.14",
  "kubeadm.k8s.io/v1beta1": "v1.15",
  "kubeadm.k8s.io/v1beta2": "v1.22",
  "kubeadm.k8s.io/v1beta3": "v1.36",
};

/** kubeadm API versions not released yet: refused unless the command allows them. */
const EXPERIMENTAL_KUBEADM_VERSIONS: ReadonlySet<string> = new Set(["kubeadm.k8s.io/v1"]);

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

/** Everything read from a configuration file, as v1beta4. */
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
  /** Warnings for the user (ignored documents, unknown fields when not strict). */
  warnings: string[];
}

/** Options for {@link loadConfigDocuments} and {@link loadInitConfig}. */
export interface LoadOptions {
  /** Name used in messages (the file path). Default `<config>`. */
  source?: string;
  /** Unknown fields are errors (default) or, when `false`, warnings. */
  strict?: boolean;
  /**
   * Accept the experimental `kubeadm.k8s.io/v1` (`--allow-experimental-api`, only
   * `config validate` and `config migrate`): read as v1beta4, its `mergeMethod`s checked and
   * dropped, as upstream's conversion drops them.
   */
  allowExperimental?: boolean;
}

/** Upstream's `GroupVersionKind.String()`. */
function gvkString(group: string, version: string, kind: string): string {
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

/** The merge methods the experimental `Arg.mergeMethod` accepts (empty: replace). */
const MERGE_METHODS = ["", "append", "prepend"];

/**
 * An experimental `kubeadm.k8s.io/v1` document as v1beta4: every `mergeMethod` of an argument
 * list is checked (upstream: `argument has an invalid merge method`) and dropped, as upstream's
 * v1 → v1beta4 conversion drops it.
 */
function v1ToV1beta4(
  value: Record<string, unknown>,
  info: DocumentInfo,
  errors: string[],
): Record<string, unknown> {
  const walk = (v: unknown, path: string): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${path}[${i}]`));
    if (!isObject(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === "mergeMethod") {
        if (typeof x !== "string" || !MERGE_METHODS.includes(x)) {
          // Upstream's field error names the argument list and the argument's index.
          const [, list, index] = /^(.*)\[(\d+)\]$/.exec(path) ?? [, path, "0"];
          errors.push(
            `${list}: Invalid value: "index ${index}": argument has an invalid merge method (${
              JSON.stringify(x)
            }) in document ${info.index + 1} (${info.gvk})`,
          );
        }
        continue;
      }
      out[k] = walk(x, path ? `${path}.${k}` : k);
    }
    return out;
  };
  const doc = walk(value, "") as Record<string, unknown>;
  doc.apiVersion = `${KUBEADM_GROUP}/v1beta4`;
  return doc;
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
  const result: LoadedConfig = { documents: [], warnings: [] };
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
  const mergeMethodErrors: string[] = [];
  let firstBadField: string | undefined;

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
          }). Please use kubeadm ${old} instead and run 'kubeadm config migrate --old-config old-config-file --new-config new-config-file', which will write the new, similar spec using a newer API version.`,
          {
            field: "apiVersion",
            value: gv,
            hint: `kubeadm-ts reads ${KUBEADM_GROUP}/v1beta4 only`,
          },
        );
      }
      if (EXPERIMENTAL_KUBEADM_VERSIONS.has(gv) && !options.allowExperimental) {
        throw new ConfigError(
          `${source}: experimental API spec: ${JSON.stringify(gv)} (kind: ${
            JSON.stringify(info.kind)
          }) is not allowed. You can use the --allow-experimental-api flag if the command supports it.`,
          { field: "apiVersion", value: gv, hint: `use ${KUBEADM_GROUP}/v1beta4` },
        );
      }
      const schemas = info.version === "v1beta4"
        ? V1BETA4_SCHEMAS
        : info.version === "v1"
        ? V1_SCHEMAS
        : undefined;
      if (!schemas) {
        throw new ConfigError(
          `${source}: no kind ${JSON.stringify(info.kind)} is registered for version ${
            JSON.stringify(gv)
          }`,
          {
            field: "apiVersion",
            value: gv,
            hint: `supported version: ${KUBEADM_GROUP}/v1beta4`,
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
      const decoded = withGoZeroValues(value, schema) as typeof value;
      const doc = info.version === "v1" ? v1ToV1beta4(decoded, info, mergeMethodErrors) : decoded;
      switch (info.kind) {
        case "InitConfiguration":
          result.init = doc as InitConfiguration;
          break;
        case "ClusterConfiguration":
          result.cluster = doc as ClusterConfiguration;
          break;
        case "JoinConfiguration":
          result.join = doc as JoinConfiguration;
          break;
        case "ResetConfiguration":
          result.reset = doc as ResetConfiguration;
          break;
        case "UpgradeConfiguration":
          result.upgrade = doc as UpgradeConfiguration;
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

  const problems = [...typeErrors, ...unknownErrors, ...mergeMethodErrors];
  if (problems.length > 0) {
    throw new ConfigError(`${source}: ${problems.join("; ")}`, {
      field: firstBadField ?? (mergeMethodErrors.length > 0 ? "mergeMethod" : undefined),
      hint: unknownErrors.length > 0
        ? "remove or correct the field; 'kubeadm config print init-defaults' shows the known fields"
        : typeErrors.length > 0
        ? "quote values that must be strings"
        : `mergeMethod is one of ${MERGE_METHODS.filter((m) => m).join(", ")} or empty (replace)`,
    });
  }
  return result;
}

/**
 * Loads the configuration for `kubeadm init`. With no text, returns an empty result. With
 * text, at least an InitConfiguration or a ClusterConfiguration must be present; JoinConfiguration
 * and the other kubeadm kinds are recognized and ignored with upstream's warning.
 */
export function loadInitConfig(text: string | undefined, options: LoadOptions = {}): LoadedConfig {
  if (text === undefined) return { documents: [], warnings: [] };
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
