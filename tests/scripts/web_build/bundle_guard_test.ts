// scripts/bundle's guard against Node and Deno APIs in the artefacts
// (scripts/web_build/bundle_guard.ts).
import assert from "node:assert/strict";
import { forbiddenReferences } from "../../../scripts/web_build/bundle_guard.ts";
import { repoRoot } from "../../support/repo.ts";

Deno.test("the guard finds Node and Deno references, not look-alikes", () => {
  assert.deepEqual(forbiddenReferences('import{readFile}from"node:fs";'), [
    'node: import: from"node:fs',
    'node: module specifier: "node:fs"',
  ]);
  assert.deepEqual(forbiddenReferences('await import("node:crypto")').length, 2);
  assert.deepEqual(forbiddenReferences("Deno.readTextFile(p)"), ["Deno API: Deno.readTextFile"]);
  assert.deepEqual(forbiddenReferences("process.env.HOME"), ["Node process global: process.env"]);
  assert.deepEqual(forbiddenReferences('require("fs")'), ['CommonJS require: require("f']);
  // yaml's minified code has `{node:null}`; a word that merely contains "Deno" is fine.
  assert.deepEqual(forbiddenReferences("c={anchor:null,node:null};var Denominator=1"), []);
});

Deno.test("scripts/bundle fails when an artefact references a Node API", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/bad.js`, 'import fs from "node:fs"; export default fs;');
    const out = await new Deno.Command(`${repoRoot}/scripts/deno`, {
      args: [
        "run",
        "--quiet",
        `--allow-read=${dir}`,
        "scripts/web_build/bundle_guard.ts",
        `${dir}/bad.js`,
      ],
      cwd: repoRoot,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 1);
    assert.match(new TextDecoder().decode(out.stderr), /bad\.js: node: import/);
    const script = await Deno.readTextFile(`${repoRoot}/scripts/bundle`);
    const guard = script.slice(script.indexOf("scripts/web_build/bundle_guard.ts"));
    for (const artefact of ["kubeadm-core.js", "kubeadm-verify.js", "verify.html"]) {
      assert.ok(guard.split("\n").slice(0, 2).join(" ").includes(`"$out/${artefact}"`), artefact);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
