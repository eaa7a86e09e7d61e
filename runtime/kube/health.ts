/**
 * The Deno {@link HealthProbe}: one GET of a health URL. Plain HTTP (the kubelet's
 * `127.0.0.1:10248/healthz`) uses `fetch`; HTTPS goes through the runtime's one transport
 * factory, unverified when asked (the control-plane components' self-signed serving
 * certificates, as upstream) and otherwise trusting no root at all (no CA is given to a health
 * probe; Deno's root store is never used). Failures come back as Go-like texts
 * (`Get "https://127.0.0.1:10257/healthz": dial tcp 127.0.0.1:10257: connect: connection
 * refused`).
 *
 * @module
 */
import type { HealthProbe, HealthResult } from "../../core/host/http.ts";
import { createDenoTransport } from "./transport.ts";
import { transportError } from "./transport_errors.ts";

/** Default bound of one probe. */
const DEFAULT_TIMEOUT_MS = 10_000;

/** Builds the probe. */
export function createHealthProbe(): HealthProbe {
  return {
    async get(url, options = {}): Promise<HealthResult> {
      const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const request = new Request(url, { method: "GET" });
      try {
        if (url.startsWith("https:")) {
          const t = createDenoTransport(
            { server: new URL(url).origin, insecureSkipTLSVerify: options.insecureSkipTLSVerify },
            { timeoutMs },
          );
          try {
            const res = await t.transport(request);
            await res.body?.cancel();
            return { status: res.status };
          } finally {
            t.close();
          }
        }
        const res = await fetch(request, { signal: AbortSignal.timeout(timeoutMs) });
        await res.body?.cancel();
        return { status: res.status };
      } catch (e) {
        return { error: transportError(e, request).message };
      }
    },
  };
}
