/**
 * The WebAssembly component's benchmark behind `scripts/bench-wasm`: its size, how long it
 * takes to load and instantiate, and the time per call of cluster-info verification and of an
 * ECDSA control-plane plan, in the component on two hosts (Node through jco; Wasmtime from Go)
 * beside the same calls of the same interface (`wasm/api.ts`) in Deno, measured in the same
 * run. Wall time, single-threaded calls, after one warm-up call (reported apart as the first).
 *
 * Usage: scripts/deno run -A scripts/bench_wasm.ts [--runs N] [--plan-runs N]
 *
 * @module
 */
import { scriptArgs } from "./script_args.ts";
import {
  assertSameOutcomes,
  type CallOutcome,
  componentBuild,
  runDeno,
  runGoHost,
  runJco,
  type WitCall,
} from "../tests/support/wasm.ts";
import { CONTROL_PLANE_REQUEST, planInputs, witHost } from "../tests/support/wasm_cases.ts";
import * as api from "../wasm/api.ts";
import { withBootstrapSignatures } from "../mod.ts";

const args = scriptArgs("bench-wasm", {
  runs: { type: "string", default: "20" },
  "plan-runs": { type: "string", default: "4" },
});
const RUNS = args.integer("runs");
const PLAN_RUNS = args.integer("plan-runs");

const build = await componentBuild();
const size = (await Deno.stat(build.wasm)).size;
const gz = await new Deno.Command("sh", {
  args: ["-c", `gzip -9 -c '${build.wasm}' | wc -c`],
  stdout: "piped",
}).output();
const gzSize = Number(new TextDecoder().decode(gz.stdout).trim());

// Inputs: an ECDSA plan without uploaded certificates, and its own signed cluster-info.
const planRequest = {
  ...CONTROL_PLANE_REQUEST,
  uploadCerts: false,
  inputs: planInputs("bench", witHost("cp1", "192.0.2.10")),
};
const cp = await api.planControlPlane(planRequest);
const clusterInfo = (await withBootstrapSignatures(cp.objects.map((o) => JSON.parse(o))))
  .find((o) => o.metadata?.name === "cluster-info");
const verifyRequest = {
  clusterInfo: JSON.stringify(clusterInfo),
  token: cp.token,
  caCertHashes: [cp.caCertHash],
  unsafeSkipCaVerification: false,
  now: planRequest.inputs.now,
};
if (!(await api.checkClusterInfo(verifyRequest)).verified) throw new Error("bench input");

const calls: (WitCall & { label: string })[] = [
  { label: "parse-token", fn: "parse-token", args: ["abcdef.0123456789abcdef"], repeat: RUNS },
  { label: "verify", fn: "check-cluster-info", args: [verifyRequest], repeat: RUNS },
  { label: "plan/ecdsa", fn: "plan-control-plane", args: [planRequest], repeat: PLAN_RUNS },
  {
    label: "plan/worker",
    fn: "plan-worker",
    args: [{
      cluster: { tag: "plan", val: cp },
      unsafeSkipCaVerification: false,
      inputs: planInputs("bench-w1", witHost("w1", "192.0.2.21")),
    }],
    repeat: PLAN_RUNS,
  },
];

const deno = await runDeno(calls);
const jco = await runJco(build, calls);
const goCold = await runGoHost(build, calls.slice(0, 1), { cache: false });
const go = await runGoHost(build, calls);

for (const run of [jco, go]) {
  assertSameOutcomes(calls.map((c) => `${run.runtime} ${c.label}`), deno, run.outcomes);
}

const f = (x: number | undefined) => x === undefined ? "-" : x.toFixed(2);
const pad = (s: string, n: number) => s.padEnd(n);
const warm = (o: CallOutcome) => o.repeatMs ?? o.ms;

console.log(
  `component ${build.wasm}\n  size ${(size / 1e6).toFixed(1)} MB, gzip -9 ${
    (gzSize / 1e6).toFixed(1)
  } MB${build.built ? `; built in ${build.buildSeconds!.toFixed(0)} s (scripts/wasm + jco)` : ""}`,
);
console.log(`\nload (ms)`);
console.log(
  `  Node ${jco.runtime.replace("node ", "")} + jco: import (compile + instantiate) ${
    f(jco.loadMs)
  }`,
);
console.log(
  `  ${go.runtime} (Go): compile ${f(goCold.loadMs - goCold.instantiateMs!)}, ` +
    `deserialize the cached compilation ${f(go.loadMs - go.instantiateMs!)}, instantiate ${
      f(go.instantiateMs)
    }`,
);
console.log(
  `\nwall ms per call (warm mean of ${RUNS} / ${PLAN_RUNS} plans; first call in brackets)`,
);
console.log(
  `${pad("call", 14)}${pad("Deno", 10)}${pad("jco/Node", 22)}${pad("jco/Deno", 10)}${
    pad("Wasmtime", 22)
  }Wasmtime/Deno`,
);
calls.forEach((c, i) => {
  const d = warm(deno[i]);
  const j = warm(jco.outcomes[i]);
  const w = warm(go.outcomes[i]);
  console.log(
    `${pad(c.label, 14)}${pad(f(d), 10)}${pad(`${f(j)} [${f(jco.outcomes[i].ms)}]`, 22)}${
      pad((j / d).toFixed(1), 10)
    }${pad(`${f(w)} [${f(go.outcomes[i].ms)}]`, 22)}${(w / d).toFixed(1)}`,
  );
});
console.log(
  "\nDeno: wasm/api.ts on the sources (the pure-JavaScript crypto port, as in the component). " +
    "Every host's outputs equal Deno's (checked).",
);
