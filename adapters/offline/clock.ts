/**
 * Virtual time for runs that never wait on a real server (the library's plans): sleeping moves
 * the clock forward instead of waiting, so a retry loop runs to its deadline at once.
 *
 * @module
 */
import type { Clock, Sleep } from "../../core/ports/clock.ts";

/** A clock that starts at `base`'s time and a sleep that advances it without waiting. */
export function virtualTime(base: Clock): { clock: Clock; sleep: Sleep } {
  let slept = 0;
  return {
    clock: { now: () => new Date(base.now().getTime() + slept) },
    sleep: (ms) => {
      slept += ms;
      return Promise.resolve();
    },
  };
}
