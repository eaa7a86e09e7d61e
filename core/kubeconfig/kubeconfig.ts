/**
 * Kubeconfig files (client-go's `clientcmd/api/v1.Config`): the one kubeconfig model of the
 * codebase. Types, the constructors kubeadm uses (`CreateBasic`, `CreateWithCerts`,
 * `CreateWithToken`), serialization in the layout client-go writes (optionally with
 * `clientcmd.Write`'s `null` empty lists), parsing (optionally with `clientcmd.Load`'s rules),
 * the current context and the cluster kubeadm picks (`GetClusterFromKubeConfig`).
 *
 * Embedded data (`certificate-authority-data`, `client-certificate-data`, `client-key-data`)
 * holds PEM text, base64-encoded in the file as client-go does.
 *
 * @module
 */
import {
  ConfigError,
  errorMessage,
  ExitCode,
  KubeadmError,
  type KubeadmErrorOptions,
} from "../errors.ts";
import {
  onlyDocument,
  type ParsedDocument,
  parseKubeYaml,
  parseKubeYamlOne,
  toKubeYaml,
} from "../yaml/kube_yaml.ts";
import { base64Decode, base64Encode } from "../text/base64.ts";

/** `clusters[].cluster`. Parsed documents keep fields this type does not name. */
export interface KubeconfigCluster {
  server: string;
  "certificate-authority-data"?: string;
  "certificate-authority"?: string;
  "insecure-skip-tls-verify"?: boolean;
  "tls-server-name"?: string;
  "proxy-url"?: string;
  "disable-compression"?: boolean;
  extensions?: unknown[];
  [key: string]: unknown;
}

/** `users[].user`. */
export interface KubeconfigUser {
  "client-certificate-data"?: string;
  "client-key-data"?: string;
  "client-certificate"?: string;
  "client-key"?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  exec?: unknown;
  "auth-provider"?: unknown;
  [key: string]: unknown;
}

/** `contexts[].context`. Parsed documents keep fields this type does not name. */
export interface KubeconfigContext {
  cluster: string;
  user: string;
  namespace?: string;
  [key: string]: unknown;
}

/** A `kind: Config` document. */
export interface Kubeconfig {
  apiVersion: "v1";
  kind: "Config";
  clusters: { name: string; cluster: KubeconfigCluster }[];
  contexts: { name: string; context: KubeconfigContext }[];
  "current-context": string;
  preferences: Record<string, unknown>;
  users: { name: string; user: KubeconfigUser }[];
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Base64 of UTF-8 text (how PEM is embedded). */
export function embedData(text: string | Uint8Array): string {
  return base64Encode(typeof text === "string" ? enc.encode(text) : text);
}

/** Decodes embedded base64 data back to bytes. */
export function embeddedBytes(data: string): Uint8Array {
  return base64Decode(data);
}

/** Decodes embedded base64 data back to text. */
export function embeddedText(data: string): string {
  return dec.decode(base64Decode(data));
}

/** An empty `kind: Config` (what `clientcmd.Load` gives for empty text). */
export function emptyKubeconfig(): Kubeconfig {
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [],
    contexts: [],
    "current-context": "",
    preferences: {},
    users: [],
  };
}

/** Context name kubeadm uses: `<user>@<cluster>`. */
function contextName(userName: string, clusterName: string): string {
  return `${userName}@${clusterName}`;
}

/**
 * A kubeconfig with one cluster, one user without credentials and one current context
 * (upstream `CreateBasic`). An empty CA leaves `certificate-authority-data` out.
 */
export function createBasicKubeconfig(
  serverURL: string,
  clusterName: string,
  userName: string,
  caCertPEM: string | Uint8Array,
): Kubeconfig {
  const ctx = contextName(userName, clusterName);
  const caLen = typeof caCertPEM === "string" ? caCertPEM.length : caCertPEM.length;
  const cluster: KubeconfigCluster = caLen > 0
    ? { "certificate-authority-data": embedData(caCertPEM), server: serverURL }
    : { server: serverURL };
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: clusterName, cluster }],
    contexts: [{ name: ctx, context: { cluster: clusterName, user: userName } }],
    "current-context": ctx,
    preferences: {},
    users: [{ name: userName, user: {} }],
  };
}

/** A kubeconfig authenticating with an embedded client certificate and key (`CreateWithCerts`). */
export function createKubeconfigWithCerts(
  serverURL: string,
  clusterName: string,
  userName: string,
  caCertPEM: string | Uint8Array,
  clientKeyPEM: string | Uint8Array,
  clientCertPEM: string | Uint8Array,
): Kubeconfig {
  const cfg = createBasicKubeconfig(serverURL, clusterName, userName, caCertPEM);
  const user: KubeconfigUser = {};
  if (clientCertPEM.length > 0) user["client-certificate-data"] = embedData(clientCertPEM);
  if (clientKeyPEM.length > 0) user["client-key-data"] = embedData(clientKeyPEM);
  cfg.users[0].user = user;
  return cfg;
}

