// The WIT interface's implementation (wasm/api.ts) in Deno, before any component: it gives
// what the library (mod.ts) gives for the same seed and time, its errors are error-records,
// and every component case's reference output shows kubeadm's behaviour (the component tests
// then hold the hosts to these outputs byte for byte).
import assert from "node:assert/strict";
import * as lib from "../../web/core_entry.ts";
import * as api from "../../wasm/api.ts";
import { runPlanScenario } from "../support/plan_scenario.ts";
import { componentCases, CONTROL_PLANE_REQUEST, joinRequest, seed } from "../support/wasm_cases.ts";
import { runDeno } from "../support/wasm.ts";
import { DiscoveryError, ExistingFileError, PhaseError } from "../../core/errors.ts";

const decode = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("the WIT plans are the library's seeded scenario, file for file and byte for byte", async () => {
  const scenario = JSON.parse(await runPlanScenario(lib));
  const cp = await api.planControlPlane(CONTROL_PLANE_REQUEST);
  const worker = await api.planWorker(joinRequest({ tag: "plan", val: cp }, "w1", "192.0.2.21"));
  const cp2 = await api.planControlPlaneJoin(
    joinRequest({ tag: "plan", val: cp }, "cp2", "192.0.2.11"),
  );
  const asLib = (files: { path: string; mode: number; content: Uint8Array }[]) =>
    files.map((f) => ({ path: f.path, mode: f.mode, content: decode(f.content) }));
  assert.deepEqual(asLib(cp.files), scenario.controlPlane.files);
  assert.deepEqual(cp.objects.map((o) => JSON.parse(o)), scenario.controlPlane.objects);
  assert.equal(cp.joinCommand, scenario.controlPlane.joinCommand);
  assert.equal(cp.controlPlaneJoinCommand, scenario.controlPlane.controlPlaneJoinCommand);
  assert.equal(cp.caCertHash, scenario.controlPlane.caCertHash);
  assert.deepEqual(asLib(worker.files), scenario.worker.files);
  assert.deepEqual(asLib(cp2.files), scenario.controlPlaneJoin.files);
  const cloudInit = (p: { files: typeof cp.files; bringUp: typeof cp.bringUp }) =>
    api.renderCloudInit(p.files, p.bringUp, { preCommands: [] });
  assert.equal(await cloudInit(cp), scenario.controlPlane.cloudInit);
  assert.equal(await cloudInit(worker), scenario.worker.cloudInit);
  assert.equal(await cloudInit(cp2), scenario.controlPlaneJoin.cloudInit);
});

Deno.test("tokens, pins and verdicts are the library's", async () => {
  assert.equal(
    await api.generateToken(seed("token")),
    lib.generateToken(lib.seededRandom(seed("token"))),
  );
  assert.deepEqual(await api.parseToken("abcdef.0123456789abcdef"), {
    id: "abcdef",
    secret: "0123456789abcdef",
  });
  const cp = await api.planControlPlane(CONTROL_PLANE_REQUEST);
  const caPem = decode(cp.files.find((f) => f.path === "/etc/kubernetes/pki/ca.crt")!.content);
  assert.deepEqual(await api.caCertPins(caPem), await lib.pemCertificatePins(caPem));
  const objects = await lib.withBootstrapSignatures(cp.objects.map((o) => JSON.parse(o)));
  const clusterInfo = JSON.stringify(objects.find((o) => o.metadata?.name === "cluster-info"));
  const now = new Date("2026-03-01T12:00:00Z");
  const want = await lib.checkClusterInfo({
    clusterInfo,
    token: cp.token,
    caCertHashes: [cp.caCertHash],
    now,
  });
  const got = await api.checkClusterInfo({
    clusterInfo,
    token: cp.token,
    caCertHashes: [cp.caCertHash],
    unsafeSkipCaVerification: false,
    now: BigInt(now.getTime()),
  });
  assert.equal(want.verdict, "verified");
  assert.deepEqual(
    {
      verdict: got.verified ? "verified" : "rejected",
      reason: got.reason,
      tokenId: got.tokenId,
      server: got.server,
      caPinned: got.caPinned,
      checks: got.checks.map((c) => ({ ...c, ok: c.status !== "fail" })),
      ca: got.ca,
      caCerts: got.caCerts.map(({ isCa, ...c }) => ({ ...c, isCA: isCa })),
    },
    JSON.parse(JSON.stringify(want)),
  );
});

Deno.test("failures are error-records: the cause's code, kubeadm's message, field and hint; bugs are ERR_INTERNAL", () => {
  assert.deepEqual(api.errorRecord(new lib.KubeadmError("x")), {
    code: "ERR_KUBEADM",
    message: "x",
    field: undefined,
    value: undefined,
    hint: undefined,
  });
  const rsa = new lib.UnsupportedAlgorithmError("no RSA", { field: "encryptionAlgorithm" });
  const wrapped = new PhaseError(
    "certs/ca",
    new ExistingFileError("failure loading ca key", { cause: rsa }),
  );
  assert.equal(api.errorRecord(wrapped).code, "ERR_UNSUPPORTED_ALGORITHM");
  assert.match(api.errorRecord(wrapped).message, /^error execution phase certs\/ca: /);
  const discovery = new DiscoveryError("refused", { cause: new lib.KubeadmError("not pinned") });
  assert.equal(api.errorRecord(new PhaseError("kubelet-start", discovery)).code, "ERR_DISCOVERY");
  const internal = api.errorRecord(new TypeError("boom"));
  assert.equal(internal.code, "ERR_INTERNAL");
  assert.equal(internal.message, "TypeError: boom");
  assert.match(internal.hint!, /bug/);
});

Deno.test("every component case's reference output shows kubeadm's behaviour", async () => {
  const cases = await componentCases();
  const outcomes = await runDeno(cases.map((c) => c.call));
  const fns = new Set(cases.map((c) => c.call.fn));
  // Every function of the interface is exercised, accepted and refused where it can fail.
  assert.deepEqual([...fns].sort(), [
    "ca-cert-pins",
    "check-cluster-info",
    "generate-token",
    "parse-token",
    "plan-control-plane",
    "plan-control-plane-join",
    "plan-worker",
    "render-cloud-init",
  ]);
  cases.forEach((c, i) => {
    const o = outcomes[i];
    assert.ok(o.result, `${c.name}: ${o.trap}`);
    c.check(JSON.parse(o.result));
  });
  // The same calls again give the same bytes (nothing ambient leaks in).
  const again = await runDeno(cases.map((c) => c.call));
  assert.deepEqual(again.map((o) => o.result), outcomes.map((o) => o.result));
});
