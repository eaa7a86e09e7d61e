// The command line reaches the process, its files and the network only through adapters: it
// calls no Deno API itself (adapters/deno/process.ts, fs/, transport.ts do).
import assert from "node:assert/strict";
import { listFiles, repoRoot } from "../support/repo.ts";

const DENO_CALL = /\bDeno\.[A-Za-z]/;

Deno.test("cli/ calls no Deno API itself", async () => {
  const offenders: string[] = [];
  const files = await listFiles(`${repoRoot}/cli`, ".ts");
  assert.ok(files.length > 10, "expected to scan the command line's modules");
  for (const file of files) {
    (await Deno.readTextFile(file)).split("\n").forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, "");
      if (/^\s*\*/.test(code)) return; // doc comment line
      if (DENO_CALL.test(code)) offenders.push(`${file.slice(repoRoot.length + 1)}:${i + 1}`);
    });
  }
  assert.deepEqual(offenders, []);
});

Deno.test("the scan catches a Deno call", () => {
  assert.ok(DENO_CALL.test("const pid = Deno.pid;"));
  assert.ok(!DENO_CALL.test("denoVersion()"));
});
