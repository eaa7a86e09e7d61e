/**
 * The network side of discovery as the core sees it: how to connect to the API server for
 * each kind of cluster-info fetch ({@link ConnectionParams}), and fetchers built on the core's
 * Kubernetes client over a runtime-supplied {@link Transport}. A runtime only has to turn
 * connection parameters into a transport (TLS settings included).
 *
 * @module
 */
import {
  CLUSTER_INFO_CONFIGMAP,
  DISCOVERY_MAX_BODY_BYTES,
  DISCOVERY_REQUEST_TIMEOUT_MS,
  KUBE_PUBLIC_NAMESPACE,
} from "../constants.ts";
import { ApiError } from "../errors.ts";
import { utf8 } from "../text/utf8.ts";
import { KubeClient } from "../kube/client.ts";
import type { Timing } from "../kube/retry.ts";
import { base64Decode } from "../text/base64.ts";
import type { ConnectionParams, TransportFactory, TransportLimits } from "../ports/transport.ts";
import type { ClusterInfoConfigMap } from "./cluster_info.ts";
import {
  certificateAuthorityPem,
  clusterFromKubeconfig,
  type Kubeconfig,
  lookupContext,
} from "../kubeconfig/kubeconfig.ts";
import type { FetchClusterInfoWith } from "./file.ts";
import type { ClusterInfoFetchMode, FetchClusterInfo } from "./token.ts";

/**
 * The bounds of one discovery request made at `nowMs` under the overall discovery deadline:
 * never past that deadline (at most {@link DISCOVERY_REQUEST_TIMEOUT_MS}), body capped at
 * {@link DISCOVERY_MAX_BODY_BYTES}.
 */
export function discoveryAttemptLimits(deadlineMs: number, nowMs: number): TransportLimits {
  return {
    timeoutMs: Math.max(1, Math.min(DISCOVERY_REQUEST_TIMEOUT_MS, deadlineMs - nowMs)),
    maxBodyBytes: DISCOVERY_MAX_BODY_BYTES,
  };
}

/**
 * The delay a failed fetch's server asked for before the next attempt (the `Retry-After` of a
 * 429 or 5xx, as an {@link ApiError} carries it), so that discovery, which polls every second,
 * never asks sooner than that; `undefined` when it asked for none.
 */
export function askedRetryDelayMs(failure: unknown): number | undefined {
  return failure instanceof ApiError ? failure.retryAfterMs : undefined;
}

/**
 * Connection parameters of a token-discovery fetch (upstream's bootstrap kubeconfigs):
 * `https://<endpoint>`, anonymous; insecure mode skips TLS verification, pinned mode verifies
 * the server (host name included) against exactly the given CA bundle.
 */
export function discoveryConnection(
  endpoint: string,
  mode: ClusterInfoFetchMode,
): ConnectionParams {
  const server = `https://${endpoint}`;
  return mode.kind === "insecure"
    ? { server, insecureSkipTLSVerify: true }
    : { server, caPem: mode.caPem };
}

async function getClusterInfo(
  params: ConnectionParams,
  transportFor: TransportFactory,
  time: Timing,
  limits: TransportLimits | undefined,
): Promise<ClusterInfoConfigMap> {
  const client = new KubeClient({
    server: params.server,
    transport: await transportFor(params, limits),
    ...time,
    // Discovery polls on its own schedule: no retries inside one attempt (the next attempt
    // waits for what the server asked, see askedRetryDelayMs).
    retry: { timeoutMs: 0 },
  });
  return await client.get<ClusterInfoConfigMap & { kind?: string }>({
    kind: "ConfigMap",
    namespace: KUBE_PUBLIC_NAMESPACE,
    name: CLUSTER_INFO_CONFIGMAP,
  });
}

/**
 * A {@link FetchClusterInfo} for token discovery against `endpoint` (`host:port`), on the
 * discovery's clock and sleep.
 */
export function clusterInfoFetcher(
  endpoint: string,
  transportFor: TransportFactory,
  time: Timing,
): FetchClusterInfo {
  return (mode, limits) =>
    getClusterInfo(discoveryConnection(endpoint, mode), transportFor, time, limits);
}

/**
 * Connection parameters from a (files-embedded) discovery kubeconfig: its cluster's server and
 * CA, and the current user's token or client certificate when it has them.
 */
export function connectionFromDiscoveryKubeconfig(config: Kubeconfig): ConnectionParams {
  const { cluster } = clusterFromKubeconfig(config);
  const params: ConnectionParams = { server: cluster.server ?? "" };
  const caPem = certificateAuthorityPem(cluster);
  if (caPem) params.caPem = caPem;
  if (cluster["insecure-skip-tls-verify"]) params.insecureSkipTLSVerify = true;
  if (cluster["tls-server-name"]) params.tlsServerName = cluster["tls-server-name"];
  const { user } = lookupContext(config);
  if (user?.token) params.token = user.token;
  const decode = (b64: string) => utf8(base64Decode(b64));
  if (user?.["client-certificate-data"] && user["client-key-data"]) {
    params.certPem = decode(user["client-certificate-data"]);
    params.keyPem = decode(user["client-key-data"]);
  }
  return params;
}

/** A {@link FetchClusterInfoWith} for file/HTTPS discovery, on the discovery's clock and sleep. */
export function clusterInfoFetcherWithKubeconfig(
  transportFor: TransportFactory,
  time: Timing,
): FetchClusterInfoWith {
  return (config, limits) =>
    getClusterInfo(connectionFromDiscoveryKubeconfig(config), transportFor, time, limits);
}
