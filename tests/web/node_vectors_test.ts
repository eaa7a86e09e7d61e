// Upstream's discovery vectors under Node (v20+), against the built dist/kubeadm-core.js:
// proves the bundle runs outside Deno with web APIs only.
import assert from "node:assert/strict";
import { repoRoot } from "../support/repo.ts";
import { buildWeb } from "../support/web_build.ts";
import { vectors } from "../support/vectors.ts";

const RUNNER = `
import * as api from "./kubeadm-core.js";
import { runVectors } from "./vectors.mjs";
const results = await runVectors(api);
process.stdout.write(JSON.stringify({ node: process.version, results }));
`;

Deno.test("the bundle passes every vector under Node", async () => {
  const build = await buildWeb();
  try {
    const core = await Deno.readTextFile(build.core);
    assert.doesNotMatch(core, /["'`]node:[a-z]/, "no node: imports in the bundle");
    assert.doesNotMatch(core, /\bDeno\.[A-Za-z]/, "no Deno APIs in the bundle");
    await Deno.writeTextFile(`${build.dir}/runner.mjs`, RUNNER);
    const out = await new Deno.Command("node", {
      args: ["runner.mjs"],
      cwd: build.dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.ok(out.success, `node failed: ${stderr}`);
    const { node, results } = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      node: string;
      results: { name: string; ok: boolean; error?: string }[];
    };
    assert.match(node, /^v\d+\./);
    assert.deepEqual(results.map((r) => r.name), vectors.map((v) => v.name), "every vector ran");
    const failures = results.filter((r) => !r.ok);
    assert.deepEqual(failures, [], `failures under Node ${node}`);
  } finally {
    await build.cleanup();
  }
});

const EDGE_RUNNER = `
import handler from "./edge_example.js";
import { computeDetachedSignature } from "./kubeadm-core.js";
import { DISCOVERY_CA_HASH, EXPECTED_KUBECONFIG } from "./data.mjs";
const data = {
  kubeconfig: EXPECTED_KUBECONFIG,
  "jws-kubeconfig-123456": await computeDetachedSignature(EXPECTED_KUBECONFIG, "123456", "abcdef1234567890"),
};
const post = (body) => handler.fetch(new Request("https://edge.example/verify", {
  method: "POST",
  body: JSON.stringify(body),
}));
const out = [];
for (const hash of [DISCOVERY_CA_HASH, "sha256:" + "0".repeat(64)]) {
  const res = await post({ clusterInfo: { kind: "ConfigMap", data }, token: "123456.abcdef1234567890", caCertHashes: [hash] });
  out.push([res.status, (await res.json()).verdict]);
}
out.push([(await handler.fetch(new Request("https://edge.example/"))).status]);
process.stdout.write(JSON.stringify(out));
`;

Deno.test("the edge-function example of web/README.md works under Node", async () => {
  const build = await buildWeb();
  try {
    await Deno.copyFile(`${repoRoot}/web/edge_example.js`, `${build.dir}/edge_example.js`);
    const data = await new Deno.Command(`${repoRoot}/scripts/deno`, {
      cwd: repoRoot,
      args: [
        "bundle",
        "--quiet",
        "--platform",
        "browser",
        "--format",
        "esm",
        "-o",
        `${build.dir}/data.mjs`,
        "tests/support/upstream_discovery_data.ts",
      ],
    }).output();
    assert.ok(data.success, "bundling the test data");
    await Deno.writeTextFile(`${build.dir}/edge.mjs`, EDGE_RUNNER);
    const out = await new Deno.Command("node", {
      args: ["edge.mjs"],
      cwd: build.dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), [
      [200, "verified"],
      [422, "rejected"],
      [404],
    ]);
  } finally {
    await build.cleanup();
  }
});
