/**
 * A client of a cluster's API endpoint during maintenance, as a user's would be, light enough
 * to poll every 100 ms on a small machine: from the test process, one GET of a real object (a
 * read that goes through etcd) per interval, each on a new TLS connection (so a server that went
 * away is noticed by the next request, not hidden by a pooled one), with the credentials of a
 * kubeconfig and a per-request timeout. Counts requests and failures, and measures the
 * downtime: the time from the start of each failed request to the start of the next successful
 * one, summed, and the longest such outage. Figures for reports, never timed assertions.
 *
 * @module
 */
import { parseKubeconfig } from "../../core/kubeconfig/kubeconfig.ts";
import { base64Decode } from "../../core/text/base64.ts";
import { utf8 } from "../../core/text/utf8.ts";

/** A failed request. */
export interface FailedRequest {
  /** When it started (ISO time). */
  at: string;
  error: string;
}

/** An outage: from the start of its first failed request to the start of the next success. */
export interface Outage {
  /** Epoch ms. */
  start: number;
  end: number;
}

/** What the poller saw between start and stop. */
export interface PollerReport {
  requests: number;
  failures: FailedRequest[];
  outages: Outage[];
  /** Summed outages, ms. */
  downtimeMs: number;
  /** The longest outage, ms. */
  longestOutageMs: number;
  /** The slowest successful request, ms. */
  slowestMs: number;
  durationMs: number;
}

/** A running poller. */
export interface ApiPoller {
  readonly requests: number;
  /** Stops after the request in flight and reports. */
  stop(): Promise<PollerReport>;
}

/** TLS material of the kubeconfig's current context (embedded data). */
export function kubeconfigCredentials(text: string): {
  server: string;
  caCerts: string[];
  cert: string;
  key: string;
} {
  const k = parseKubeconfig(text, "kubeconfig");
  const ctxName = k["current-context"];
  const ctx = k.contexts.find((c) => c.name === ctxName)!.context;
  const cluster = k.clusters.find((c) => c.name === ctx.cluster)!.cluster;
  const user = k.users.find((u) => u.name === ctx.user)!.user;
  const data = (v: string | undefined) => utf8(base64Decode(v ?? ""));
  return {
    server: cluster.server!,
    caCerts: [data(cluster["certificate-authority-data"])],
    cert: data(user["client-certificate-data"]),
    key: data(user["client-key-data"]),
  };
}

/**
 * Starts GETting `path` from the kubeconfig's server (or `server`, e.g. a load balancer) every
 * `intervalMs` (the next request starts `intervalMs` after the previous one started, or at once
 * when it took longer).
 */
export function startApiPoller(
  kubeconfig: string,
  path: string,
  options: { server?: string; intervalMs?: number; timeoutMs?: number } = {},
): ApiPoller {
  const creds = kubeconfigCredentials(kubeconfig);
  const server = options.server ?? creds.server;
  const intervalMs = options.intervalMs ?? 100;
  const timeoutMs = options.timeoutMs ?? 30_000;
  let stopping = false;
  let requests = 0;
  let slowestMs = 0;
  let downtimeMs = 0;
  let longestOutageMs = 0;
  let outageStart: number | undefined;
  const failures: FailedRequest[] = [];
  const outages: Outage[] = [];
  /** Records the outage from `start` to `end` (performance times). */
  const closeOutage = (start: number, end: number) => {
    downtimeMs += end - start;
    longestOutageMs = Math.max(longestOutageMs, end - start);
    const wall = Date.now() - performance.now();
    outages.push({ start: wall + start, end: wall + end });
  };
  const started = performance.now();
  const loop = (async () => {
    while (!stopping) {
      const t0 = performance.now();
      const at = new Date().toISOString();
      requests++;
      const client = Deno.createHttpClient({
        caCerts: creds.caCerts,
        cert: creds.cert,
        key: creds.key,
        poolMaxIdlePerHost: 0,
      });
      let error: string | undefined;
      try {
        const res = await fetch(
          `${server}${path}`,
          {
            client,
            signal: AbortSignal.timeout(timeoutMs),
          } as RequestInit & { client: Deno.HttpClient },
        );
        const body = await res.text();
        if (!res.ok) error = `HTTP ${res.status}: ${body.slice(0, 200)}`;
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
      } finally {
        client.close();
      }
      const took = performance.now() - t0;
      if (error !== undefined) {
        failures.push({ at, error });
        outageStart ??= t0;
      } else {
        slowestMs = Math.max(slowestMs, took);
        if (outageStart !== undefined) {
          closeOutage(outageStart, t0);
          outageStart = undefined;
        }
      }
      const wait = intervalMs - took;
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  return {
    get requests() {
      return requests;
    },
    async stop() {
      stopping = true;
      await loop;
      if (outageStart !== undefined) closeOutage(outageStart, performance.now());
      return {
        requests,
        failures,
        outages,
        downtimeMs,
        longestOutageMs,
        slowestMs,
        durationMs: performance.now() - started,
      };
    },
  };
}

/** The part of the outages within `[from, to)` (epoch ms), ms. */
export function downtimeWithin(outages: readonly Outage[], from: number, to: number): number {
  return outages.reduce(
    (sum, o) => sum + Math.max(0, Math.min(o.end, to) - Math.max(o.start, from)),
    0,
  );
}
