// Output of a preflight run: upstream's text format, the fatal block, dry-run and JSON.
import assert from "node:assert/strict";
import type { Check } from "../../../core/preflight/check.ts";
import { resolveIgnoreSet } from "../../../core/preflight/ignore.ts";
import { IGNORE_HINT, PreflightRun } from "../../../core/preflight/runner.ts";
import { PreflightError } from "../../../core/errors.ts";
import { CapturePrinter, FakeMachine } from "../../support/fake_machine.ts";

function check(name: string, warnings: string[], errors: string[], stdout?: string[]): Check {
  return {
    name,
    severity: errors.length ? "error" : "warning",
    run: () => Promise.resolve({ warnings, errors, stdout }),
  };
}

const CHECKS = [
  check("Alpha", ["a warning"], []),
  check("Beta", [], ["beta broke"]),
  check("Gamma", [], []),
  check("Delta", ["d1"], ["delta broke", "and again"]),
];
const NAMES = CHECKS.map((c) => c.name);

Deno.test("warnings print as they come; errors are grouped in the fatal block", async () => {
  const out = new CapturePrinter();
  const run = new PreflightRun(new FakeMachine(), { command: "init", out });
  await assert.rejects(() => run.run(CHECKS), (e: unknown) => {
    assert.ok(e instanceof PreflightError);
    assert.equal(e.message, "preflight checks failed");
    assert.equal(e.exitCode, 2);
    assert.equal(
      e.hint,
      "fix the errors above, or make a check non-fatal with --ignore-preflight-errors=<name>",
    );
    return true;
  });
  assert.deepEqual(out.stdout, []);
  assert.deepEqual(out.stderr, [
    "\t[WARNING Alpha]: a warning",
    "\t[WARNING Delta]: d1",
    "[preflight] Some fatal errors occurred:",
    "\t[ERROR Beta]: beta broke",
    "\t[ERROR Delta]: delta broke",
    "\t[ERROR Delta]: and again",
    "[preflight] If you know what you are doing, you can make a check non-fatal with `--ignore-preflight-errors=...`",
  ]);
  assert.equal(IGNORE_HINT, out.stderr.at(-1));
  assert.deepEqual(run.results.map((r) => r.status), ["warning", "error", "pass", "error"]);
});

Deno.test("ignored checks show their errors as warnings, after their own warnings", async () => {
  const out = new CapturePrinter();
  const run = new PreflightRun(new FakeMachine(), {
    command: "init",
    out,
    ignore: resolveIgnoreSet(["beta", "DELTA"], [], NAMES),
  });
  await run.run(CHECKS);
  assert.deepEqual(out.stderr, [
    "\t[WARNING Alpha]: a warning",
    "\t[WARNING Beta]: beta broke",
    "\t[WARNING Delta]: d1",
    "\t[WARNING Delta]: delta broke",
    "\t[WARNING Delta]: and again",
  ]);
  assert.deepEqual(run.results.map((r) => r.status), ["warning", "ignored", "pass", "ignored"]);
  assert.equal(run.report().failed, false);
});

Deno.test("dry-run reports errors as prefixed warnings and does not fail", async () => {
  const out = new CapturePrinter();
  const run = new PreflightRun(new FakeMachine(), { command: "init", out, dryRun: true });
  await run.run(CHECKS);
  assert.deepEqual(out.stderr.slice(2), [
    "[preflight] dry-run: [ERROR Beta]: beta broke",
    "[preflight] dry-run: [ERROR Delta]: delta broke",
    "[preflight] dry-run: [ERROR Delta]: and again",
  ]);
  const report = run.finish();
  assert.equal(report.failed, true);
  assert.equal(report.dryRun, true);
});

Deno.test("a check that throws counts as an error of that check", async () => {
  const out = new CapturePrinter();
  const boom: Check = {
    name: "Boom",
    severity: "error",
    run: () => Promise.reject(new Error("kaput")),
  };
  const run = new PreflightRun(new FakeMachine(), { command: "init", out });
  await assert.rejects(() => run.run([boom]), PreflightError);
  assert.ok(out.stderr.includes("\t[ERROR Boom]: kaput"));
});

Deno.test("check stdout lines (the verification report) go to stdout before its warnings", async () => {
  const out = new CapturePrinter();
  const run = new PreflightRun(new FakeMachine(), {
    command: "init",
    out,
    ignore: resolveIgnoreSet(["all"], [], []),
  });
  await run.run([
    check("SystemVerification", ["w"], ["e"], ["[preflight] header", "\x1b[0;37mK\x1b[0m: v"]),
  ]);
  assert.deepEqual(out.all, [
    "[preflight] header",
    "\x1b[0;37mK\x1b[0m: v",
    "E: \t[WARNING SystemVerification]: w",
    "E: \t[WARNING SystemVerification]: e",
  ]);
  assert.deepEqual(run.results[0].details, ["[preflight] header", "K: v"]);
});

