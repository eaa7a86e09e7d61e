/**
 * Go `time.Duration` text: parsing (`time.ParseDuration`) and formatting (`Duration.String`).
 *
 * kubeadm's config API stores every duration as Go prints it (`24h0m0s`, `4m0s`, `500ms`,
 * `0s`). Internally values are exact nanosecond BigInts; the number-based helpers use
 * milliseconds, which is what the rest of the core works with.
 *
 * @module
 */
import { ValueError } from "../errors.ts";
import { BoundedMemo } from "./bounded_memo.ts";

const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  "\u00b5s": 1_000n, // U+00B5 micro sign
  "\u03bcs": 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_NS = (1n << 63n) - 1n;

/** A duration text that Go would reject; the message is Go's. */
class DurationSyntaxError extends ValueError {}

/** Parses a Go duration (`1h30m`, `-1.5s`, `0`) to exact nanoseconds. */
export function parseDurationNs(text: string): bigint {
  return parsedDurations.get(text) ?? parsedDurations.set(text, parseDurationText(text));
}

/** Durations already parsed (a run reads the same few, e.g. each certificate's validity). */
const parsedDurations = new BoundedMemo<bigint>(256);

function parseDurationText(text: string): bigint {
  const quoted = JSON.stringify(text);
  let s = text;
  let negative = false;
  if (s.startsWith("-") || s.startsWith("+")) {
    negative = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") throw new DurationSyntaxError(`time: invalid duration ${quoted}`);
  let total = 0n;
  while (s !== "") {
    const num = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const intPart = num[1];
    const fracPart = num[2];
    if (intPart === "" && (fracPart === undefined || fracPart === "")) {
      throw new DurationSyntaxError(`time: invalid duration ${quoted}`);
    }
    s = s.slice(num[0].length);
    const unitMatch = /^[^\d.]+/.exec(s);
    if (!unitMatch) throw new DurationSyntaxError(`time: missing unit in duration ${quoted}`);
    const unitText = unitMatch[0];
    const unit = UNIT_NS[unitText];
    if (unit === undefined) {
      throw new DurationSyntaxError(
        `time: unknown unit ${JSON.stringify(unitText)} in duration ${quoted}`,
      );
    }
    s = s.slice(unitText.length);
    let value = BigInt(intPart || "0") * unit;
    if (fracPart) {
      // Truncate toward zero like Go does.
      const scale = 10n ** BigInt(fracPart.length);
      value += (BigInt(fracPart) * unit) / scale;
    }
    total += value;
    if (total > MAX_NS) throw new DurationSyntaxError(`time: invalid duration ${quoted}`);
  }
  return negative ? -total : total;
}

/** Parses a Go duration to milliseconds (fractional for sub-millisecond parts). */
export function parseDuration(text: string): number {
  const ns = parseDurationNs(text);
  return Number(ns / 1_000_000n) + Number(ns % 1_000_000n) / 1e6;
}

/** Whether `text` is a valid Go duration. */
export function isDuration(text: string): boolean {
  try {
    parseDurationNs(text);
    return true;
  } catch {
    return false;
  }
}

function fraction(value: bigint, digits: number): string {
  // value < 10^digits; render as ".xxx" without trailing zeros, or "" when zero.
  if (value === 0n) return "";
  const s = value.toString().padStart(digits, "0").replace(/0+$/, "");
  return `.${s}`;
}

/** Formats nanoseconds exactly like Go's `Duration.String()`. */
export function formatDurationNs(ns: bigint): string {
  if (ns === 0n) return "0s";
  const sign = ns < 0n ? "-" : "";
  const u = ns < 0n ? -ns : ns;
  if (u < 1_000_000_000n) {
    if (u < 1_000n) return `${sign}${u}ns`;
    if (u < 1_000_000n) return `${sign}${u / 1_000n}${fraction(u % 1_000n, 3)}\u00b5s`;
    return `${sign}${u / 1_000_000n}${fraction(u % 1_000_000n, 6)}ms`;
  }
  const secs = u / 1_000_000_000n;
  const frac = fraction(u % 1_000_000_000n, 9);
  const h = secs / 3600n;
  const m = (secs % 3600n) / 60n;
  const sec = secs % 60n;
  let out = `${sec}${frac}s`;
  if (secs >= 60n) out = `${m}m${out}`;
  if (secs >= 3600n) out = `${h}h${out}`;
  return sign + out;
}

/** Formats milliseconds as a Go duration (`240000` → `4m0s`). */
export function formatDuration(ms: number): string {
  const whole = Math.trunc(ms);
  const ns = BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6));
  return formatDurationNs(ns);
}

/** Re-renders a valid Go duration in canonical form (`1h30m` → `1h30m0s`). */
export function normalizeDuration(text: string): string {
  return formatDurationNs(parseDurationNs(text));
}
