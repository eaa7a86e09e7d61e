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
  [/\bcrypto\.subtle\b/, "crypto.subtle (the crypto port's)"],
];

Deno.test("core/ and printers/ use no Deno.*, node:*, network or WebCrypto API", async () => {
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

/** The relative module specifiers of a module's imports and re-exports, static and dynamic. */
function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (
    const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g)
  ) {
    found.push(m[1]);
  }
  return found;
}

Deno.test("core/ imports only core/ modules and packages: no adapter, library or CLI module", async () => {
  const offenders: string[] = [];
  const files = await listFiles(`${repoRoot}/core`, ".ts");
  for (const file of files) {
    for (const spec of relativeImports(await Deno.readTextFile(file))) {
      const target = new URL(spec, `file://${file}`).pathname;
      if (!target.startsWith(`${repoRoot}/core/`)) {
        offenders.push(`${file.slice(repoRoot.length + 1)}: ${spec}`);
      }
    }
  }
  assert.deepEqual(offenders, []);
});

Deno.test("the layering scan finds static, dynamic and re-exported imports", () => {
  const text = [
    'import { a } from "../../adapters/web/clock.ts";',
    'export { b } from "./b.ts";',
    'const c = await import("../c.ts");',
    'import "./d.ts";',
    'import { e } from "yaml";',
  ].join("\n");
  assert.deepEqual(relativeImports(text), [
    "../../adapters/web/clock.ts",
    "./b.ts",
    "../c.ts",
    "./d.ts",
  ]);
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
