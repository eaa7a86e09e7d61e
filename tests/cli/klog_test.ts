// The `--v`/`--vmodule` logger: klog's header and filtering over the core's `Printer.log`
// lines, secrets redacted, loaded only when a command line asks for a level above 0.
import assert from "node:assert/strict";
import { commandLineLogger, klogHeader, klogLogger, moduleRules } from "../../cli/klog.ts";
import { main } from "../../cli/main.ts";

/** A logger writing into a list, at a fixed time and pid. */
function capture(verbosity: number, argv: string[] = []) {
  const written: string[] = [];
  const log = klogLogger({
    verbosity,
    rules: moduleRules(argv),
    write: (t) => written.push(t),
    now: () => new Date(2026, 10, 24, 16, 30, 55, 210).getTime() + 0.195,
    pid: 30852,
  });
  return { log, written };
}

Deno.test("klogHeader is klog's: severity, MMDD, local time to the microsecond, pid in 7 columns, file", () => {
  const t = new Date(2026, 0, 5, 3, 4, 5, 6).getTime() + 0.5;
  assert.equal(klogHeader(t, 42, "tree.ts:12"), "I0105 03:04:05.006500      42 tree.ts:12] ");
  assert.equal(
    klogHeader(new Date(2026, 10, 24, 16, 30, 55, 210).getTime(), 1234567, "x.ts"),
    "I1124 16:30:55.210000 1234567 x.ts] ",
  );
});

Deno.test("a line at or below -v is printed with its caller's line; above it, nothing", () => {
  const { log, written } = capture(1);
  log(2, "klog_test.ts", "too verbose");
  log(1, "klog_test.ts", "shown");
  assert.equal(written.length, 1);
  assert.match(written[0], /^I1124 16:30:55\.210195 {3}30852 klog_test\.ts:\d+\] shown\n$/);
  // The line number is this file's call above.
  const line = Number(written[0].match(/klog_test\.ts:(\d+)\]/)![1]);
  const source = Deno.readTextFileSync(new URL(import.meta.url)).split("\n");
  assert.match(source[line - 1], /log\(1, "klog_test\.ts", "shown"\)/);
});

Deno.test("a source not on the stack is named without a line; one newline ends every entry", () => {
  const { log, written } = capture(1);
  log(1, "elsewhere.ts", "first\n");
  log(1, "elsewhere.ts", "[discovery] Using CA certificate:\n\tSubject: CN=kubernetes");
  assert.deepEqual(written, [
    "I1124 16:30:55.210195   30852 elsewhere.ts] first\n",
    "I1124 16:30:55.210195   30852 elsewhere.ts] [discovery] Using CA certificate:\n\tSubject: CN=kubernetes\n",
  ]);
});

Deno.test("--vmodule sets a module's level by its name with or without .ts, first match wins", () => {
  const rules = moduleRules(["--vmodule=tree=2,kube*=0,files.ts=1", "--", "--vmodule=x=9"]);
  assert.deepEqual(rules.map((r) => r.level), [2, 0, 1]);
  const { log, written } = capture(0, ["--vmodule", "tree=2,kube*=0,files.ts=1"]);
  log(2, "tree.ts", "tree at 2");
  log(3, "tree.ts", "tree at 3");
  log(1, "kubelet_config.ts", "kubelet at 1");
  log(1, "files.ts", "files at 1");
  log(1, "resolve.ts", "resolve at 1 (-v=0)");
  assert.deepEqual(written.map((w) => w.replace(/^.*\] /, "").trimEnd()), [
    "tree at 2",
    "files at 1",
  ]);
  // A glob matches the whole name only.
  const whole = capture(0, ["--vmodule=tre=5"]);
  whole.log(1, "tree.ts", "not matched");
  assert.deepEqual(whole.written, []);
  // As klog: a rule raises a module's level, never lowers it below -v.
  const lower = capture(5, ["--vmodule=tree=0"]);
  lower.log(1, "tree.ts", "tree at 1 under -v=5");
  assert.deepEqual(lower.written.map((w) => w.replace(/^.*\] /, "").trimEnd()), [
    "tree at 1 under -v=5",
  ]);
});

Deno.test("secrets never reach a log line: tokens, certificate keys, private keys", () => {
  const { log, written } = capture(1);
  log(1, "x.ts", "[bootstrap-token] Using token: abcdef.0123456789abcdef");
  log(1, "x.ts", `--certificate-key=${"ab".repeat(32)}`);
  log(1, "x.ts", `certificateKey: "${"0f".repeat(32)}"`);
  log(1, "x.ts", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\n-----END EC PRIVATE KEY-----");
  log(1, "x.ts", "client-key-data: LS0tLS1CRUdJTiBQUklWQVRF");
  const all = written.join("");
  for (const secret of ["0123456789abcdef", "ab".repeat(32), "0f".repeat(32), "MHcCAQEEIB"]) {
    assert.ok(!all.includes(secret), secret);
  }
  assert.ok(!all.includes("LS0tLS1CRUdJTiBQUklWQVRF"));
  assert.match(all, /Using token: abcdef\.<redacted>/);
  // A CA hash is not a secret.
  log(1, "x.ts", `Hash: sha256:${"ab".repeat(32)}`);
  assert.ok(written.at(-1)!.includes(`sha256:${"ab".repeat(32)}`));
});

Deno.test("commandLineLogger exists only for -v above 0 or a --vmodule rule above 0", () => {
  const sink = () => {};
  assert.equal(commandLineLogger(["init"], sink), undefined);
  assert.equal(commandLineLogger(["init", "--v=0"], sink), undefined);
  assert.equal(commandLineLogger(["init", "--vmodule=tree=0"], sink), undefined);
  assert.equal(typeof commandLineLogger(["init", "-v", "1"], sink), "function");
  assert.equal(typeof commandLineLogger(["init", "--vmodule=tree=2"], sink), "function");
});

async function runMain(argv: string[]) {
  let stdout = "", stderr = "";
  const code = await main(argv, {
    streams: {
      stdout: (t) => stdout += t,
      stderr: (t) => stderr += t,
      stdin: () => new Blob([]).stream(),
    },
  });
  return { code, stdout, stderr };
}

Deno.test("main prints the core's log lines on stderr at --v=1, none at the default level", async () => {
  const quiet = await runMain(["config", "print", "init-defaults"]);
  const loud = await runMain(["config", "print", "init-defaults", "--v=1"]);
  assert.equal(quiet.code, 0);
  assert.equal(loud.code, 0);
  assert.equal(quiet.stderr, "");
  assert.equal(loud.stdout, quiet.stdout);
  assert.match(
    loud.stderr,
    /^I\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ kubelet_config\.ts:\d+\] the value of KubeletConfiguration\.cgroupDriver is empty; setting it to "systemd"\n$/,
  );
  const byModule = await runMain(["config", "print", "init-defaults", "--vmodule=kubelet_*=1"]);
  assert.equal(byModule.stderr.replace(/^.*\] /, ""), loud.stderr.replace(/^.*\] /, ""));
  const other = await runMain(["config", "print", "init-defaults", "--vmodule=tree=5"]);
  assert.equal(other.stderr, "");
});
