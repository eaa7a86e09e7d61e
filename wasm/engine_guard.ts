/**
 * Build step of `scripts/wasm`: makes the component's bundle fit its engine (StarlingMonkey, a
 * SpiderMonkey built without ICU) and refuses what it cannot run.
 *
 * - Rewrites the known `\p{…}` regular expressions of dependencies into explicit ranges
 *   (asn1js's lone-surrogate check `/\p{Cs}/u` is `/[\uD800-\uDFFF]/u`: general category Cs is
 *   exactly the surrogate code points). The core has none of its own (`core/text/unicode.ts`).
 * - Fails on any other `\p{…}`/`\P{…}` (a SyntaxError there, failing the whole module), on
 *   `Intl` and `String.prototype.normalize` (absent), and on Node or Deno APIs (as the web
 *   bundles' guard, `web/bundle_guard.ts`).
 *
 * Usage: `deno run --allow-read --allow-write wasm/engine_guard.ts <bundle.js>` (rewrites it in
 * place; exit status 1 on a finding).
 *
 * @module
 */
import { forbiddenReferences } from "../web/bundle_guard.ts";

/** Exact rewrites of dependency code: `[what, replacement]`. */
export const ENGINE_REWRITES: readonly (readonly [string, string])[] = [
  ["/\\p{Cs}/u", "/[\\uD800-\\uDFFF]/u"],
];

const UNSUPPORTED: [RegExp, string][] = [
  [/\\[pP]\{[A-Za-z_=]*\}/g, "Unicode property escape (no ICU)"],
  [/\bIntl\.[A-Za-z]+/g, "Intl (no ICU)"],
  [/\.normalize\(/g, "String.prototype.normalize (no ICU)"],
];

/** The bundle with {@link ENGINE_REWRITES} applied. */
export function rewriteForEngine(text: string): string {
  let out = text;
  for (const [from, to] of ENGINE_REWRITES) out = out.replaceAll(from, to);
  return out;
}

/** Everything in `text` the component's engine cannot run, as `<what>: <match>`. */
export function engineProblems(text: string): string[] {
  const found: string[] = [];
  for (const [re, what] of UNSUPPORTED) {
    for (const m of text.matchAll(re)) found.push(`${what}: ${m[0]}`);
  }
  return [...new Set([...found, ...forbiddenReferences(text)])];
}

if (import.meta.main) {
  const [file] = Deno.args;
  const text = rewriteForEngine(await Deno.readTextFile(file));
  const problems = engineProblems(text);
  for (const p of problems.slice(0, 20)) console.error(`${file}: ${p}`);
  if (problems.length > 0) {
    console.error("scripts/wasm: the component's engine cannot run the constructs above");
    Deno.exit(1);
  }
  await Deno.writeTextFile(file, text);
}
