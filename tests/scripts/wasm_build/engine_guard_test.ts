// scripts/wasm's check of the bundle against the component's engine (StarlingMonkey: no ICU):
// anything the engine lacks, or a Node or Deno API, fails the build.
import assert from "node:assert/strict";
import { engineProblems } from "../../../scripts/wasm_build/engine_guard.ts";
import { bundleModule } from "../../support/web_build.ts";

Deno.test("the component's bundle has nothing its engine cannot run", async () => {
  const out = await Deno.makeTempFile({ suffix: ".js" });
  try {
    // As scripts/wasm bundles it.
    await bundleModule("wasm/component.ts", out, { minify: true });
    assert.deepEqual(engineProblems(await Deno.readTextFile(out)), []);
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
