/**
 * The clock port on the web platform (`Date`, `setTimeout`): what every face uses for real
 * time (the CLI, the library's plans unless given a clock).
 *
 * @module
 */
import type { Clock, Sleep } from "../../core/ports/clock.ts";

/** The web platform's clock. */
export const systemClock: Clock = { now: () => new Date() };

/** The web platform's sleep (`setTimeout`). */
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