/** A kubeconfig authenticating with a bearer token (`CreateWithToken`). */
export function createKubeconfigWithToken(
  serverURL: string,
  clusterName: string,
  userName: string,
  caCertPEM: string | Uint8Array,
  token: string,
): Kubeconfig {
  const cfg = createBasicKubeconfig(serverURL, clusterName, userName, caCertPEM);
  cfg.users[0].user = { token };
  return cfg;
}

/** Options of {@link serializeKubeconfig}. */
export interface SerializeKubeconfigOptions {
  /**
   * Write empty `clusters`, `contexts` and `users` as `null`, as `clientcmd.Write` does
   * (upstream's `expected-kubeconfig.yaml` has `users: null`); `apiVersion`, `kind` and
   * `current-context` are always written.
   */
  nullEmptyLists?: boolean;
}

/**
 * Serializes a kubeconfig in client-go 1.34's layout: sorted keys, and no `preferences` key
 * when it is empty (client-go omits the empty struct since 1.34). With
 * {@link SerializeKubeconfigOptions.nullEmptyLists}, exactly `clientcmd.Write`'s bytes.
 */
export function serializeKubeconfig(
  cfg: Kubeconfig,
  options: SerializeKubeconfigOptions = {},
): string {
  const { preferences, ...rest } = cfg;
  if (!options.nullEmptyLists) {
    return toKubeYaml(Object.keys(preferences ?? {}).length > 0 ? cfg : rest);
  }
  const list = <T>(l: T[] | null | undefined) => (l && l.length > 0 ? l : null);
  return toKubeYaml({
    ...rest,
    ...(preferences && Object.keys(preferences).length > 0 ? { preferences } : {}),
    apiVersion: "v1",
    kind: "Config",
    clusters: list(cfg.clusters),
    contexts: list(cfg.contexts),
    "current-context": cfg["current-context"] ?? "",
    users: list(cfg.users),
  });
}

function asRecord(v: unknown, what: string, source: string): Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new ConfigError(`${source}: ${what} must be a mapping`, { field: source });
  }
  return v as Record<string, unknown>;
}

function namedList<T>(
  v: unknown,
  key: string,
  item: string,
  source: string,
): { name: string; value: T }[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    throw new ConfigError(`${source}: ${key} must be a list`, { field: source });
  }
  return v.map((entry, i) => {
    const rec = asRecord(entry, `${key}[${i}]`, source);
    const name = rec.name;
    if (typeof name !== "string") {
      throw new ConfigError(`${source}: ${key}[${i}].name must be a string`, { field: source });
    }
    return { name, value: (rec[item] ?? {}) as T };
  });
}

/** Options of {@link parseKubeconfig}. */
export interface ParseKubeconfigOptions {
  /**
   * `clientcmd.Load`'s rules, which discovery needs: empty text is an empty config;
   * `kind`/`apiVersion`, when set, must be `Config`/`v1`; every `cluster` must be a mapping
   * and the `*-data` fields base64. Errors are then plain `Error`s carrying only the reason
   * (callers wrap them with their context), in client-go's words where it has them.
   */
  clientcmd?: boolean;
}

/**
 * Parses a kubeconfig file (YAML or JSON). Missing lists read as empty, like client-go; a
 * document that is not a mapping, or has malformed entries, is a {@link ConfigError}. See
 * {@link ParseKubeconfigOptions.clientcmd} for `clientcmd.Load`'s stricter rules.
 */
export function parseKubeconfig(
  text: string | Uint8Array,
  source = "<kubeconfig>",
  options: ParseKubeconfigOptions = {},
): Kubeconfig {
  const str = typeof text === "string" ? text : dec.decode(text);
  return options.clientcmd ? clientcmdLoad(str, source) : decodeKubeconfig(str, source);
}

function decodeKubeconfig(text: string | ParsedDocument[], source: string): Kubeconfig {
  let doc: unknown;
  try {
    doc = typeof text === "string" ? parseKubeYamlOne(text, source) : onlyDocument(text, source);
  } catch (e) {
    throw new ConfigError(`${source}: couldn't load kubeconfig: ${errorMessage(e)}`, {
      field: source,
      cause: e,
    });
  }
  return kubeconfigOfDocument(doc, source);
}

/**
 * A kubeconfig from its document as YAML or JSON reads it (`parseKubeconfig` without the
 * text): what a kubeconfig file holds once read back, for one a run has just serialized.
 */
