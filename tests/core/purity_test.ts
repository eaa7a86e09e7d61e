// The core (and the printers, web-only like it) must run unchanged in Deno, Node, browsers and
// edge functions: no host APIs.
import assert from "node:assert/strict";
import { listFiles, repoRoot } from "../support/repo.ts";

const FORBIDDEN: [RegExp, string][] = [
  [/\bDeno\./, "Deno namespace"],
  [/from\s+["']node:/, "node: import"],
  [/import\(\s*["']node:/, "node: dynamic import"],
  [/\bfetch\s*\(/, "fetch()"],
  [/\bprocess\.(env|argv|exit|cwd)/, "process global"],
  [/\brequire\s*\(/, "require()"],
  [/\bBuffer\.from\b/, "Buffer"],
  [/from\s+["'](https?|jsr):/, "remote import"],
];

Deno.test("core/ and printers/ import no Deno.*, node:* or network APIs", async () => {
  const offenders: string[] = [];
  const files = [
    ...await listFiles(`${repoRoot}/core`, ".ts"),
    ...await listFiles(`${repoRoot}/printers`, ".ts"),
  ];
  assert.ok(files.length > 10, "expected to scan the core's modules");
  for (const file of files) {
    const text = await Deno.readTextFile(file);
    text.split("\n").forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, "");
      if (/^\s*\*/.test(code)) return; // doc comment line
      for (const [re, what] of FORBIDDEN) {
        if (re.test(code)) offenders.push(`${file.slice(repoRoot.length + 1)}:${i + 1}: ${what}`);
      }
    });
  }
  assert.deepEqual(offenders, []);
});

Deno.test("the purity scan catches a violation", () => {
  const bad = 'import { readFile } from "node:fs"; Deno.readTextFile("x");';
  assert.ok(FORBIDDEN.some(([re]) => re.test(bad)));
});

Deno.test("web-compat.json uses the same dependency pins as deno.json", async () => {
  const main = JSON.parse(await Deno.readTextFile(`${repoRoot}/deno.json`));
  const web = JSON.parse(await Deno.readTextFile(`${repoRoot}/web-compat.json`));
  assert.deepEqual(web.imports, main.imports);
  assert.ok(!web.compilerOptions.lib.includes("deno.ns"));
});
