// third_party/yaml.js is the pinned yaml package's ES-module build as scripts/vendor-yaml bundles it
// (never edited by hand), and the import map sends every `yaml` import to it.
import assert from "node:assert/strict";
import { run } from "../support/commands.ts";
import { repoRoot } from "../support/repo.ts";

Deno.test("third_party/yaml.js is exactly what scripts/vendor-yaml makes of the pinned npm package", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await run([`${repoRoot}/scripts/vendor-yaml`, `${dir}/yaml.js`]);
    assert.equal(r.code, 0, r.stderr);
    const made = await Deno.readFile(`${dir}/yaml.js`);
    const committed = await Deno.readFile(`${repoRoot}/third_party/yaml.js`);
    assert.ok(
      made.length === committed.length && made.every((b, i) => b === committed[i]),
      "third_party/yaml.js differs from scripts/vendor-yaml's output: run scripts/vendor-yaml",
    );
    // The ES-module build: nothing in it loads CommonJS (or Deno's Node layer).
    const text = new TextDecoder().decode(committed);
    assert.doesNotMatch(text, /\brequire\(|process\.env|from ?"node:/);
    const version = text.match(/^\/\/ @ts-self-types="npm:yaml@([\d.]+)"$/m)?.[1];
    assert.ok(version, "the file names the npm package its types come from");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every yaml import resolves to third_party/yaml.js (deno.json and web-compat.json)", async () => {
  for (const file of ["deno.json", "web-compat.json"]) {
    const config = JSON.parse(await Deno.readTextFile(`${repoRoot}/${file}`));
    assert.equal(config.imports.yaml, "./third_party/yaml.js", file);
  }
  const YAML = await import("yaml");
  assert.deepEqual(YAML.parse("a: yes\nb: 0755\n", { version: "1.1" }), { a: true, b: 493 });
});
