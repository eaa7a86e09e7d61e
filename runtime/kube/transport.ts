/**
 * The Deno transport to a Kubernetes API server, built from the core's `ConnectionParams`.
 *
 * Verified connections use `fetch` with `Deno.createHttpClient({ caCerts, cert, key })`
 * (mutual TLS) and/or a bearer token, with a per-request timeout. Network and TLS failures
 * become `ApiError`s with status 0 and a clear reason (`UnknownAuthority` → "certificate signed
 * by unknown authority", `ConnectionRefused`, `Timeout`, ...), naming the server.
 *
 * Deno 2.9's `createHttpClient` has no per-client way to skip certificate verification or to
 * verify against another name (only the process-wide `--unsafely-ignore-certificate-errors`
 * flag), so `insecureSkipTLSVerify` and `tlsServerName` are served by a `node:https` transport
 * (`rejectUnauthorized: false` / `servername`), which Deno supports.
 *
 * Note: `caCerts` adds to Deno's default roots rather than replacing them, so a server whose
 * certificate chains to a public root is also accepted (upstream trusts only the kubeconfig CA).
 *
 * @module
 */
import type { ConnectionParams, Transport } from "../../core/kube/transport.ts";
import { createNodeHttpsTransport } from "./node_https_transport.ts";
import { transportError } from "./transport_errors.ts";

/** Options of {@link createDenoTransport}. */
export interface DenoTransportOptions {
  /** Per-request timeout in milliseconds (default 30s). */
  timeoutMs?: number;
}

/** A transport and the means to release its connection pool. */
export interface DenoTransport {
  transport: Transport;
  /** Closes the underlying HTTP client. */
  close(): void;
}

/** Builds the transport for a set of connection parameters. */
export function createDenoTransport(
  params: ConnectionParams,
  options: DenoTransportOptions = {},
): DenoTransport {
  if (params.insecureSkipTLSVerify || params.tlsServerName) {
    return { transport: createNodeHttpsTransport(params, options), close() {} };
  }
  const timeoutMs = options.timeoutMs ?? 30_000;
  const tls = params.certPem && params.keyPem ? { cert: params.certPem, key: params.keyPem } : {};
  const client = Deno.createHttpClient({
    ...(params.caPem ? { caCerts: [params.caPem] } : {}),
    ...tls,
  });
  const transport: Transport = async (request) => {
    let req = request;
    if (params.token && !request.headers.has("Authorization")) {
      const headers = new Headers(request.headers);
      headers.set("Authorization", `Bearer ${params.token}`);
      req = new Request(request, { headers });
    }
    const signal = AbortSignal.any([req.signal, AbortSignal.timeout(timeoutMs)]);
    try {
      return await fetch(req, { client, signal } as RequestInit & { client: Deno.HttpClient });
    } catch (e) {
      throw transportError(e, request);
    }
  };
  return { transport, close: () => client.close() };
}

/**
 * A transport that does not verify the server certificate and sends no credentials: what join
 * discovery uses to fetch the public cluster-info before it can trust the cluster CA.
 */
export function createInsecureTransport(
  server: string,
  options: DenoTransportOptions = {},
): DenoTransport {
  return {
    transport: createNodeHttpsTransport({ server, insecureSkipTLSVerify: true }, options),
    close() {},
  };
}
