/**
 * From a parsed kubeconfig (`apiVersion: v1`, `kind: Config`) to the {@link ConnectionParams}
 * of its current (or a named) context: server URL, CA bundle, client certificate and key or
 * bearer token. Embedded `*-data` fields are decoded; file references (`certificate-authority`,
 * `client-certificate`, `client-key`, `tokenFile`) are read through an injected reader.
 *
 * The kubeconfig model (types, parsing, serialization) is `core/kubeconfig/kubeconfig.ts`;
 * this module only selects the context a connection uses (with an optional `--context`
 * override) and resolves its credentials.
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";
import type { FileReader } from "../host/ports.ts";
import type { Kubeconfig, KubeconfigCluster, KubeconfigContext } from "../kubeconfig/kubeconfig.ts";
import { base64Decode } from "../pki/pem.ts";
import type { ConnectionParams } from "./transport.ts";

function decodeData(b64: string, what: string): string {
  try {
    return new TextDecoder().decode(base64Decode(b64));
  } catch (e) {
    throw new KubeadmError(`kubeconfig: ${what} is not valid base64`, { cause: e });
  }
}

/**
 * The context entry a connection uses: `current-context` unless `contextName` is given. Unlike
 * `core/kubeconfig`'s `currentContext` (upstream kubeadm's words), errors here are
 * {@link KubeadmError}s in kubectl's terms.
 */
export function selectedContext(
  config: Kubeconfig,
  contextName?: string,
): { name: string; context: KubeconfigContext } {
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

/** The cluster entry of the selected context (see {@link selectedContext}). */
export function selectedCluster(
  config: Kubeconfig,
  contextName?: string,
): KubeconfigCluster {
  const { context } = selectedContext(config, contextName);
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
  config: Kubeconfig,
  options: KubeconfigConnectionOptions = {},
): Promise<ConnectionParams> {
  const { context } = selectedContext(config, options.context);
  const cluster = selectedCluster(config, options.context);
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
