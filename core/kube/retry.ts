/**
 * Waiting for the API server: exponential backoff for transient failures and fixed-interval
 * polling for conditions, both bounded by a deadline on an injected {@link Clock} and using an
 * injected sleep, so tests run instantly and deterministically. A backoff also bounds each of
 * its attempts by the time left ({@link Backoff.attemptLimits}), which the client hands to its
 * transport.
 *
 * @module
 */
import { DefaultTimeouts } from "../constants.ts";
import { KubeadmError } from "../errors.ts";
import type { Clock } from "../host/ports.ts";
import type { Sleep, TransportLimits } from "./transport.ts";

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
   * Least time an attempt is given even when less is left before the deadline (default 0:
   * no attempt runs past it). See {@link SHORT_RETRY_POLICY}.
   */
  minAttemptMs?: number;
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
 * every 50ms for 350ms, so an unreachable API server fails at once instead of after a minute.
 * Upstream runs each of those reads on a context of its own so that the short window cannot
 * cut a slow answer; here an attempt is given at least 10s (the window only stops new ones).
 */
export const SHORT_RETRY_POLICY: Readonly<RetryPolicy> = {
  timeoutMs: 350,
  initialDelayMs: 50,
  maxDelayMs: 50,
  factor: 1,
  minAttemptMs: 10_000,
};

/** The clock and sleep a retry loop runs on. */
export interface Timing {
  clock: Clock;
  sleep: Sleep;
}

/** A growing delay sequence bounded by a deadline. */
export class Backoff {
  /**
   * Epoch milliseconds by which the retried call ends: no attempt starts past it, nor runs past
   * it unless the policy's `minAttemptMs` says so.
   */
  readonly deadline: number;
  /** How long after the backoff's start the deadline falls (the policy's `timeoutMs`). */
  readonly timeoutMs: number;
  #delay: number;
  #attemptEndsAtDeadline = false;
  readonly #policy: RetryPolicy;
  readonly #timing: Timing;

  constructor(policy: RetryPolicy, timing: Timing, deadline?: number) {
    this.#policy = policy;
    this.#timing = timing;
    this.#delay = policy.initialDelayMs;
    const now = timing.clock.now().getTime();
    this.deadline = deadline ?? now + policy.timeoutMs;
    this.timeoutMs = this.deadline - now;
  }

  /**
   * The bounds of the attempt about to start: the time left before the deadline (at least the
   * policy's `minAttemptMs`, and at least 1ms), so that no attempt outlives it. A policy of a
   * single attempt (`timeoutMs` 0) sets none: the transport's own bound applies.
   */
  attemptLimits(): TransportLimits | undefined {
    this.#attemptEndsAtDeadline = false;
    if (this.timeoutMs <= 0) return undefined;
    const left = Math.max(1, this.deadline - this.#timing.clock.now().getTime());
    const minimum = this.#policy.minAttemptMs ?? 0;
    this.#attemptEndsAtDeadline = left >= minimum;
    return { timeoutMs: Math.max(left, minimum) };
  }

  /**
   * Whether the deadline has passed and the last attempt was bounded by it (not by the
   * policy's `minAttemptMs`): a timeout of that attempt is the call's deadline exceeded.
   */
  expiredDuringAttempt(): boolean {
    return this.#attemptEndsAtDeadline &&
      this.#timing.clock.now().getTime() >= this.deadline;
  }

  /**
   * Sleeps before the next attempt (at least `minDelayMs`, e.g. a server's Retry-After) and
   * returns true, or returns false without sleeping when the next attempt would start past
   * the deadline.
   */
  async wait(minDelayMs = 0): Promise<boolean> {
    const delay = Math.min(Math.max(this.#delay, minDelayMs), this.#policy.maxDelayMs);
    if (this.#timing.clock.now().getTime() + delay > this.deadline) return false;
    await this.#timing.sleep(delay);
    this.#delay = Math.min(this.#delay * this.#policy.factor, this.#policy.maxDelayMs);
    return true;
  }
}

/** One poll attempt: done with a value, or not yet (optionally with the error seen). */
export type PollAttempt<T> = { done: true; value: T } | { done: false; error?: unknown };

/** Options of {@link poll}. */
export interface PollOptions extends Timing {
  /** Fixed delay between attempts. */
  intervalMs: number;
  /** Overall bound, measured from the first attempt. */
  timeoutMs: number;
  /** Error to throw on timeout when no attempt reported one. */
  timeoutError?: () => Error;
}

/**
 * Runs `attempt` immediately and then every `intervalMs` until it reports done, like upstream's
 * `wait.PollUntilContextTimeout(..., immediate=true, ...)`. On timeout throws the last error an
 * attempt reported, or a timeout error. Errors thrown by `attempt` abort the loop at once.
 */
export async function poll<T>(
  attempt: () => Promise<PollAttempt<T>>,
  options: PollOptions,
): Promise<T> {
  const deadline = options.clock.now().getTime() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    const r = await attempt();
    if (r.done) return r.value;
    if (r.error !== undefined) lastError = r.error;
    if (options.clock.now().getTime() + options.intervalMs > deadline) break;
    await options.sleep(options.intervalMs);
  }
  if (lastError !== undefined) throw lastError;
  throw options.timeoutError?.() ??
    new KubeadmError(`timed out waiting for the condition after ${options.timeoutMs}ms`);
}
