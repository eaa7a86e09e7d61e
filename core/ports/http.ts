/**
 * HTTP as the core sees it on a node: health endpoints (the kubelet's and the control-plane
 * components') and plain GETs with client certificates (an external etcd's version).
 *
 * @module
 */

/** PEM material for a TLS client. */
export interface TlsClientMaterial {
  /** The CA bundle the server must chain to: the only roots trusted (none given: none). */
  caPem?: string;
  /** Client certificate chain. */
  certPem?: string;
  /** Client private key. */
  keyPem?: string;
}

/** A plain HTTP(S) response, body already read. */
export interface HttpResult {
  status: number;
  /** `200 OK`, as Go prints `Response.Status`. */
  statusText: string;
  body: string;
}

/** One answer of a {@link HealthProbe}: an HTTP status, or why no answer came. */
export type HealthResult = { status: number } | { error: string };

/** Options of one probe. */
export interface HealthProbeOptions {
  /**
   * Do not verify the server certificate (the control-plane components' health ports serve
   * self-signed certificates; upstream checks them insecurely).
   */
  insecureSkipTLSVerify?: boolean;
  /** Give up on this one request after this long. */
  timeoutMs?: number;
}

/** GETs a health URL (`http://127.0.0.1:10248/healthz`, `https://127.0.0.1:10257/healthz`). */
export interface HealthProbe {
  get(url: string, options?: HealthProbeOptions): Promise<HealthResult>;
  /**
   * Closes the connections a probe may keep between its GETs (a wait's probes reuse them);
   * each wait calls it when it ends. Probes that keep none need not have it.
   */
  close?(): Promise<void>;
}
