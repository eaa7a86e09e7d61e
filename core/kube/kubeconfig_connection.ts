/**
 * From a parsed kubeconfig (`apiVersion: v1`, `kind: Config`) to the {@link ConnectionParams}
 * of its current (or a named) context: server URL, CA bundle, client certificate and key or
 * bearer token. Embedded `*-data` fields are decoded; file references (`certificate-authority`,
 * `client-certificate`, `client-key`, `tokenFile`) are read through an injected reader.
 *
 * The kubeconfig model (types, parsing, serialization, context resolution) is
 * `core/kubeconfig/kubeconfig.ts`; this module only resolves a context's credentials.
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";
import type { FileReader } from "../ports/files.ts";
import { type Kubeconfig, resolveContext } from "../kubeconfig/kubeconfig.ts";
import { base64Decode } from "../text/base64.ts";
import type { ConnectionParams } from "../ports/transport.ts";

function decodeData(b64: string, what: string): string {
  try {
    return new TextDecoder().decode(base64Decode(b64));
  } catch (e) {
    throw new KubeadmError(`kubeconfig: ${what} is not valid base64`, { cause: e });
  }
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
  const { cluster, user: found } = resolveContext(config, {
    context: options.context,
    requireUser: true,
  });
  const user = found!;
  if (!cluster.server) throw new KubeadmError("kubeconfig: the cluster has no server URL");
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
