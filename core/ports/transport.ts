/**
 * The transport port: how the Kubernetes client (and discovery, etcd's and health checks'
 * callers) reach an API server: one function from a web `Request` to a `Response`, made by a
 * {@link TransportFactory} with per-request {@link TransportLimits}.
 *
 * The core never opens a socket. An adapter builds a {@link Transport} from
 * {@link ConnectionParams} (the Deno CLI uses `fetch` with a TLS client; tests use an in-memory
 * fake API server; dry-run uses a recording transport). A transport that cannot reach the
 * server throws an `ApiError` with `status: 0` and a transport reason (`ConnectionRefused`,
 * `UnknownAuthority`, ...); any HTTP answer, error statuses included, is returned as a
 * `Response`.
 *
 * @module
 */

/**
 * Sends one HTTP request to the API server. `limits`, when given, bound this one request (the
 * time left before a caller's deadline): a transport over the network applies the smaller of
 * each and its own. A transport to a server in the same process (the dry-run recorder, a
 * plan's offline cluster) may also offer an {@link Exchange}, which the client then uses
 * instead: same answers, without building HTTP messages.
 */
export type Transport =
  & ((request: Request, limits?: TransportLimits) => Promise<Response>)
  & { exchange?: Exchange };

/**
 * One call to an API server in this process: the method, the URL and the JSON body as text in,
 * the status and the body text out (what the `Response` would have carried). `limits` as for
 * a {@link Transport}, for what such a server reads over the network (a dry run's real cluster).
 */
export type Exchange = (
  method: string,
  url: string,
  body: string | undefined,
  limits?: TransportLimits,
) => Promise<{ status: number; body: string }>;

/** What a runtime needs to build an authenticated transport to one API server. */
export interface ConnectionParams {
  /** Base URL of the API server, e.g. `https://10.0.0.1:6443`. */
  server: string;
  /** PEM bundle the server certificate must chain to. */
  caPem?: string;
  /** Client certificate (PEM) for mutual TLS. */
  certPem?: string;
  /** Client private key (PEM) for mutual TLS. Secret: never print it. */
  keyPem?: string;
  /** Bearer token. Secret: never print it. */
  token?: string;
  /** Skip server certificate verification (kubeconfig `insecure-skip-tls-verify`). */
  insecureSkipTLSVerify?: boolean;
  /** Name to verify the server certificate against (kubeconfig `tls-server-name`). */
  tlsServerName?: string;
}

/**
 * Bounds a runtime puts on each request of a transport, or a caller on one request (the
 * smaller applies). Both failures are `ApiError`s with status 0 naming the limit (reasons
 * `Timeout` and `ResponseTooLarge`).
 */
export interface TransportLimits {
  /** One deadline for the whole request: connect, TLS handshake, headers and body. */
  timeoutMs?: number;
  /** Largest response body accepted, in bytes. */
  maxBodyBytes?: number;
}

/**
 * Makes the transport for one set of connection parameters, trusting exactly `params.caPem`
 * (unless `insecureSkipTLSVerify`) and enforcing `limits` on each request when given; supplied
 * by the runtime (its lifetime, pooling and closing are the runtime's business).
 */
export type TransportFactory = (
  params: ConnectionParams,
  limits?: TransportLimits,
) => Transport | Promise<Transport>;
