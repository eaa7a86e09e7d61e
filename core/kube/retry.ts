/**
 * Waiting for the API server: exponential backoff for transient failures and fixed-interval
 * polling for conditions, both bounded by a deadline on an injected {@link Clock} and using an
 * injected sleep, so tests run instantly and deterministically. A backoff also bounds each of
 * its attempts by the time left ({@link Backoff.attemptLimits}), which the client hands to its
 * transport; a poll hands the time it has left to every call of its attempts
 * ({@link PollWindow}), so a wait ends at its timeout, not a request timeout later.
 *
 * @module
 */
import { DefaultTimeouts } from "../constants.ts";
import { ApiError, errorMessage, KubeadmError } from "../errors.ts";
import { formatDuration } from "../text/duration.ts";
import type { Clock, Sleep } from "../ports/clock.ts";
import type { TransportLimits } from "../ports/transport.ts";

/** Upstream's `KubernetesAPICallRetryInterval`. */
export const API_CALL_RETRY_INTERVAL_MS = 500;

/** How long and how often to retry a failing call. */
export interface RetryPolicy {
  /** Give up once this much time has passed since the first attempt. */
  timeoutMs: number;
  /** Delay before the second attempt. */
  initialDelayMs: number;
  /** Upper bound of a single delay. */
  maxDelayMs: number;
  /** Growth factor between delays. */
  factor: number;
  /**
   * Least time the call is given, counted from its first attempt, even when its timeout is
   * shorter: the timeout then only stops new attempts (default 0: nothing runs past the
   * timeout). See {@link shortRetryPolicy}.
   */
  minCallMs?: number;
}

/** Retries for up to `timeouts.kubernetesAPICall` (1m), starting at 500ms, doubling to 8s. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  timeoutMs: DefaultTimeouts.kubernetesAPICall,
  initialDelayMs: API_CALL_RETRY_INTERVAL_MS,
  maxDelayMs: 8_000,
  factor: 2,
};

/**
 * Upstream's `GetConfigMapWithShortRetry` (reading `kubeadm-config` and the component configs):
 * new attempts every 50ms for 350ms, so an unreachable API server fails at once instead of after
 * a minute. Upstream runs each of those reads on a context of its own, without a deadline, so
 * that the short window cannot cut a slow answer (nor client-go's waits for a `Retry-After`);
 * here the call is given `apiCallTimeoutMs` (the client's, `timeouts.kubernetesAPICall`), as
 * every API call: with a thousand nodes joining at once, answers took over 10s
 * (scripts/bench-joiners).
 */
export function shortRetryPolicy(apiCallTimeoutMs: number): RetryPolicy {
  return {
    timeoutMs: 350,
    initialDelayMs: 50,
    maxDelayMs: 50,
    factor: 1,
    minCallMs: apiCallTimeoutMs,
  };
}

/**
 * How many times one call is retried when the server asks for it (`Retry-After`, e.g. the 429 of
 * API Priority and Fairness), as client-go's request does (its `maxRetries`, 10).
 */
export const MAX_SERVER_RETRIES = 10;

/** The clock and sleep a retry loop runs on. */
export interface Timing {
  clock: Clock;
  sleep: Sleep;
}

/**
 * A growing delay sequence bounded by a deadline, and the bounds of each attempt. `within`
 * bounds the whole call from outside (a poll's window: the time left before the wait ends):
 * no attempt runs past it and none starts after it, whatever the policy says.
 */
export class Backoff {
  /** Epoch milliseconds of the backoff's start (its first attempt). */
  readonly #start: number;
  /** Epoch milliseconds after which no further attempt starts. */
  readonly #retryUntil: number;
  /** Epoch milliseconds by which the policy ends an attempt (retried policies only). */
  readonly #policyEnd?: number;
  /** Epoch milliseconds by which `within` ends the call. */
  readonly #outerEnd?: number;
  readonly #maxBodyBytes?: number;
  #delay: number;
  /** Retries the server asked for (`Retry-After`) so far. */
  #serverRetries = 0;
  /** The deadline that bounded the last attempt (undefined: the call's floor did). */
  #attemptEnd?: number;
  readonly #policy: RetryPolicy;
  readonly #timing: Timing;

  constructor(policy: RetryPolicy, timing: Timing, within?: TransportLimits) {
    this.#policy = policy;
    this.#timing = timing;
    this.#delay = policy.initialDelayMs;
    const now = timing.clock.now().getTime();
    this.#start = now;
    if (policy.timeoutMs > 0) this.#policyEnd = now + policy.timeoutMs;
    if (within?.timeoutMs !== undefined) this.#outerEnd = now + Math.max(0, within.timeoutMs);
    this.#maxBodyBytes = within?.maxBodyBytes;
    this.#retryUntil = Math.min(now + Math.max(0, policy.timeoutMs), this.#outerEnd ?? Infinity);
  }

