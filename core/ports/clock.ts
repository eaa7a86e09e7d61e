/**
 * The clock port: the time of day and waiting. Injected so that certificates, tokens and
 * deadlines follow the caller's time (a plan's fixed clock, a test's fake one) and tests run
 * without waiting.
 *
 * @module
 */

/** Wall clock. */
export interface Clock {
  /** The current time. */
  now(): Date;
}

/** Sleeps for the given number of milliseconds. */
export type Sleep = (ms: number) => Promise<void>;
