// The same seeded plan, byte for byte, in every runtime the library promises: the sources in
// Deno, dist/kubeadm-core.js in Deno, Node, Bun and headless Chromium, and the example
// Worker (web/cloud_init_worker.js) served by Cloudflare's workerd over loopback.
import assert from "node:assert/strict";
import * as lib from "../../web/core_entry.ts";
import { repoRoot } from "../support/repo.ts";
import { Chromium } from "../support/chromium.ts";
import { buildWeb, serveBuild, type WebBuild } from "../support/web_build.ts";
import { runPlanScenario, SCENARIO_WORKER_REQUEST } from "../support/plan_scenario.ts";
import { startWorkerd } from "../support/workerd.ts";

const RUNNER = `
import * as lib from "./kubeadm-core.js";
import { runPlanScenario } from "./plan_scenario.mjs";
process.stdout.write(await runPlanScenario(lib));
`;

/** Where two scenario outputs first differ, for a readable failure. */
function firstDifference(a: string, b: string): string {
  if (a === b) return "none";
  const [x, y] = [JSON.parse(a), JSON.parse(b)];
  for (const part of Object.keys(x)) {
    for (const f of x[part].files ?? []) {
      const other = (y[part]?.files ?? []).find((g: { path: string }) => g.path === f.path);
      if (other?.content !== f.content || other?.mode !== f.mode) return `${part}: ${f.path}`;
    }
    for (const key of Object.keys(x[part])) {
      if (JSON.stringify(x[part][key]) !== JSON.stringify(y[part]?.[key])) return `${part}.${key}`;
    }
  }
  return "somewhere else";
}

function assertSame(actual: string, expected: string, where: string) {
  assert.ok(
    actual === expected,
    `${where}: the plan differs from Deno's (first difference: ${
      firstDifference(expected, actual)
    })`,
  );
}

async function runTool(cmd: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.ok(out.success, `${cmd} failed: ${stderr}`);
  return new TextDecoder().decode(out.stdout);
}

let build: WebBuild;
let expected: string;

Deno.test({
  name: "the seeded scenario is byte-identical from the sources and from the bundle in Deno",
  sanitizeResources: false,
  fn: async () => {
    build = await buildWeb();
    expected = await runPlanScenario(lib);
    // Reproducible, and the seed matters.
    assert.equal(await runPlanScenario(lib), expected);
    const bundled = await import(build.core);
    assertSame(await runPlanScenario(bundled), expected, "bundle in Deno");
  },
});

Deno.test("Node runs the bundle to the same bytes", async () => {
  await Deno.writeTextFile(`${build.dir}/runner.mjs`, RUNNER);
  assertSame(await runTool("node", ["runner.mjs"], build.dir), expected, "Node");
});

Deno.test("Bun runs the bundle to the same bytes", async () => {
  const version = await runTool(`${repoRoot}/scripts/npm-tool`, ["bun", "--version"], build.dir);
  assert.match(version, /^\d+\.\d+/);
  assertSame(
    await runTool(`${repoRoot}/scripts/npm-tool`, ["bun", "runner.mjs"], build.dir),
    expected,
    `Bun ${version.trim()}`,
  );
});

Deno.test("headless Chromium runs the bundle to the same bytes", async () => {
  await Deno.writeTextFile(
    `${build.dir}/plan.html`,
    `<!doctype html><meta charset="utf-8"><title>plan</title><script type="module">
import * as lib from "./kubeadm-core.js";
import { runPlanScenario } from "./plan_scenario.mjs";
try { window.planResult = await runPlanScenario(lib); } catch (e) { window.planResult = "error: " + e.stack; }
</script>`,
  );
  const server = serveBuild(build.dir);
  const browser = await Chromium.launch();
  try {
    await browser.goto(`http://127.0.0.1:${server.addr.port}/plan.html`);
    const result = await browser.waitFor<string>("window.planResult", 120_000);
    assert.doesNotMatch(result.slice(0, 200), /^error:/, result.slice(0, 2000));
    assert.match(await browser.evaluate<string>("navigator.userAgent"), /Chrome\/\d+/);
    assertSame(result, expected, "Chromium");
  } finally {
    await browser.close();
    await server.shutdown();
  }
});

Deno.test("workerd serves the example Worker's cloud-init with the same bytes", async () => {
  await Deno.copyFile(`${repoRoot}/web/cloud_init_worker.js`, `${build.dir}/worker.js`);
  const workerd = await startWorkerd(
    { "worker.js": "worker.js", "kubeadm-core.js": "kubeadm-core.js" },
    build.dir,
  );
  try {
    const post = (body: unknown, accept = "text/cloud-config") =>
      fetch(`${workerd.url}/cloud-init/control-plane`, {
        method: "POST",
        headers: { accept },
        body: JSON.stringify(body),
      });
    // The Worker plans without uploadCerts; plan the same in Deno.
    const { hostname, advertiseAddress, config, seed, time } = SCENARIO_WORKER_REQUEST;
    const reference = await lib.planControlPlane({
      config,
      host: { hostname, advertiseAddress },
      random: lib.seededRandom(seed),
      clock: { now: () => new Date(time) },
    });
    const res = await post(SCENARIO_WORKER_REQUEST);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/cloud-config; charset=utf-8");
    assertSame(
      JSON.stringify({ cp: { cloudInit: await res.text() } }),
      JSON.stringify({ cp: { cloudInit: lib.toCloudInit(reference) } }),
      "workerd",
    );
    const json = await (await post(SCENARIO_WORKER_REQUEST, "application/json")).json();
    assert.deepEqual(json, {
      joinCommand: reference.joinCommand,
      caCertHash: reference.caCertHash,
    });
    // Bad input is a 400 naming the field, from the core's own validation.
    const rsa = await post({
      ...SCENARIO_WORKER_REQUEST,
      config: config.replace("ECDSA-P256", "RSA-2048"),
    });
    assert.equal(rsa.status, 400);
    assert.equal((await rsa.json()).field, "encryptionAlgorithm");
    const noHost = await post({ advertiseAddress });
    assert.equal(noHost.status, 400);
    assert.equal((await noHost.json()).field, "hostname");
  } finally {
    await workerd.stop();
  }
});

Deno.test({
  name: "cleanup of the shared build",
  fn: async () => await build.cleanup(),
});
