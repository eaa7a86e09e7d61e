/**
 * Build check of `scripts/bundle`: a browser/edge artefact must not reference Node or Deno
 * APIs. `deno bundle --platform browser` leaves `node:` imports external instead of failing,
 * so this scan is the guard.
 *
 * Usage: `deno run --allow-read scripts/web_build/bundle_guard.ts <file>...` (exit status 1 on
 * a finding).
 *
 * @module
 */

const FORBIDDEN: [RegExp, string][] = [
  [/\b(?:from|import|require)\s*\(?\s*["'`]node:[\w/]+/g, "node: import"],
  [/["'`]node:[a-z_]+(?:\/[\w]+)*["'`]/g, "node: module specifier"],
  [/\bDeno\.[A-Za-z]+/g, "Deno API"],
  [/\bprocess\.(?:env|argv|exit|cwd)\b/g, "Node process global"],
  [/\brequire\(\s*["'`][\w@]/g, "CommonJS require"],
];

/** Every forbidden reference in `text`, as `<what>: <match>`. */
export function forbiddenReferences(text: string): string[] {
  const found: string[] = [];
  for (const [re, what] of FORBIDDEN) {
    for (const m of text.matchAll(re)) found.push(`${what}: ${m[0]}`);
  }
  return [...new Set(found)];
}

if (import.meta.main) {
  let bad = false;
  for (const file of Deno.args) {
    const found = forbiddenReferences(await Deno.readTextFile(file));
    for (const f of found.slice(0, 10)) console.error(`${file}: ${f}`);
    if (found.length > 0) bad = true;
  }
  if (bad) {
    console.error("scripts/bundle: the artefacts above reference Node or Deno APIs");
    Deno.exit(1);
  }
}
