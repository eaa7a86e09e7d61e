/**
 * The HTTPS implementation behind {@link createDenoTransport}: Deno's `node:https` with
 * keep-alive agents pooled per TLS configuration.
 *
 * Why not `fetch` + `Deno.createHttpClient`: its `caCerts` are added to Deno's root store
 * (`DENO_CERT`, `DENO_TLS_CA_STORE`, the bundled Mozilla roots), so a server certified by any of
 * those would be accepted. `node:https` with an explicit `ca` verifies against exactly that
 * list; here `ca` is always set (the given bundle, or an empty list), so no store is ever
 * consulted. It also serves `insecure-skip-tls-verify` and `tls-server-name` per client, which
 * `createHttpClient` cannot.
 *
 * Every request has one deadline covering connect, TLS, headers and the whole body (a server
 * that drips bytes cannot stretch it), and the body is read up to a size cap; both failures
 * are `ApiError`s naming the limit. A caller's per-request limits (the time left before its
 * own deadline) tighten the transport's.
 *
 * @module
 */
import http from "node:http";
import https from "node:https";
import { ApiError } from "../../../core/errors.ts";
import type {
  ConnectionParams,
  Transport,
  TransportLimits,
} from "../../../core/ports/transport.ts";
import { describeRequest } from "../../../core/kube/describe_call.ts";
import { transportError } from "./errors.ts";

/** Default deadline of one request. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Default cap of one response body (the API server's largest lists stay far below it). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** A transport and the means to release its pooled connections. */
export interface TransportHandle {
  transport: Transport;
  /** Closes the pooled connections. */
  close(): void;
}

function formatBytes(n: number): string {
  const mib = n / (1024 * 1024);
  return Number.isInteger(mib) ? `${n} bytes (${mib} MiB)` : `${n} bytes`;
}

/** Go's duration style: `700ms`, `3s`, `2.999s`. */
function formatMs(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${Number((ms / 1000).toFixed(3))}s`;
}

type TlsOptions = {
  ca: string[];
  cert?: string;
  key?: string;
  servername?: string;
  rejectUnauthorized: boolean;
};

/**
 * Keep-alive agents shared by every transport with the same TLS settings (trusted CA bundle,
 * client certificate and key, server name, verification), so that repeated transports (one
 * per discovery attempt, one per API client) reuse connections. Transports with different
 * settings never share a connection. An agent is destroyed when the last transport using it
 * is closed; transports that are never closed keep theirs for the process (idle sockets do
 * not keep it alive).
 */
const agents = new Map<string, { agent: https.Agent; refs: number }>();

function acquireAgent(tls: TlsOptions): { agent: https.Agent; release(): void } {
  const key = JSON.stringify([tls.ca, tls.cert, tls.key, tls.servername, tls.rejectUnauthorized]);
  let entry = agents.get(key);
  if (!entry) {
    entry = { agent: new https.Agent({ keepAlive: true, ...tls }), refs: 0 };
    agents.set(key, entry);
  }
  entry.refs++;
  const e = entry;
  let released = false;
  return {
    agent: e.agent,
    release() {
      if (released) return;
      released = true;
      if (--e.refs === 0 && agents.get(key) === e) {
        agents.delete(key);
        e.agent.destroy();
      }
    },
  };
}

/** Plain `http://` servers (an external etcd without TLS) get the same deadline and cap. */
let sharedPlainAgent: http.Agent | undefined;
function plainAgent(): http.Agent {
  return sharedPlainAgent ??= new http.Agent({ keepAlive: true });
}

/** Builds a verified (or, when asked, unverified) HTTPS transport for one API server. */
export function createNodeHttpsTransport(
  params: ConnectionParams,
  limits: TransportLimits = {},
): TransportHandle {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const maxBodyBytes = limits.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const tlsOptions: TlsOptions = {
    // Exactly the given bundle: never undefined, which would mean "the default roots".
    ca: params.caPem && !params.insecureSkipTLSVerify ? [params.caPem] : [],
    cert: params.certPem,
    key: params.keyPem,
    servername: params.tlsServerName,
    rejectUnauthorized: !params.insecureSkipTLSVerify,
  };
  const pooled = acquireAgent(tlsOptions);
  const agent = pooled.agent;

  const send = (
    request: Request,
    body: Uint8Array | undefined,
    timeoutMs: number,
    maxBodyBytes: number,
  ): Promise<Response> => {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => (headers[k] = v));
    if (params.token && !headers["authorization"]) {
      headers["authorization"] = `Bearer ${params.token}`;
    }
    if (body) headers["content-length"] = String(body.length);
    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      // One deadline for connect, TLS, headers and body.
      const timer = setTimeout(() => {
        fail(deadlineExceeded(request, timeoutMs));
        req.destroy();
      }, timeoutMs);
      const finish = (f: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.signal.removeEventListener("abort", onAbort);
        f();
      };
      const fail = (e: unknown) => finish(() => reject(e));
      const plain = url.protocol === "http:";
      const target = {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ""),
        port: url.port || (plain ? 80 : 443),
        path: url.pathname + url.search,
        method: request.method,
        headers,
      };
      const onResponse = (res: http.IncomingMessage) => {
        const declared = Number(res.headers["content-length"]);
        if (Number.isFinite(declared) && declared > maxBodyBytes) {
          fail(tooLarge(request, maxBodyBytes));
          req.destroy();
          return;
        }
        const chunks: Uint8Array[] = [];
        let total = 0;
        res.on("data", (c: Uint8Array) => {
          total += c.length;
          if (total > maxBodyBytes) {
            fail(tooLarge(request, maxBodyBytes));
            req.destroy();
            return;
          }
          chunks.push(new Uint8Array(c));
        });
        res.on("error", fail);
        res.on("end", () => {
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
          finish(() =>
            resolve(
              new Response(nullBody ? null : all, {
                status,
                statusText: res.statusMessage ?? "",
                headers: h,
              }),
            )
          );
        });
      };
      const req = plain
        ? http.request({ ...target, agent: plainAgent() }, onResponse)
        : https.request({ ...target, agent, ...tlsOptions }, onResponse);
      const onAbort = () => {
        fail(request.signal.reason ?? new DOMException("aborted", "AbortError"));
        req.destroy();
      };
      request.signal.addEventListener("abort", onAbort);
      req.on("error", fail);
      if (body) req.write(body);
      req.end();
    });
  };

  const transport: Transport = async (request, perRequest) => {
    try {
      request.signal.throwIfAborted();
      const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
      return await send(
        request,
        body,
        Math.min(timeoutMs, perRequest?.timeoutMs ?? Infinity),
        Math.min(maxBodyBytes, perRequest?.maxBodyBytes ?? Infinity),
      );
    } catch (e) {
      throw transportError(e, request);
    }
  };
  return {
    transport,
    close: () => pooled.release(),
  };
}

function deadlineExceeded(request: Request, timeoutMs: number): ApiError {
  const url = new URL(request.url);
  return new ApiError(
    `${describeRequest(request)}: context deadline exceeded (no complete response within ${
      formatMs(timeoutMs)
    }: connect, TLS, headers and body)`,
    {
      status: 0,
      reason: "Timeout",
      hint: `the API server at ${url.protocol}//${url.host} did not answer in time`,
    },
  );
}

function tooLarge(request: Request, maxBodyBytes: number): ApiError {
  return new ApiError(
    `${describeRequest(request)}: the response body exceeds the limit of ${
      formatBytes(maxBodyBytes)
    }`,
    {
      status: 0,
      reason: "ResponseTooLarge",
      hint: "this is not a response of a Kubernetes API server; check the server address",
    },
  );
}
