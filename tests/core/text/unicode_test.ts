// The explicit Unicode tables that replace \p{…} in the core (the WebAssembly component's
// engine has no \p{…}): equal to the engine's \p{…} for every code point, and the functions
// built on them behave exactly as the regular expressions they replaced.
import assert from "node:assert/strict";
import {
  decodeRanges,
  encodeRanges,
  inCategory,
  isLetter,
  isNumber,
  isPrintable,
  singleCodePoint,
  UNICODE_CATEGORIES,
} from "../../../core/text/unicode.ts";
import * as tables from "../../../core/text/unicode_tables.ts";
import { categoryRanges } from "../../../scripts/unicode_tables.ts";
import { goQuote } from "../../../core/text/go_quote.ts";
import { listFiles, repoRoot } from "../../support/repo.ts";
import { seededRandom } from "../../../adapters/offline/random.ts";

const MAX = 0x10ffff;

Deno.test("every table holds exactly the engine's \\p{…} ranges of its category", () => {
  for (const c of UNICODE_CATEGORIES) {
    assert.deepEqual(
      [...decodeRanges(tables[c])],
      categoryRanges(c).flat(),
      `category ${c} differs from \\p{${c}}: regenerate with scripts/unicode_tables.ts`,
    );
  }
});

Deno.test("isLetter, isNumber, isPrintable and inCategory agree with \\p{…} on every code point", () => {
  const re = Object.fromEntries(
    UNICODE_CATEGORIES.map((c) => [c, new RegExp(`^\\p{${c}}$`, "u")]),
  );
  // The class go_quote.ts used before.
  const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
  const letter = /^\p{L}$/u;
  const number = /^\p{N}$/u;
  for (let cp = 0; cp <= MAX; cp++) {
    const ch = String.fromCodePoint(cp);
    if (isPrintable(cp) !== printable.test(ch)) assert.fail(`isPrintable(U+${cp.toString(16)})`);
    if (isLetter(cp) !== letter.test(ch)) assert.fail(`isLetter(U+${cp.toString(16)})`);
    if (isNumber(cp) !== number.test(ch)) assert.fail(`isNumber(U+${cp.toString(16)})`);
    // One category per step of 5, so that every table is searched for every kind of code point.
    const c = UNICODE_CATEGORIES[cp % UNICODE_CATEGORIES.length];
    if (inCategory(cp, c) !== re[c].test(ch)) assert.fail(`inCategory(U+${cp.toString(16)}, ${c})`);
  }
});

Deno.test("the range encoding round-trips and the tables are sorted and disjoint", () => {
  const ranges: [number, number][] = [[0, 0], [2, 5], [36, 36], [1000, 0x10ffff]];
  assert.deepEqual([...decodeRanges(encodeRanges(ranges))], ranges.flat());
  for (const c of UNICODE_CATEGORIES) {
    const r = decodeRanges(tables[c]);
    for (let i = 0; i + 1 < r.length; i++) assert.ok(r[i] <= r[i + 1] || i % 2 === 1);
    for (let i = 1; i + 1 < r.length; i += 2) assert.ok(r[i] + 1 < r[i + 1], `${c} merged`);
  }
});

Deno.test("singleCodePoint takes exactly one code point", () => {
  assert.equal(singleCodePoint("a"), 0x61);
  assert.equal(singleCodePoint("🚀"), 0x1f680);
  assert.equal(singleCodePoint("\ud800"), 0xd800);
  assert.equal(singleCodePoint(""), undefined);
  assert.equal(singleCodePoint("ab"), undefined);
  assert.equal(singleCodePoint("🚀a"), undefined);
});

/** Random text mixing ASCII separators, letters and numbers of many scripts, marks, surrogates. */
function randomTexts(n: number): string[] {
  const random = seededRandom("unicode equivalence");
  const pool = [..."aZ_'-. /9\t\"\\", "é", "ß", "ǅ", "日", "ı", "İ", "٣", "Ⅻ", "\u0301", "\u00ad"];
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const bytes = random.bytes(24);
    let s = "";
    for (const b of bytes.subarray(1, 1 + (bytes[0] % 23))) {
      s += b < 200
        ? pool[b % pool.length]
        : b < 230
        ? String.fromCodePoint((b * 7919 * (i + 1)) % 0x10ffff)
        : String.fromCharCode(0xd800 + (b % 0x800));
    }
    out.push(s);
  }
  return out;
}

Deno.test("goQuote gives what its \\p{…} version gave", () => {
  const oldPrintable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
  for (const s of randomTexts(5000)) {
    let expected = '"';
    for (const ch of s) {
      const cp = ch.codePointAt(0)!;
      expected += ch === '"' || ch === "\\"
        ? `\\${ch}`
        : ch === "\t"
        ? "\\t"
        : oldPrintable.test(ch)
        ? ch
        : cp < 0x80
        ? `\\x${cp.toString(16).padStart(2, "0")}`
        : cp < 0x10000
        ? `\\u${cp.toString(16).padStart(4, "0")}`
        : `\\U${cp.toString(16).padStart(8, "0")}`;
    }
    assert.equal(goQuote(s), `${expected}"`, JSON.stringify(s));
  }
});

Deno.test("the core uses no \\p{…} or \\P{…} classes", async () => {
  const found: string[] = [];
  for (const path of await listFiles(`${repoRoot}/core`, ".ts")) {
    const text = await Deno.readTextFile(path);
    for (const m of text.matchAll(/\\[pP]\{[A-Za-z_=]+\}/g)) found.push(`${path}: ${m[0]}`);
  }
  assert.ok(found.length === 0, found.join("\n"));
});
