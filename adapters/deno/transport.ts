/**
 * The one factory of HTTPS transports of the Deno runtime: the API clients (init, join's
 * bootstrap and cluster clients, token commands), discovery, the etcd gateway client and the
 * preflight and health probes all get their TLS connections here.
 *
 * A transport trusts exactly the CA bundle in its `ConnectionParams` (none given: nothing is
 * trusted), never Deno's or the system's root store, as upstream kubeadm trusts only the
 * cluster CA. `insecureSkipTLSVerify` turns verification off (join discovery's first fetch,
 * kubeconfig `insecure-skip-tls-verify`); `tlsServerName` verifies against another name.
 * Client certificates and bearer tokens authenticate. Each request has one deadline (connect,
 * TLS, headers and body) and a body size cap ({@link TransportLimits}). Network and TLS
 * failures become `ApiError`s with status 0 and a clear reason (`UnknownAuthority` →
 * "certificate signed by unknown authority", `ConnectionRefused`, `Timeout`, ...), naming the
 * server. Connections are kept alive and shared by transports with the same TLS settings.
 *
 * @module
 */
import type { ConnectionParams, TransportLimits } from "../../core/ports/transport.ts";
import { createNodeHttpsTransport, type TransportHandle } from "./transport/node_https.ts";

export type { TransportHandle } from "./transport/node_https.ts";

/** Options of {@link createDenoTransport}: the request deadline and the body cap. */
export type DenoTransportOptions = TransportLimits;

/** A transport and the means to release its connection pool. */
export type DenoTransport = TransportHandle;

/** Builds the transport for a set of connection parameters (see the module documentation). */
export function createDenoTransport(
  params: ConnectionParams,
  options: DenoTransportOptions = {},
): DenoTransport {
  return createNodeHttpsTransport(params, options);
}

/**
 * A transport that does not verify the server certificate and sends no credentials: what join
 * discovery uses to fetch the public cluster-info before it can trust the cluster CA.
 */
export function createInsecureTransport(
  server: string,
  options: DenoTransportOptions = {},
): DenoTransport {
  return createDenoTransport({ server, insecureSkipTLSVerify: true }, options);
}
