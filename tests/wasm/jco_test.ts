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
  const out = await new Deno.Command(`${repoRoot}/scripts/npm-tool`, {
    args: ["--set", "wasm", "jco", "wit", build.wasm],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const world = new TextDecoder().decode(out.stdout);
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
