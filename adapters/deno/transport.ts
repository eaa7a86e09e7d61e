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
import { DISCOVERY_MAX_BODY_BYTES, DISCOVERY_REQUEST_TIMEOUT_MS } from "../../core/constants.ts";
import type { DiscoveryUrlResponse } from "../../core/discovery/file.ts";
import { createNodeHttpsTransport, type TransportHandle } from "./transport/node_https.ts";
import { envGet } from "./process.ts";

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

/** Go's system CA bundle locations (crypto/x509 root_linux.go), `SSL_CERT_FILE` first. */
const CA_BUNDLE_FILES = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/ca-bundle.pem",
  "/etc/pki/tls/cacert.pem",
  "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
  "/etc/ssl/cert.pem",
];

/** The host's trust store as PEM (`SSL_CERT_FILE`, else the first standard bundle). */
function hostCaBundle(): string | undefined {
  const override = envGet("SSL_CERT_FILE");
  for (const path of override ? [override] : CA_BUNDLE_FILES) {
    try {
      return Deno.readTextFileSync(path);
    } catch {
      // next
    }
  }
  return undefined;
}

/**
 * GETs an https:// discovery URL, verified against the host's CA bundle file (the one place a
 * public CA is meant to be trusted, as upstream's `discovery/https`); returns the body.
 */
export async function fetchDiscoveryUrl(url: string): Promise<DiscoveryUrlResponse> {
  const u = new URL(url);
  const t = createDenoTransport({
    server: `${u.protocol}//${u.host}`,
    caPem: hostCaBundle(),
  }, { timeoutMs: DISCOVERY_REQUEST_TIMEOUT_MS, maxBodyBytes: DISCOVERY_MAX_BODY_BYTES });
  try {
    const res = await t.transport(new Request(url));
    return { status: res.status, body: new Uint8Array(await res.arrayBuffer()) };
  } finally {
    t.close();
  }
}

/**
 * Discovery transports: the CA given is the only trusted root; discovery passes its own
 * deadline and body cap per attempt.
 */
export function discoveryTransport(params: ConnectionParams, limits: TransportLimits = {}) {
  return createDenoTransport(params, {
    timeoutMs: DISCOVERY_REQUEST_TIMEOUT_MS,
    maxBodyBytes: DISCOVERY_MAX_BODY_BYTES,
    ...limits,
  }).transport;
}

/** API client transports: the kubeconfig's CA is the only trusted root; pooled connections. */
export function clientTransport(params: ConnectionParams, limits: TransportLimits = {}) {
  return createDenoTransport(params, limits).transport;
}