export function kubeconfigOfDocument(doc: unknown, source = "<kubeconfig>"): Kubeconfig {
  const rec = asRecord(doc, "the kubeconfig", source);
  if (rec.kind !== undefined && rec.kind !== "Config") {
    throw new ConfigError(`${source}: kind must be "Config", got ${JSON.stringify(rec.kind)}`, {
      field: source,
    });
  }
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: namedList<KubeconfigCluster>(rec.clusters, "clusters", "cluster", source).map((
      c,
    ) => ({
      name: c.name,
      cluster: c.value,
    })),
    contexts: namedList<KubeconfigContext>(rec.contexts, "contexts", "context", source).map((
      c,
    ) => ({
      name: c.name,
      context: c.value,
    })),
    "current-context": typeof rec["current-context"] === "string" ? rec["current-context"] : "",
    preferences: (rec.preferences as Record<string, unknown>) ?? {},
    users: namedList<KubeconfigUser>(rec.users, "users", "user", source).map((u) => ({
      name: u.name,
      user: u.value,
    })),
  };
}

function checkBase64(v: unknown, field: string): void {
  if (v === undefined || v === null || v === "") return;
  if (typeof v !== "string") throw new KubeadmError(`${field}: expected a base64 string`);
  try {
    base64Decode(v);
  } catch {
    throw new KubeadmError(`${field}: illegal base64 data`);
  }
}

/** `clientcmd.Load`: see {@link ParseKubeconfigOptions.clientcmd}. */
function clientcmdLoad(text: string, source: string): Kubeconfig {
  const docs = parseKubeYaml(text, source);
  if (docs.length === 0) return emptyKubeconfig();
  const value = docs[0].value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new KubeadmError(
      `couldn't get version/kind; json parse error: expected a mapping, got ${
        Array.isArray(value) ? "a list" : JSON.stringify(value)
      }`,
    );
  }
  const rec = value as Record<string, unknown>;
  if (rec.kind !== undefined && rec.kind !== "" && rec.kind !== "Config") {
    throw new KubeadmError(`no kind ${JSON.stringify(rec.kind)} is registered for version "v1"`);
  }
  if (rec.apiVersion !== undefined && rec.apiVersion !== "" && rec.apiVersion !== "v1") {
    throw new KubeadmError(
      `no kind "Config" is registered for version ${JSON.stringify(rec.apiVersion)}`,
    );
  }
  let config: Kubeconfig;
  try {
    // The documents parsed above: the text is not parsed twice.
    config = decodeKubeconfig(docs, source);
  } catch (e) {
    const prefix = `${source}: `;
    const message = errorMessage(e);
    throw new KubeadmError(message.startsWith(prefix) ? message.slice(prefix.length) : message, {
      cause: e,
    });
  }
  config.clusters.forEach((c, i) => {
    if (typeof c.cluster !== "object" || c.cluster === null || Array.isArray(c.cluster)) {
      throw new KubeadmError(`clusters[${i}].cluster: expected an object`);
    }
    checkBase64(
      c.cluster["certificate-authority-data"],
      `clusters[${i}].certificate-authority-data`,
    );
  });
  config.users.forEach((u, i) => {
    checkBase64(u.user?.["client-certificate-data"], `users[${i}].client-certificate-data`);
    checkBase64(u.user?.["client-key-data"], `users[${i}].client-key-data`);
  });
  return config;
}

/** A context with its cluster and user entries. */
export interface CurrentContext {
  name: string;
  context: KubeconfigContext;
  clusterName: string;
  cluster: KubeconfigCluster;
  userName: string;
  user?: KubeconfigUser;
}

/** What a context lookup found: every part that exists. */
export interface ContextLookup {
  /** The context looked up (`current-context`, or the one asked for). */
  name: string;
  /** True when the name came from `current-context`. */
  current: boolean;
  context?: KubeconfigContext;
  cluster?: KubeconfigCluster;
  user?: KubeconfigUser;
}

/**
 * Looks up a kubeconfig's current (or named) context and the cluster and user it refers to,
 * without judging: parts that do not exist are absent. Every context resolution of the
 * codebase goes through here ({@link resolveContext} for the throwing form).
 */
export function lookupContext(config: Kubeconfig, contextName?: string): ContextLookup {
  const name = contextName ?? config["current-context"] ?? "";
  const context = (config.contexts ?? []).find((c) => (c.name ?? "") === name)?.context;
  const found: ContextLookup = { name, current: contextName === undefined, context };
  if (!context) return found;
  found.cluster = (config.clusters ?? []).find((c) => (c.name ?? "") === (context.cluster ?? ""))
    ?.cluster;
  found.user = (config.users ?? []).find((u) => (u.name ?? "") === (context.user ?? ""))?.user;
  return found;
}

/** Which part of a context could not be resolved. */
type ContextProblem = "context" | "cluster" | "user";

/**
 * A kubeconfig whose context, or the cluster or user it refers to, is missing (exit status 1:
 * a broken file, not an invalid configuration).
 */
