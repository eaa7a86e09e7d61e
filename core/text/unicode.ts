/**
 * Unicode general categories (letters, marks, numbers, punctuation, symbols) as explicit code
 * point ranges: what Go's `unicode.IsLetter`, `IsNumber`, `IsPrint`... classify by, for the few
 * places kubeadm's output depends on them (Go's `%q` quoting, KYAML keys).
 *
 * Not `\p{…}` regular expressions: the JavaScript engine of the WebAssembly component
 * (StarlingMonkey) is built without ICU and rejects them, so the core must not use them. The
 * tables (`./unicode_tables.ts`) are generated from the `\p{…}` classes of Deno's engine by
 * `scripts/unicode_tables.ts`, and the tests check every code point against them.
 *
 * @module
 */
import * as tables from "./unicode_tables.ts";

/** The general categories the tables hold. */
export const UNICODE_CATEGORIES = ["L", "M", "N", "P", "S"] as const;
/** One of {@link UNICODE_CATEGORIES}. */
export type UnicodeCategory = typeof UNICODE_CATEGORIES[number];

/**
 * Encodes sorted, disjoint ranges `[first, last]` compactly: for each range the gap since the
 * previous range's end and its length minus one, base 36, comma-separated.
 */
export function encodeRanges(ranges: readonly (readonly [number, number])[]): string {
  const parts: string[] = [];
  let prev = -1;
  for (const [first, last] of ranges) {
    parts.push((first - prev - 1).toString(36), (last - first).toString(36));
    prev = last;
  }
  return parts.join(",");
}

/** Decodes {@link encodeRanges}: `[first0, last0, first1, last1, …]`. */
export function decodeRanges(text: string): Uint32Array {
  const parts = text.split(",");
  const out = new Uint32Array(parts.length);
  let prev = -1;
  for (let i = 0; i < parts.length; i += 2) {
    const first = prev + 1 + parseInt(parts[i], 36);
    const last = first + parseInt(parts[i + 1], 36);
    out[i] = first;
    out[i + 1] = last;
    prev = last;
  }
  return out;
}

const decoded = new Map<UnicodeCategory, Uint32Array>();

function rangesOf(category: UnicodeCategory): Uint32Array {
  let r = decoded.get(category);
  if (!r) decoded.set(category, r = decodeRanges(tables[category]));
  return r;
}

/** Whether code point `cp` is in general category `category` (all its subcategories). */
export function inCategory(cp: number, category: UnicodeCategory): boolean {
  const r = rangesOf(category);
  let lo = 0;
  let hi = r.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < r[2 * mid]) hi = mid - 1;
    else if (cp > r[2 * mid + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** A letter (L): Go's `unicode.IsLetter`. */
export function isLetter(cp: number): boolean {
  return inCategory(cp, "L");
}

/** A number (N): Go's `unicode.IsNumber`. */
export function isNumber(cp: number): boolean {
  return inCategory(cp, "N");
}

/**
 * Printable as Go's `unicode.IsPrint` defines it: a letter, mark, number, punctuation or symbol,
 * or the ASCII space.
 */
export function isPrintable(cp: number): boolean {
  return cp === 0x20 || UNICODE_CATEGORIES.some((c) => inCategory(cp, c));
}

/** The code point of `ch` when it is exactly one code point, else `undefined`. */
export function singleCodePoint(ch: string): number | undefined {
  const cp = ch.codePointAt(0);
  if (cp === undefined) return undefined;
  return ch.length === (cp > 0xffff ? 2 : 1) ? cp : undefined;
}
