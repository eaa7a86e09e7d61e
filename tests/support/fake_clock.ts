/**
 * A manual clock whose `sleep` advances time instantly, for retry and polling tests.
 *
 * @module
 */
import type { Clock } from "../../core/ports/clock.ts";

/** A clock plus a sleep that moves it forward and records each delay. */
export class FakeClock implements Clock {
  /** Current time in epoch milliseconds. */
  ms: number;
  /** Every sleep, in order. */
  readonly sleeps: number[] = [];

  constructor(start = Date.UTC(2025, 0, 1, 0, 0, 0)) {
    this.ms = start;
  }

  now(): Date {
    return new Date(this.ms);
  }

  /** Advances the clock by `ms` without waiting. */
  readonly sleep = (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    this.ms += ms;
    return Promise.resolve();
  };
}
