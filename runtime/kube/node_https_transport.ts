/**
 * A transport over Deno's `node:https`, for what `fetch` + `Deno.createHttpClient` cannot do in
 * Deno 2.9: skipping server certificate verification for one client (kubeconfig
 * `insecure-skip-tls-verify`, join discovery's first cluster-info fetch) and verifying against
 * a `tls-server-name` different from the URL host.
 *
 * @module
 */
import https from "node:https";
import type { ConnectionParams, Transport } from "../../core/kube/transport.ts";
import { transportError } from "./transport_errors.ts";

/** Options of {@link createNodeHttpsTransport}. */
export interface NodeHttpsTransportOptions {
  /** Per-request timeout in milliseconds (default 30s). */
  timeoutMs?: number;
}

/** Builds a transport from connection parameters using `node:https`. */
export function createNodeHttpsTransport(
  params: ConnectionParams,
  options: NodeHttpsTransportOptions = {},
): Transport {
  const timeoutMs = options.timeoutMs ?? 30_000;
  return async (request) => {
    const url = new URL(request.url);
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => (headers[k] = v));
    if (params.token && !headers["authorization"]) {
      headers["authorization"] = `Bearer ${params.token}`;
    }
    if (body) headers["content-length"] = String(body.length);
    try {
      return await new Promise<Response>((resolve, reject) => {
        const req = https.request({
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[|\]$/g, ""),
          port: url.port || 443,
          path: url.pathname + url.search,
          method: request.method,
          headers,
          // With verification off no roots are needed; an explicit empty list keeps Deno from
          // reading the system store (which would need --allow-sys).
          ca: params.caPem ?? (params.insecureSkipTLSVerify ? [] : undefined),
          cert: params.certPem,
          key: params.keyPem,
          servername: params.tlsServerName,
          rejectUnauthorized: !params.insecureSkipTLSVerify,
          timeout: timeoutMs,
        }, (res) => {
          const chunks: Uint8Array[] = [];
          res.on("data", (c: Uint8Array) => chunks.push(new Uint8Array(c)));
          res.on("error", reject);
          res.on("end", () => {
            const total = chunks.reduce((n, c) => n + c.length, 0);
            const all = new Uint8Array(total);
            let off = 0;
            for (const c of chunks) {
              all.set(c, off);
              off += c.length;
            }
            const h = new Headers();
            for (const [k, v] of Object.entries(res.headers)) {
              if (Array.isArray(v)) v.forEach((x) => h.append(k, x));
              else if (v !== undefined) h.set(k, String(v));
            }
            const status = res.statusCode ?? 0;
            const nullBody = status === 204 || status === 304;
            resolve(new Response(nullBody ? null : all, { status, headers: h }));
          });
        });
        req.on("timeout", () => {
          const err = new Error("request timed out");
          err.name = "TimeoutError";
          req.destroy(err);
        });
        req.on("error", reject);
        if (body) req.write(body);
        req.end();
      });
    } catch (e) {
      throw transportError(e, request);
    }
  };
}
