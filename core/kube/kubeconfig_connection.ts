/**
 * From a parsed kubeconfig (`apiVersion: v1`, `kind: Config`) to the {@link ConnectionParams}
 * of its current (or a named) context: server URL, CA bundle, client certificate and key or
 * bearer token. Embedded `*-data` fields are decoded; file references (`certificate-authority`,
 * `client-certificate`, `client-key`, `tokenFile`) are read through an injected reader.
 *
 * The functions take a {@link KubeconfigView}: the read-only subset of a kubeconfig they look
 * at, which both `core/kubeconfig`'s `Kubeconfig` (the canonical type, from `parseKubeconfig`)
 * and the looser {@link Kubeconfig} below satisfy. The looser types predate `core/kubeconfig/`
 * and stay because other modules (join discovery) build on them.
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";
import type { FileReader } from "../host/ports.ts";
import { base64Decode } from "../pki/pem.ts";
import type { ConnectionParams } from "./transport.ts";

/** A `clusters[].cluster` entry. */
export interface KubeconfigCluster {
  server: string;
  "certificate-authority"?: string;
  "certificate-authority-data"?: string;
  "insecure-skip-tls-verify"?: boolean;
  "tls-server-name"?: string;
  [key: string]: unknown;
}

/** A `users[].user` entry. */
export interface KubeconfigUser {
  "client-certificate"?: string;
  "client-certificate-data"?: string;
  "client-key"?: string;
  "client-key-data"?: string;
  token?: string;
  tokenFile?: string;
  [key: string]: unknown;
}

/** A `contexts[].context` entry. */
export interface KubeconfigContext {
  cluster: string;
  user: string;
  namespace?: string;
  [key: string]: unknown;
}

/** A kubeconfig document (`kind: Config`). */
export interface Kubeconfig {
  apiVersion?: string;
  kind?: string;
  clusters?: { name: string; cluster: KubeconfigCluster }[] | null;
  users?: { name: string; user: KubeconfigUser }[] | null;
  contexts?: { name: string; context: KubeconfigContext }[] | null;
  "current-context"?: string;
  [key: string]: unknown;
}

/** The cluster fields this module reads (no index signature, so any kubeconfig type fits). */
export interface KubeconfigClusterView {
  server?: string;
  "certificate-authority"?: string;
  "certificate-authority-data"?: string;
  "insecure-skip-tls-verify"?: boolean;
  "tls-server-name"?: string;
  "proxy-url"?: string;
  "disable-compression"?: boolean;
  extensions?: unknown;
}

/** The user fields this module reads. */
export interface KubeconfigUserView {
  "client-certificate"?: string;
  "client-certificate-data"?: string;
  "client-key"?: string;
  "client-key-data"?: string;
  token?: string;
  tokenFile?: string;
}

/** The context fields this module reads. */
export interface KubeconfigContextView {
  cluster: string;
  user: string;
}

/** A read-only view of any kubeconfig document. */
export interface KubeconfigView {
  clusters?: readonly { name: string; cluster: KubeconfigClusterView }[] | null;
  users?: readonly { name: string; user: KubeconfigUserView }[] | null;
  contexts?: readonly { name: string; context: KubeconfigContextView }[] | null;
  "current-context"?: string;
}

function decodeData(b64: string, what: string): string {
  try {
    return new TextDecoder().decode(base64Decode(b64));
  } catch (e) {
    throw new KubeadmError(`kubeconfig: ${what} is not valid base64`, { cause: e });
  }
}

/** The context entry in use (`current-context` unless `contextName` is given). */
export function currentContext(
  config: KubeconfigView,
  contextName?: string,
): { name: string; context: KubeconfigContextView } {
  const name = contextName ?? config["current-context"];
  if (!name) {
    throw new KubeadmError("kubeconfig has no current-context", {
      hint: "set current-context in the kubeconfig",
    });
  }
  const entry = config.contexts?.find((c) => c.name === name);
  if (!entry) {
    throw new KubeadmError(`kubeconfig: context ${JSON.stringify(name)} not found`);
  }
  return entry;
}

/** The cluster entry of the current (or named) context. */
export function currentCluster(
  config: KubeconfigView,
  contextName?: string,
): KubeconfigClusterView {
  const { context } = currentContext(config, contextName);
  const cluster = config.clusters?.find((c) => c.name === context.cluster)?.cluster;
  if (!cluster) {
    throw new KubeadmError(`kubeconfig: cluster ${JSON.stringify(context.cluster)} not found`);
  }
  return cluster;
}

/** Options of {@link connectionFromKubeconfig}. */
export interface KubeconfigConnectionOptions {
  /** Context to use instead of `current-context`. */
  context?: string;
  /** Reader for referenced files; without it file references are an error. */
  files?: FileReader;
}

async function readRef(
  files: FileReader | undefined,
  path: string,
  what: string,
): Promise<string> {
  if (!files) {
    throw new KubeadmError(`kubeconfig: ${what} refers to file ${JSON.stringify(path)}`, {
      hint: "embed the data in the kubeconfig or run where the file can be read",
    });
  }
  const data = await files.read(path);
  if (data === undefined) {
    throw new KubeadmError(`kubeconfig: ${what} file ${JSON.stringify(path)} does not exist`);
  }
  return new TextDecoder().decode(data);
}

/** Resolves the connection parameters of a kubeconfig's current (or named) context. */
export async function connectionFromKubeconfig(
  config: KubeconfigView,
  options: KubeconfigConnectionOptions = {},
): Promise<ConnectionParams> {
  const { context } = currentContext(config, options.context);
  const cluster = currentCluster(config, options.context);
  if (!cluster.server) throw new KubeadmError("kubeconfig: the cluster has no server URL");
  const user = config.users?.find((u) => u.name === context.user)?.user;
  if (!user) {
    throw new KubeadmError(`kubeconfig: user ${JSON.stringify(context.user)} not found`);
  }
  const params: ConnectionParams = { server: cluster.server };
  if (cluster["certificate-authority-data"]) {
    params.caPem = decodeData(cluster["certificate-authority-data"], "certificate-authority-data");
  } else if (cluster["certificate-authority"]) {
    params.caPem = await readRef(
      options.files,
      cluster["certificate-authority"],
      "certificate-authority",
    );
  }
  if (cluster["insecure-skip-tls-verify"]) params.insecureSkipTLSVerify = true;
  if (cluster["tls-server-name"]) params.tlsServerName = cluster["tls-server-name"];
  if (user["client-certificate-data"]) {
    params.certPem = decodeData(user["client-certificate-data"], "client-certificate-data");
  } else if (user["client-certificate"]) {
    params.certPem = await readRef(options.files, user["client-certificate"], "client-certificate");
  }
  if (user["client-key-data"]) {
    params.keyPem = decodeData(user["client-key-data"], "client-key-data");
  } else if (user["client-key"]) {
    params.keyPem = await readRef(options.files, user["client-key"], "client-key");
  }
  if (user.token) {
    params.token = user.token;
  } else if (user.tokenFile) {
    params.token = (await readRef(options.files, user.tokenFile, "tokenFile")).trim();
  }
  if ((params.certPem === undefined) !== (params.keyPem === undefined)) {
    throw new KubeadmError(
      "kubeconfig: a client certificate needs a client key and the other way round",
    );
  }
  return params;
}
