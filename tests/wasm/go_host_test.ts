// The component on Wasmtime from Go (tests/wasm/gohost, built by scripts/wasm-go-host over
// wasmtime-go's static libwasmtime.a and its component-model C API): a host that is not
// JavaScript, knows the interface only through the component's types, and must get the bytes
// wasm/api.ts gives in Deno for every call. The compiled component is cached by its hash.
import assert from "node:assert/strict";
import {
  assertSameOutcomes,
  type ComponentBuild,
  componentBuild,
  runDeno,
  runGoHost,
} from "../support/wasm.ts";
import { componentCases } from "../support/wasm_cases.ts";

let build: ComponentBuild;

Deno.test("on Wasmtime from Go, every WIT call gives the Deno reference's bytes", async () => {
  build = await componentBuild();
  const cases = await componentCases();
  const calls = cases.map((c) => c.call);
  const reference = await runDeno(calls);
  const run = await runGoHost(build, calls);
  assert.match(run.runtime, /^wasmtime 39\./);
  assertSameOutcomes(cases.map((c) => c.name), reference, run.outcomes);
});

Deno.test("the Go host reuses the compiled component and refuses malformed arguments", async () => {
  const token = { fn: "parse-token", args: ["abcdef.0123456789abcdef"] };
  const run = await runGoHost(build, [token]);
  assert.equal(run.cached, true, "compiled once, then deserialized");
  assert.equal(run.outcomes[0].result, (await runDeno([token]))[0].result);
  // A value of the wrong WIT type never reaches the component.
  await assert.rejects(
    () => runGoHost(build, [{ fn: "parse-token", args: [42] }]),
    /arg 0: expected a string, got json.Number/,
  );
  await assert.rejects(
    () => runGoHost(build, [{ fn: "no-such-function", args: [] }]),
    /exports no function kubeadm:core\/api@0.1.0#no-such-function/,
  );
});