Deno.test("JSON output lists every check once, prints nothing else, also on failure", async () => {
  const out = new CapturePrinter();
  const run = new PreflightRun(new FakeMachine(), { command: "join", out, output: "json" });
  run.info("[preflight] Running pre-flight checks");
  await assert.rejects(() => run.run(CHECKS), PreflightError);
  assert.deepEqual(out.stderr, []);
  assert.equal(out.stdout.length, 1);
  const report = JSON.parse(out.stdout[0]);
  assert.equal(report.kind, "PreflightReport");
  assert.equal(report.command, "join");
  assert.equal(report.failed, true);
  assert.deepEqual(report.checks.map((c: { name: string }) => c.name), NAMES);
  assert.deepEqual(report.checks[3], {
    name: "Delta",
    severity: "error",
    status: "error",
    messages: [
      { level: "warning", text: "d1" },
      { level: "error", text: "delta broke" },
      { level: "error", text: "and again" },
    ],
  });
  run.finish();
  assert.equal(out.stdout.length, 1, "the report is printed once");
});

Deno.test("JSON output on success is printed by finish()", async () => {
  const out = new CapturePrinter();
  const run = new PreflightRun(new FakeMachine(), { command: "init", out, output: "json" });
  await run.run([check("Gamma", [], [])]);
  assert.deepEqual(out.stdout, []);
  const report = run.finish();
  assert.deepEqual(JSON.parse(out.stdout[0]), report);
  assert.deepEqual(report.checks, [{
    name: "Gamma",
    severity: "warning",
    status: "pass",
    messages: [],
  }]);
});

Deno.test("kubeadm's own files in place: the hint advises kubeadm reset", async () => {
  const run = new PreflightRun(new FakeMachine(), { command: "init", out: new CapturePrinter() });
  const leftovers = [
    check("Port-6443", [], ["Port 6443 is in use"]),
    check(
      "FileAvailable--etc-kubernetes-manifests-etcd.yaml",
      [],
      ["/etc/kubernetes/manifests/etcd.yaml already exists"],
    ),
  ];
  await assert.rejects(() => run.run(leftovers), (e: unknown) => {
    assert.ok(e instanceof PreflightError);
    assert.match(
      e.hint ?? "",
      /^this node holds files of an earlier kubeadm init or join .*run 'kubeadm reset' to remove them, then run this command again; or fix the errors above/,
    );
    return true;
  });
});

Deno.test("checks run at once and report in order", async () => {
  // Alpha finishes only once Gamma has started: one after another, this run would never end.
  let gammaStarted!: () => void;
  const gamma = new Promise<void>((r) => gammaStarted = r);
  const waiting = (name: string, wait?: Promise<void>): Check => ({
    name,
    severity: "warning",
    run: async () => {
      if (name === "Gamma") gammaStarted();
      await wait;
      return { warnings: [`${name} found something`], errors: [] };
    },
  });
  const out = new CapturePrinter();
  const run = new PreflightRun(new FakeMachine(), { command: "init", out });
  await run.run([waiting("Alpha", gamma), waiting("Beta"), waiting("Gamma")]);
  assert.deepEqual(out.stderr, [
    "\t[WARNING Alpha]: Alpha found something",
    "\t[WARNING Beta]: Beta found something",
    "\t[WARNING Gamma]: Gamma found something",
  ]);
});

Deno.test("with a verbose log the checks run one after another, each line logged as it happens", async () => {
  const all: string[] = [];
  const logging = (name: string): Check => ({
    name,
    severity: "warning",
    run: async (_host, log) => {
      log?.(1, "checks.ts", `${name} starts`);
      await new Promise((r) => setTimeout(r, 1));
      log?.(1, "checks.ts", `${name} ends`);
      return { warnings: [`${name} found something`], errors: [] };
    },
  });
  const out = {
    info: (l: string) => all.push(l),
    warn: (l: string) => all.push(`E: ${l}`),
    log: (_level: number, _source: string, message: string) => all.push(`log: ${message}`),
  };
  const run = new PreflightRun(new FakeMachine(), { command: "init", out });
  await run.run([logging("Alpha"), logging("Beta")]);
  assert.deepEqual(all, [
    "log: Alpha starts",
    "log: Alpha ends",
    "E: \t[WARNING Alpha]: Alpha found something",
    "log: Beta starts",
    "log: Beta ends",
    "E: \t[WARNING Beta]: Beta found something",
  ]);
});
