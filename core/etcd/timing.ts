/**
 * How etcd operations are retried: every 500 ms (upstream `EtcdAPICallRetryInterval`) until
 * `timeouts.etcdAPICall` (2 minutes), on an injected clock and sleep; and how long one request
 * may take.
 *
 * @module
 */
import { DefaultTimeouts } from "../constants.ts";
import type { Clock, Sleep } from "../ports/clock.ts";

/** Upstream's `EtcdAPICallRetryInterval`. */
const ETCD_API_CALL_RETRY_INTERVAL_MS = 500;

/**
 * Bound of one etcd request: upstream's `etcdTimeout` (2s, `util/etcd/etcd.go`), its client's
 * dial timeout and the context of every request it sends.
 */
export const ETCD_REQUEST_TIMEOUT_MS = 2_000;

/** Clock, sleep and bounds of etcd retries. */
export interface EtcdTiming {
  clock: Clock;
  sleep: Sleep;
  /** Overall bound of one retried operation (`timeouts.etcdAPICall`). */
  timeoutMs: number;
  /** Delay between attempts. */
  intervalMs: number;
}

/** Upstream's bounds on the run's clock and sleep, with overrides. */
export function etcdTiming(
  overrides: Pick<EtcdTiming, "clock" | "sleep"> & Partial<EtcdTiming>,
): EtcdTiming {
  return {
    timeoutMs: DefaultTimeouts.etcdAPICall,
    intervalMs: ETCD_API_CALL_RETRY_INTERVAL_MS,
    ...overrides,
  };
}
