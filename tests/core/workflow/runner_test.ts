import assert from "node:assert/strict";
import { FlagError, PhaseError } from "../../../core/errors.ts";
import type { Workflow } from "../../../core/workflow/phase.ts";
import {
  listPhases,
  resolveSkipPhases,
  runWorkflow,
  skippablePhases,
} from "../../../core/workflow/runner.ts";

function recorder() {
  const log: string[] = [];
  const step = (name: string) => () => {
    log.push(name);
    return Promise.resolve();
  };
  const wf: Workflow<null> = {
    name: "init",
    phases: [
      { name: "preflight", short: "", run: step("preflight") },
      {
        name: "certs",
        short: "",
        run: step("certs"),
        phases: [
          { name: "all", short: "", runAllSiblings: true },
          { name: "ca", short: "", run: step("certs/ca") },
          { name: "apiserver", short: "", run: step("certs/apiserver") },
          { name: "etcd-ca", short: "", run: step("certs/etcd-ca"), runIf: () => false },
        ],
      },
      { name: "upload-config", short: "", aliases: ["uploadconfig"], run: step("upload-config") },
      {
        name: "boom",
        short: "",
        run: () => Promise.reject(new Error("kaput")),
      },
    ],
  };
  return { wf, log };
}

Deno.test("listPhases gives depth-first paths", () => {
  const { wf } = recorder();
  assert.deepEqual(listPhases(wf).map((e) => e.path), [
    "preflight",
    "certs",
    "certs/all",
    "certs/ca",
    "certs/apiserver",
    "certs/etcd-ca",
    "upload-config",
    "boom",
  ]);
  assert.ok(!skippablePhases(wf).includes("certs/all"));
});

Deno.test("a full run honours skip (parent skips children), runIf, and wraps failures", async () => {
  const { wf, log } = recorder();
  await assert.rejects(
    runWorkflow(wf, null, { skip: resolveSkipPhases(wf, ["certs/ca", "preflight"]) }),
    (e: unknown) => e instanceof PhaseError && e.message === "error execution phase boom: kaput",
  );
  assert.deepEqual(log, ["certs", "certs/apiserver", "upload-config"]);
});

Deno.test("skipping a parent skips all its sub-phases", async () => {
  const { wf, log } = recorder();
  await runWorkflow(wf, null, { skip: resolveSkipPhases(wf, ["certs", "boom"]) });
  assert.deepEqual(log, ["preflight", "upload-config"]);
});

Deno.test("'all' runs the parent preamble and every sibling", async () => {
  const { wf, log } = recorder();
  await runWorkflow(wf, null, { only: "certs/all" });
  assert.deepEqual(log, ["certs", "certs/ca", "certs/apiserver"]);
});

Deno.test("a single phase runs alone, aliases resolve", async () => {
  const { wf, log } = recorder();
  await runWorkflow(wf, null, { only: "certs/apiserver" });
  await runWorkflow(wf, null, { only: "uploadconfig" });
  assert.deepEqual(log, ["certs", "certs/apiserver", "upload-config"]);
});

Deno.test("unknown --skip-phases names are rejected with the valid list", () => {
  const { wf } = recorder();
  assert.throws(() => resolveSkipPhases(wf, ["certs/nope"]), (e: unknown) => {
    assert.ok(e instanceof FlagError);
    assert.equal(e.field, "--skip-phases");
    assert.match(e.hint ?? "", /certs\/apiserver/);
    return true;
  });
});

Deno.test("outlines load their phase when it runs: all for a full run, one for a phase alone", async () => {
  const { wf, log } = recorder();
  const loaded: string[] = [];
  const outline: Workflow<null> = {
    name: wf.name,
    phases: wf.phases.filter((p) => p.name !== "boom").map((phase) => ({
      name: phase.name,
      short: phase.short,
      aliases: phase.aliases,
      phases: phase.phases?.map(({ run: _, runIf: __, ...rest }) => rest),
      load: () => {
        loaded.push(phase.name);
        return Promise.resolve(phase);
      },
    })),
  };
  await runWorkflow(outline, null, { only: "certs/all" });
  assert.deepEqual(loaded, ["certs"]);
  assert.deepEqual(log, ["certs", "certs/ca", "certs/apiserver"]);
  loaded.length = log.length = 0;
  await runWorkflow(outline, null, { only: "uploadconfig" });
  assert.deepEqual(loaded, ["upload-config"]);
  loaded.length = log.length = 0;
  await runWorkflow(outline, null, { skip: ["certs"] });
  assert.deepEqual(loaded, ["preflight", "certs", "upload-config"]);
  assert.deepEqual(log, ["preflight", "upload-config"]);
  const wrong: Workflow<null> = {
    name: "init",
    phases: [{ name: "certs", short: "", load: () => Promise.resolve(wf.phases[0]) }],
  };
  await assert.rejects(() => runWorkflow(wrong, null), /outline certs loaded phase preflight/);
});
