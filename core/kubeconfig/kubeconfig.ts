/**
 * Kubeconfig files (client-go's `clientcmd/api/v1.Config`): types, the constructors kubeadm
 * uses (`CreateBasic`, `CreateWithCerts`, `CreateWithToken`), serialization in the layout
 * client-go writes, and parsing with validation of the current context.
 *
 * Embedded data (`certificate-authority-data`, `client-certificate-data`, `client-key-data`)
 * holds PEM text, base64-encoded in the file as client-go does.
 *
 * @module
 */
import { ConfigError, errorMessage } from "../errors.ts";
import { parseKubeYamlOne, toKubeYaml } from "../yaml/kube_yaml.ts";
import { base64Decode, base64Encode } from "../pki/pem.ts";

/** `clusters[].cluster`. */
export interface KubeconfigCluster {
  server: string;
  "certificate-authority-data"?: string;
  "certificate-authority"?: string;
  "insecure-skip-tls-verify"?: boolean;
  "tls-server-name"?: string;
  "proxy-url"?: string;
  "disable-compression"?: boolean;
  extensions?: unknown[];
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

/** `contexts[].context`. */
export interface KubeconfigContext {
  cluster: string;
  user: string;
  namespace?: string;
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

/** Context name kubeadm uses: `<user>@<cluster>`. */
export function contextName(userName: string, clusterName: string): string {
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

/**
 * Serializes a kubeconfig in client-go 1.34's layout: sorted keys, and no `preferences` key
 * when it is empty (client-go omits the empty struct since 1.34).
 */
export function serializeKubeconfig(cfg: Kubeconfig): string {
  const { preferences, ...rest } = cfg;
  return toKubeYaml(Object.keys(preferences ?? {}).length > 0 ? cfg : rest);
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

/**
 * Parses a kubeconfig file (YAML or JSON). Missing lists read as empty, like client-go; a
 * document that is not a mapping, or has malformed entries, is a {@link ConfigError}.
 */
export function parseKubeconfig(text: string | Uint8Array, source = "<kubeconfig>"): Kubeconfig {
  let doc: unknown;
  try {
    doc = parseKubeYamlOne(typeof text === "string" ? text : dec.decode(text), source);
  } catch (e) {
    throw new ConfigError(`${source}: couldn't load kubeconfig: ${errorMessage(e)}`, {
      field: source,
      cause: e,
    });
  }
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

/** The current context with its cluster and user entries. */
export interface CurrentContext {
  name: string;
  context: KubeconfigContext;
  clusterName: string;
  cluster: KubeconfigCluster;
  userName: string;
  user?: KubeconfigUser;
}

/**
 * Resolves `current-context` to its cluster (and user, when present). Throws a
 * {@link ConfigError} in upstream's words when the context or its cluster is missing.
 */
export function currentContext(cfg: Kubeconfig, source = "<kubeconfig>"): CurrentContext {
  const ctx = cfg.contexts.find((c) => c.name === cfg["current-context"]);
  if (!ctx) {
    throw new ConfigError(
      `failed to find CurrentContext in Contexts of the kubeconfig file ${source}`,
      {
        field: source,
        value: cfg["current-context"],
      },
    );
  }
  const cluster = cfg.clusters.find((c) => c.name === ctx.context.cluster);
  if (!cluster) {
    throw new ConfigError(
      `failed to find the given CurrentContext Cluster in Clusters of the kubeconfig file ${source}`,
      { field: source, value: ctx.context.cluster },
    );
  }
  return {
    name: ctx.name,
    context: ctx.context,
    clusterName: cluster.name,
    cluster: cluster.cluster,
    userName: ctx.context.user,
    user: cfg.users.find((u) => u.name === ctx.context.user)?.user,
  };
}

/** The current cluster's embedded CA as whitespace-trimmed text ("" when none). */
export function currentCAData(cfg: Kubeconfig, source?: string): string {
  const data = currentContext(cfg, source).cluster["certificate-authority-data"];
  return data ? embeddedText(data).trim() : "";
}
