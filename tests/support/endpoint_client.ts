/**
 * A client of a cluster's `controlPlaneEndpoint`, as a user's would be during maintenance:
 * kubectl inside a node, through the endpoint (the load balancer), reading an object every
 * `intervalMs` (the next request starts `intervalMs` after the previous one started, or at once
 * when it took longer), each with a 30 s request timeout: a request the API server holds while
 * its etcd member restarts is slow, not failed. Counts the requests, keeps every failure with
 * its time and kubectl's error, and the slowest request's time.
 *
 * @module
 */
import type { ClusterNode } from "./cluster.ts";

/** A failed request. */
export interface FailedRequest {
  /** When it started (ISO time). */
  at: string;
  /** kubectl's exit status and error. */
  error: string;
}

/** What the client saw between start and stop. */
export interface EndpointClientReport {
  requests: number;
  failures: FailedRequest[];
  /** Wall time between start and stop, ms. */
  durationMs: number;
  /** The slowest request, ms. */
  slowestMs: number;
}

/** A running client ({@link startEndpointClient}). */
export interface EndpointClient {
  /** Requests so far. */
  readonly requests: number;
  /** Failures so far. */
  readonly failures: readonly FailedRequest[];
  /** Stops after the request in flight and reports. */
  stop(): Promise<EndpointClientReport>;
}

/** Options of {@link startEndpointClient}. */
export interface EndpointClientOptions {
  /** Between the starts of two requests, ms (200). */
  intervalMs?: number;
  /**
   * Called on each failure as it happens (awaited before the next request): to keep what the
   * cluster logged then, before later restarts remove it.
   */
  onFailure?: (f: FailedRequest) => Promise<void>;
  /** kubectl's `-o` (`name`). */
  output?: string;
  /** Called with each successful request's output and start (ISO time), to check what it read. */
  onSuccess?: (stdout: string, at: string) => void;
}

/**
 * Starts reading `kubectl get <resource>` in `node` with `kubeconfig` (a path the node sees;
 * its server is the endpoint).
 */
export function startEndpointClient(
  node: ClusterNode,
  kubeconfig: string,
  resource: string[],
  { intervalMs = 200, onFailure, output = "name", onSuccess }: EndpointClientOptions = {},
): EndpointClient {
  let stopping = false;
  let requests = 0;
  let slowestMs = 0;
  const failures: FailedRequest[] = [];
  const started = performance.now();
  const loop = (async () => {
    while (!stopping) {
      const t0 = performance.now();
      const at = new Date().toISOString();
      requests++;
      const r = await node.exec([
        `${node.binDir}/kubectl`,
        "--kubeconfig",
        kubeconfig,
        "--request-timeout=30s",
        "get",
        ...resource,
        "-o",
        output,
      ], { timeoutMs: 60_000 });
      const took = performance.now() - t0;
      slowestMs = Math.max(slowestMs, took);
      if (r.code !== 0) {
        const f = { at, error: `exit ${r.code}: ${r.stderr.trim()}` };
        failures.push(f);
        await onFailure?.(f).catch((e) => console.error(`endpoint client: onFailure: ${e}`));
      } else {
        onSuccess?.(r.stdout, at);
      }
      const wait = intervalMs - took;
      if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    }
  })();
  return {
    get requests() {
      return requests;
    },
    get failures() {
      return failures;
    },
    async stop() {
      stopping = true;
      await loop;
      return { requests, failures, durationMs: performance.now() - started, slowestMs };
    },
  };
}
