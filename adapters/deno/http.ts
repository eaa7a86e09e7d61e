/**
 * The Deno {@link HealthProbe}: one GET of a health URL through the Deno adapters' one transport
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
 * @module
 */
import type { HealthProbe, HealthResult } from "../../core/ports/http.ts";
import { createDenoTransport } from "./transport.ts";
import { transportError } from "./transport/errors.ts";

/** Default bound of one probe. */
const DEFAULT_TIMEOUT_MS = 10_000;
/** Largest health answer read (they are `ok`, or a few lines with `?verbose`). */
export const HEALTH_MAX_BODY_BYTES = 1024 * 1024;

/** Builds the probe. */
export function createHealthProbe(): HealthProbe {
  return {
    async get(url, options = {}): Promise<HealthResult> {
      const request = new Request(url, { method: "GET" });
      try {
        const t = createDenoTransport(
          { server: new URL(url).origin, insecureSkipTLSVerify: options.insecureSkipTLSVerify },
          {
            timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
            maxBodyBytes: HEALTH_MAX_BODY_BYTES,
          },
        );
        try {
          return { status: (await t.transport(request)).status };
        } finally {
          t.close();
        }
      } catch (e) {
        return { error: transportError(e, request).message };
      }
    },
  };
}
