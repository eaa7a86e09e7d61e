/**
 * Build check of `scripts/wasm`: the component's bundle must fit its engine (StarlingMonkey, a
 * SpiderMonkey built without ICU). Fails on any `\p{…}`/`\P{…}` (a SyntaxError there, failing
 * the whole module; the core has none, `core/text/unicode.ts`), on `Intl` and
 * `String.prototype.normalize` (absent), and on Node or Deno APIs (as the web bundles' guard,
 * `scripts/web_build/bundle_guard.ts`).
 *
 * Usage: `deno run --allow-read scripts/wasm_build/engine_guard.ts <bundle.js>` (exit status 1
 * on a finding).
 *
 * @module
 */
import { forbiddenReferences } from "../web_build/bundle_guard.ts";

const UNSUPPORTED: [RegExp, string][] = [
  [/\\[pP]\{[A-Za-z_=]*\}/g, "Unicode property escape (no ICU)"],
  [/\bIntl\.[A-Za-z]+/g, "Intl (no ICU)"],
  [/\.normalize\(/g, "String.prototype.normalize (no ICU)"],
];

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
  const problems = engineProblems(await Deno.readTextFile(file));
  for (const p of problems.slice(0, 20)) console.error(`${file}: ${p}`);
  if (problems.length > 0) {
    console.error("scripts/wasm: the component's engine cannot run the constructs above");
    Deno.exit(1);
  }
}
