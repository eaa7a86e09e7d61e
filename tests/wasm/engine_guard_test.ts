// scripts/wasm's fit of the bundle to the component's engine (StarlingMonkey: no ICU): the
// one \p{…} of a dependency (asn1js's /\p{Cs}/u) is rewritten to an equivalent range, and
// anything else the engine lacks fails the build.
import assert from "node:assert/strict";
import { ENGINE_REWRITES, engineProblems, rewriteForEngine } from "../../wasm/engine_guard.ts";
import { bundleModule } from "../support/web_build.ts";

Deno.test("/[\\uD800-\\uDFFF]/u matches exactly what /\\p{Cs}/u matches", () => {
  const literal = (text: string) => {
    const m = /^\/(.*)\/([a-z]*)$/.exec(text)!;
    return new RegExp(m[1], m[2]);
  };
  const [[from, to]] = ENGINE_REWRITES;
  const cs = literal(from);
  const range = literal(to);
  assert.equal(cs.source, "\\p{Cs}");
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    const s = String.fromCodePoint(cp);
    if (cs.test(s) !== range.test(s)) assert.fail(`U+${cp.toString(16)}`);
  }
  // In context, as asn1js tests whole strings: lone halves match, a proper pair does not.
  for (const s of ["a\ud800b", "\udc00", "x\ud83d", "\ud83d\ude00", "plain", "\ud800\ud800"]) {
    assert.equal(range.test(s), cs.test(s), JSON.stringify(s));
  }
});

Deno.test("the component's bundle needs the rewrite, and nothing else is left after it", async () => {
  const out = await Deno.makeTempFile({ suffix: ".js" });
  try {
    // As scripts/wasm bundles it.
    await bundleModule("wasm/component.ts", out, { minify: true });
    const bundle = await Deno.readTextFile(out);
    assert.deepEqual(engineProblems(bundle), [
      "Unicode property escape (no ICU): \\p{Cs}",
    ]);
    assert.deepEqual(engineProblems(rewriteForEngine(bundle)), []);
  } finally {
    await Deno.remove(out);
  }
});

Deno.test("constructs the engine lacks, and Node or Deno APIs, are findings", () => {
  const found = engineProblems(
    'const a = /[\\p{L}\\P{N}]/u; Intl.DateTimeFormat(); s.normalize("NFC"); ' +
      'import x from "node:fs"; Deno.readFile("x");',
  );
  for (
    const want of [
      "Unicode property escape (no ICU): \\p{L}",
      "Unicode property escape (no ICU): \\P{N}",
      "Intl (no ICU): Intl.DateTimeFormat",
      "String.prototype.normalize (no ICU): .normalize(",
      "Deno API: Deno.readFile",
    ]
  ) assert.ok(found.includes(want), `${want} in ${JSON.stringify(found)}`);
  assert.ok(found.some((f) => f.startsWith("node: import")), JSON.stringify(found));
});
