/**
 * The Deno {@link HealthProbe}: GETs of health URLs through the Deno adapters' one transport
 * factory, plain HTTP (the kubelet's `127.0.0.1:10248/healthz`) and HTTPS alike. HTTPS is
 * unverified when asked (the control-plane components' self-signed serving certificates, as
 * upstream) and otherwise trusts no root at all (no CA is given to a health probe; Deno's root
 * store is never used).
 *
 * The answer is the one the URL gives: a redirect is never followed, so a `3xx` is reported
 * as its status (not healthy) and cannot lead the probe to another server, or to an HTTPS
 * server that only Deno's root store would trust (`fetch` follows redirects by default, and
 * so does upstream's Go client). One deadline covers connect, TLS, headers and the whole body,
 * and the body is capped. Failures come back as Go-like texts (`Get
 * "https://127.0.0.1:10257/healthz": dial tcp 127.0.0.1:10257: connect: connection refused`).
 *
 * Speed: a wait probes every pending endpoint every 100 ms for seconds, on a node whose CPU the
 * components starting up need. So the probe keeps its connections between probes until
 * {@link HealthProbe.close} (a fresh TLS handshake per probe cost client and server ~3 ms of
 * CPU each time, a kept connection ~0.5 ms, as upstream's one client per wait does), and once
 * an endpoint refused a connection, the next probe first tries a bare TCP connect (~0.1 ms,
 * where a refused `node:https` request costs ~1.3 ms) and reports the same refusal when it is
 * refused again.
 *
 * @module
 */
import type { HealthProbe, HealthResult } from "../../core/ports/http.ts";
import { createDenoTransport, type DenoTransport } from "./transport.ts";
import { transportError } from "./transport/errors.ts";

/** Default bound of one probe. */
const DEFAULT_TIMEOUT_MS = 10_000;
/** Largest health answer read (they are `ok`, or a few lines with `?verbose`). */
export const HEALTH_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Whether a bare TCP connect to `url`'s host and port is refused, within `timeoutMs`: the
 * refusal, or `undefined` when something accepted (closed at once), the connect failed
 * otherwise or did not finish in time.
 */
async function connectRefusal(url: URL, timeoutMs: number): Promise<unknown> {
  const connecting = Deno.connect({
    hostname: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port || (url.protocol === "http:" ? 80 : 443)),
  });
  let timer: number | undefined;
  const late = new Promise<undefined>((resolve) => timer = setTimeout(resolve, timeoutMs));
  try {
    const conn = await Promise.race([connecting, late]);
    if (conn) conn.close();
    else connecting.then((c) => c.close(), () => {});
    return undefined;
  } catch (e) {
    return e instanceof Deno.errors.ConnectionRefused ? e : undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** Builds the probe (see the module documentation for the connections it keeps). */
export function createHealthProbe(): HealthProbe {
  const transports = new Map<string, DenoTransport>();
  /** Origins whose last probe was refused. */
  const refused = new Set<string>();
  const transportFor = (origin: string, insecure: boolean) => {
    const key = `${insecure} ${origin}`;
    let t = transports.get(key);
    if (!t) {
      t = createDenoTransport({ server: origin, insecureSkipTLSVerify: insecure }, {
        timeoutMs: DEFAULT_TIMEOUT_MS,
        maxBodyBytes: HEALTH_MAX_BODY_BYTES,
      });
      transports.set(key, t);
    }
    return t;
  };
  return {
    async get(url, options = {}): Promise<HealthResult> {
      const request = new Request(url, { method: "GET" });
      let timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const parsed = new URL(url);
      const origin = parsed.origin;
      try {
        if (refused.has(origin)) {
          const started = Date.now();
          const refusal = await connectRefusal(parsed, timeoutMs);
          if (refusal) throw refusal;
          timeoutMs = Math.max(1, timeoutMs - (Date.now() - started));
        }
        const t = transportFor(origin, options.insecureSkipTLSVerify ?? false);
        const status = (await t.transport(request, { timeoutMs })).status;
        refused.delete(origin);
        return { status };
      } catch (e) {
        const error = transportError(e, request);
        if (error.reason === "ConnectionRefused") refused.add(origin);
        else refused.delete(origin);
        return { error: error.message };
      }
    },
    close(): Promise<void> {
      for (const t of transports.values()) t.close();
      transports.clear();
      refused.clear();
      return Promise.resolve();
    },
  };
}