  /**
   * The bounds of the attempt about to start: the time left before the call ends (the later of
   * the policy's timeout and its `minCallMs` floor, both from the first attempt; at least
   * 1ms), so that no attempt outlives it; `within` tightens that and is never stretched by
   * `minCallMs`. A policy of a single attempt (`timeoutMs` 0) given no `within` sets none:
   * the transport's own bound applies.
   */
  attemptLimits(): TransportLimits | undefined {
    const now = this.#timing.clock.now().getTime();
    let timeoutMs: number | undefined;
    this.#attemptEnd = undefined;
    if (this.#policyEnd !== undefined) {
      timeoutMs = Math.max(1, this.#callEnd() - now);
      if (this.#policyEnd >= this.#floorEnd()) this.#attemptEnd = this.#policyEnd;
    }
    if (this.#outerEnd !== undefined) {
      const left = Math.max(1, this.#outerEnd - now);
      if (timeoutMs === undefined || left <= timeoutMs) {
        timeoutMs = left;
        this.#attemptEnd = this.#outerEnd;
      }
    }
    if (timeoutMs === undefined && this.#maxBodyBytes === undefined) return undefined;
    const limits: TransportLimits = {};
    if (timeoutMs !== undefined) limits.timeoutMs = timeoutMs;
    if (this.#maxBodyBytes !== undefined) limits.maxBodyBytes = this.#maxBodyBytes;
    return limits;
  }

  /**
   * When the last attempt was bounded by a deadline (not by the policy's `minCallMs`) and
   * that deadline has passed: how long after the start it fell (a timeout of that attempt is
   * that deadline exceeded); otherwise `undefined`.
   */
  expiredDuringAttempt(): number | undefined {
    const end = this.#attemptEnd;
    if (end === undefined || this.#timing.clock.now().getTime() < end) return undefined;
    return end - this.#start;
  }

  /** Where the `minCallMs` floor ends. */
  #floorEnd(): number {
    return this.#start + (this.#policy.minCallMs ?? 0);
  }

  /** Where the call ends: the later of its timeout and floor, within `within`. */
  #callEnd(): number {
    return Math.min(this.#outerEnd ?? Infinity, Math.max(this.#policyEnd!, this.#floorEnd()));
  }

  /**
   * Sleeps before the next attempt (at least `minDelayMs`, e.g. a server's Retry-After, up to
   * the policy's maximum) and returns true, or returns false without sleeping when the next
   * attempt would start past the deadline.
   */
  wait(minDelayMs = 0): Promise<boolean> {
    return this.#waitFor(Math.min(Math.max(this.#delay, minDelayMs), this.#policy.maxDelayMs));
  }

  /**
   * As {@link wait}, but the delay is at least `minDelayMs` even past the policy's maximum (a
   * poll's interval): what a server asked for (its `Retry-After`) is waited in full, or not at
   * all when the next attempt would start past the deadline.
   */
  waitAtLeast(minDelayMs: number): Promise<boolean> {
    return this.#waitFor(Math.max(this.#delay, minDelayMs));
  }

  async #waitFor(delay: number): Promise<boolean> {
    if (this.#timing.clock.now().getTime() + delay > this.#retryUntil) return false;
    await this.#timing.sleep(delay);
    this.#delay = Math.min(this.#delay * this.#policy.factor, this.#policy.maxDelayMs);
    return true;
  }

  /** Whether a retry the server asks for may still be made ({@link waitForServer}). */
  get serverRetriesLeft(): boolean {
    return this.#policyEnd !== undefined && this.#serverRetries < MAX_SERVER_RETRIES;
  }

  /**
   * Sleeps `delayMs` before retrying what the server asked to be retried (its `Retry-After`,
   * exactly: neither the policy's delays nor its maximum apply) and returns true, as client-go
   * retries such answers inside one request, at most {@link MAX_SERVER_RETRIES} times a call
   * and past the policy's window for new attempts, but within the call's end (its timeout or
   * floor, see {@link attemptLimits}); returns false without sleeping when no retry is left
   * ({@link serverRetriesLeft}) or the retry would start at or past that end.
   */
  async waitForServer(delayMs: number): Promise<boolean> {
    if (!this.serverRetriesLeft) return false;
    if (this.#timing.clock.now().getTime() + delayMs >= this.#callEnd()) return false;
    this.#serverRetries++;
    await this.#timing.sleep(delayMs);
    return true;
  }
}

/**
 * One poll attempt: done with a value, or not yet (optionally with the error seen, and the
 * least delay before the next attempt: what the server asked for, its `Retry-After`, which
 * may exceed the poll's interval).
 */
export type PollAttempt<T> = { done: true; value: T } | {
  done: false;
  error?: unknown;
  retryAfterMs?: number;
};

/**
 * What a poll hands each attempt: the bounds of a call starting now, so that no call outlives
 * the wait. Give `limits()` to every network call of the attempt (API client, etcd client,
 * health probe), each when it starts.
 */
export interface PollWindow {
  /** The time left before the wait ends (at least 1ms); none for a single-attempt poll. */
  limits(): TransportLimits | undefined;
}

/** Options of {@link poll}. */
export interface PollOptions extends Timing {
  /** Delay between attempts (the longest one when `firstIntervalMs` is given). */
  intervalMs: number;
  /**
   * The first delay, doubled after each attempt up to `intervalMs`: a condition that usually
   * holds within moments (a cache catching up) is seen as soon as it holds, while a long wait
   * still polls every `intervalMs` (default: every delay is `intervalMs`).
   */
  firstIntervalMs?: number;
  /** Overall bound, measured from the first attempt. */
  timeoutMs: number;
  /** Error to throw on timeout when no attempt reported one. */
  timeoutError?: () => Error;
}

/**
 * Runs `attempt` immediately and then every `intervalMs` (after a faster start with
 * `firstIntervalMs`; after an attempt's `retryAfterMs` when that is longer) until it reports
 * done, like upstream's `wait.PollUntilContextTimeout(..., immediate=true, ...)`. Each attempt
 * gets the wait's {@link PollWindow}, so that the whole wait ends within its timeout (plus what
 * the calls take to notice their limits), never a whole request timeout later. On timeout
 * throws the last error an attempt reported, or a timeout error; when the timeout ran out
 * during an attempt that its window bounded, that attempt's error is reported as cut by the
 * wait's timeout ({@link waitCutError}). Errors thrown by `attempt` abort the loop at once.
 */
export async function poll<T>(
  attempt: (window: PollWindow) => Promise<PollAttempt<T>>,
  options: PollOptions,
): Promise<T> {
  const interval = options.intervalMs;
  const first = Math.min(options.firstIntervalMs ?? interval, interval);
  const backoff = new Backoff(
    { timeoutMs: options.timeoutMs, initialDelayMs: first, maxDelayMs: interval, factor: 2 },
    options,
  );
  let bounded = false;
  const window: PollWindow = {
    limits() {
      bounded = true;
      return backoff.attemptLimits();
    },
  };
  let lastError: unknown;
  for (;;) {
    bounded = false;
    const started = options.clock.now().getTime();
    const r = await attempt(window);
    if (r.done) return r.value;
    if (r.error !== undefined) lastError = r.error;
    const waited = r.retryAfterMs === undefined
      ? await backoff.wait()
      : await backoff.waitAtLeast(r.retryAfterMs);
    if (waited) continue;
    // Cut: its calls were bounded by the wait and it ran into the wait's end (an attempt that
    // failed at once, at the end, was not cut).
    const cut = bounded && backoff.expiredDuringAttempt() !== undefined &&
      options.clock.now().getTime() > started;
    if (cut && r.error !== undefined) throw waitCutError(r.error, options.timeoutMs);
    break;
  }
  if (lastError !== undefined) throw lastError;
  throw options.timeoutError?.() ??
    new KubeadmError(`timed out waiting for the condition after ${options.timeoutMs}ms`);
}

/**
 * The error of a wait whose timeout ran out during an attempt it had bounded: that attempt's
 * error (its call was cut at the wait's end, so it names only the time that was left), said
 * to be the wait's timeout. An API error stays one (status, reason, object and hint kept).
 */
function waitCutError(last: unknown, timeoutMs: number): KubeadmError {
  const message = `the wait's timeout of ${formatDuration(timeoutMs)} ran out during its ` +
    `last attempt: ${errorMessage(last)}`;
  if (last instanceof ApiError) {
    return new ApiError(message, {
      status: last.status,
      reason: last.reason,
      object: last.object,
      hint: last.hint,
      cause: last,
    });
  }
  return new KubeadmError(message, {
    cause: last,
    hint: last instanceof KubeadmError ? last.hint : undefined,
  });
}