class KubeconfigContextError extends ConfigError {
  override readonly code = "ERR_KUBECONFIG_CONTEXT";
  override readonly exitCode = ExitCode.generic;
  /** What is missing. */
  readonly problem: ContextProblem;

  constructor(problem: ContextProblem, message: string, options: KubeadmErrorOptions = {}) {
    super(message, options);
    this.problem = problem;
  }
}

/** Options of {@link resolveContext}. */
export interface ResolveContextOptions {
  /** Resolve this context instead of `current-context`. */
  context?: string;
  /** The file's name, for messages. */
  source?: string;
  /** Also require the context's user entry. */
  requireUser?: boolean;
  /**
   * `kubeadm`: upstream kubeadm's words for a missing context or cluster when it validates a
   * kubeconfig file it wrote (`failed to find CurrentContext in Contexts of the kubeconfig file
   * <source>`); `client` (default): client-side words naming the missing entry.
   */
  wording?: "kubeadm" | "client";
}

function contextError(
  found: ContextLookup,
  problem: ContextProblem,
  config: Kubeconfig,
  o: ResolveContextOptions,
): KubeconfigContextError {
  const source = o.source ?? "<kubeconfig>";
  const ctx = `${found.current ? "current " : ""}context ${JSON.stringify(found.name)}`;
  const clusterName = found.context?.cluster ?? "";
  const userName = found.context?.user ?? "";
  let message: string;
  if (o.wording === "kubeadm" && problem === "context") {
    message = `failed to find CurrentContext in Contexts of the kubeconfig file ${source}`;
  } else if (o.wording === "kubeadm" && problem === "cluster") {
    message =
      `failed to find the given CurrentContext Cluster in Clusters of the kubeconfig file ${source}`;
  } else if (problem === "context") {
    message = !found.current
      ? `context ${JSON.stringify(found.name)} not found in the kubeconfig`
      : found.name === ""
      ? 'the current context "" is not defined in the kubeconfig: it has no current-context'
      : `the ${ctx} is not defined in the kubeconfig`;
  } else if (problem === "cluster") {
    message = `the cluster ${
      JSON.stringify(clusterName)
    } of the ${ctx} is not defined in the kubeconfig`;
  } else {
    const of = found.current ? "the current context" : `context ${JSON.stringify(found.name)}`;
    message = `user ${JSON.stringify(userName)} not found: the kubeconfig user ${
      JSON.stringify(userName)
    } of ${of} does not exist`;
  }
  const value = problem === "context"
    ? found.name || config["current-context"]
    : problem === "cluster"
    ? clusterName
    : userName;
  return new KubeconfigContextError(problem, message, { field: o.source, value });
}

/**
 * Resolves a kubeconfig's current (or named) context to its cluster (and user, required only
 * with `requireUser`). Throws a {@link KubeconfigContextError} naming what is missing.
 */
export function resolveContext(
  config: Kubeconfig,
  options: ResolveContextOptions = {},
): CurrentContext {
  const found = lookupContext(config, options.context);
  if (!found.context) throw contextError(found, "context", config, options);
  if (!found.cluster) throw contextError(found, "cluster", config, options);
  if (options.requireUser && !found.user) throw contextError(found, "user", config, options);
  return {
    name: found.name,
    context: found.context,
    clusterName: found.context.cluster ?? "",
    cluster: found.cluster,
    userName: found.context.user ?? "",
    user: found.user,
  };
}

/** A cluster entry with its name. */
export interface NamedCluster {
  name: string;
  cluster: KubeconfigCluster;
}

/**
 * The cluster kubeadm uses from a kubeconfig (upstream `GetClusterFromKubeConfig`): the
 * cluster named `""` when there is one, else the current context's cluster.
 */
export function clusterFromKubeconfig(config: Kubeconfig): NamedCluster {
  const unnamed = (config.clusters ?? []).find((c) => (c.name ?? "") === "" && c.cluster);
  if (unnamed) return { name: "", cluster: unnamed.cluster };
  const { clusterName, cluster } = resolveContext(config);
  return { name: clusterName, cluster };
}

/**
 * A copy of `config` whose every cluster points at `server` (upstream
 * `PointKubeConfigToLocalAPIEndpoint`, with the local API endpoint's URL).
 */
export function withServer(config: Kubeconfig, server: string): Kubeconfig {
  return {
    ...config,
    clusters: (config.clusters ?? []).map((c) => ({ ...c, cluster: { ...c.cluster, server } })),
  };
}

/** The PEM text of a cluster's `certificate-authority-data` (empty when absent). */
export function certificateAuthorityPem(cluster: KubeconfigCluster): string {
  const data = cluster["certificate-authority-data"];
  if (!data) return "";
  try {
    return embeddedText(data);
  } catch (e) {
    throw new KubeadmError(`certificate-authority-data: ${errorMessage(e)}`);
  }
}
