/**
 * How etcd operations are retried: every 500 ms (upstream `EtcdAPICallRetryInterval`) until
 * `timeouts.etcdAPICall` (2 minutes), on an injected clock and sleep.
 *
 * @module
 */
import { DefaultTimeouts } from "../constants.ts";
import { type Clock, systemClock } from "../host/ports.ts";
import { realSleep, type Sleep } from "../kube/transport.ts";

/** Upstream's `EtcdAPICallRetryInterval`. */
export const ETCD_API_CALL_RETRY_INTERVAL_MS = 500;

/** Clock, sleep and bounds of etcd retries. */
export interface EtcdTiming {
  clock: Clock;
  sleep: Sleep;
  /** Overall bound of one retried operation (`timeouts.etcdAPICall`). */
  timeoutMs: number;
  /** Delay between attempts. */
  intervalMs: number;
}

/** Upstream's defaults, with overrides. */
export function etcdTiming(overrides: Partial<EtcdTiming> = {}): EtcdTiming {
  return {
    clock: systemClock,
    sleep: realSleep,
    timeoutMs: DefaultTimeouts.etcdAPICall,
    intervalMs: ETCD_API_CALL_RETRY_INTERVAL_MS,
    ...overrides,
  };
}
