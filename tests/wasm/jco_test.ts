// The component itself (what scripts/wasm builds), transpiled by jco and run under Node: it
// imports nothing, exports the WIT interface, and every call of every function gives the
// bytes wasm/api.ts gives in Deno (which tests/wasm/api_test.ts holds to the library).
import assert from "node:assert/strict";
import { repoRoot } from "../support/repo.ts";
import {
  assertSameOutcomes,
  type ComponentBuild,
  componentBuild,
  runDeno,
  runJco,
  WIT_INTERFACE,
} from "../support/wasm.ts";
import { componentCases } from "../support/wasm_cases.ts";

let build: ComponentBuild;

Deno.test("the component imports nothing and exports kubeadm:core/api", async () => {
  build = await componentBuild();
  const world = await jcoWit(build.wasm);
  const items = world.split("\n").map((l) => l.trim()).filter((l) => /^(import|export) /.test(l));
  assert.deepEqual(items, [`export ${WIT_INTERFACE};`]);
});

Deno.test("under Node (jco), every WIT call gives the Deno reference's bytes", async () => {
  const cases = await componentCases();
  const calls = cases.map((c) => c.call);
  const reference = await runDeno(calls);
  const run = await runJco(build, calls);
  assertSameOutcomes(cases.map((c) => c.name), reference, run.outcomes);
});

/**
 * `jco wit` of the component. A run that fails without saying why (killed by a signal, or
 * nothing on stderr: once seen on CI) is reported and tried once more; a run that reports an
 * error (jco prints its errors on stderr) fails at once, with its exit code and both streams.
 */
async function jcoWit(wasm: string): Promise<string> {
  for (let attempt = 1;; attempt++) {
    const out = await new Deno.Command(`${repoRoot}/scripts/npm-tool`, {
      args: ["--set", "wasm", "jco", "wit", wasm],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    if (out.success) return text(out.stdout);
    const report = `jco wit (attempt ${attempt}): exit code ${out.code}, signal ${out.signal}\n` +
      `stdout: ${text(out.stdout)}\nstderr: ${text(out.stderr)}`;
    const unexplained = out.signal !== null || out.stderr.length === 0;
    if (!unexplained || attempt === 2) throw new Error(report);
    console.error(report);
  }
}
