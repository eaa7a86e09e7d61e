// The build steps of scripts/bundle: inlining the page script and the Node/Deno guard.
import assert from "node:assert/strict";
import { inlineScript } from "../../web/inline_page.ts";
import { forbiddenReferences } from "../../web/bundle_guard.ts";
import { repoRoot } from "../support/repo.ts";

const TEMPLATE = '<p>x</p><script type="module" data-bundle></script><p>y</p>';

Deno.test("the bundle replaces the placeholder and cannot close the script element early", () => {
  const html = inlineScript(TEMPLATE, 'const s = "</script><b>";\nconsole.log(s);');
  assert.equal(
    html,
    '<p>x</p><script type="module">\nconst s = "<\\/script><b>";\nconsole.log(s);</script><p>y</p>',
  );
  assert.throws(() => inlineScript("<p>no placeholder</p>", "x"), /exactly one/);
  assert.throws(() => inlineScript(TEMPLATE + TEMPLATE, "x"), /exactly one/);
  assert.throws(() => inlineScript(TEMPLATE, 'a = "<!--"'), /<!--/);
});

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
      args: ["run", "--quiet", `--allow-read=${dir}`, "web/bundle_guard.ts", `${dir}/bad.js`],
      cwd: repoRoot,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 1);
    assert.match(new TextDecoder().decode(out.stderr), /bad\.js: node: import/);
    const script = await Deno.readTextFile(`${repoRoot}/scripts/bundle`);
    assert.match(script, /web\/bundle_guard\.ts "\$out\/kubeadm-core\.js" "\$out\/verify\.html"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
