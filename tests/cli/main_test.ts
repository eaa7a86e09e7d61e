// `main` is the command line's one entry: the process runs it on Deno.args, and in-process
// callers (the fuzzer) run it with their own streams and see what a failed run threw.
import assert from "node:assert/strict";
import { main } from "../../cli/main.ts";
import { KubeadmError } from "../../core/errors.ts";

async function runMain(argv: string[]) {
  let stdout = "", stderr = "";
  const errors: unknown[] = [];
  const code = await main(argv, {
    streams: {
      stdout: (t) => stdout += t,
      stderr: (t) => stderr += t,
      stdin: () => new Blob(["not yaml: ["]).stream(),
    },
    onError: (e) => errors.push(e),
  });
  return { code, stdout, stderr, errors };
}

Deno.test("main prints to the streams it is given and returns the exit status", async () => {
  const ok = await runMain(["version", "-o", "short"]);
  assert.equal(ok.code, 0);
  assert.match(ok.stdout, /^v1\.\d+\.\d+\n$/);
  assert.equal(ok.stderr, "");
  assert.deepEqual(ok.errors, []);

  const help = await runMain(["init", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage:\n {2}kubeadm init \[flags\]/);
});

Deno.test("main reports a failure on its stderr, secrets redacted, and hands over the error", async () => {
  const r = await runMain(["init", "--tokn=abcdef.0123456789abcdef"]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    "error: unknown flag: --tokn\nTo see the stack trace of this error execute with --v=5 or higher\n",
  );
  assert.equal(r.errors.length, 1);
  assert.ok(r.errors[0] instanceof KubeadmError);
});

Deno.test("main prints a failure's stack at --v=5 and above, in place of upstream's hint to ask for it", async () => {
  const missingConfig = (v: string[]) =>
    runMain(["init", "phase", "certs", "all", "--config", "/nonexistent.yaml", ...v]);
  for (const v of [["--v=5"], ["-v", "7"], ["-v5"], ["--v", "5"]]) {
    const r = await missingConfig(v);
    assert.equal(r.code, 3, v.join(" "));
    // At -v=1 and above the config file's loading is logged first, as upstream's.
    const [logged, ...lines] = r.stderr.trimEnd().split("\n");
    assert.match(
      logged,
      /^I\d{4} .* config_file\.ts:\d+\] loading configuration from "\/nonexistent\.yaml"$/,
    );
    assert.equal(lines[0], 'error: unable to read config from "/nonexistent.yaml"', v.join(" "));
    assert.ok(lines.some((l) => /^\s+at .*\.ts:\d+:\d+\)?$/.test(l)), r.stderr);
    assert.ok(!r.stderr.includes("To see the stack trace"), v.join(" "));
  }
  const quiet = await missingConfig(["--v=4"]);
  assert.ok(!/^\s+at /m.test(quiet.stderr), quiet.stderr);
  assert.ok(
    quiet.stderr.endsWith("To see the stack trace of this error execute with --v=5 or higher\n"),
  );
});

Deno.test("main reads the stdin it is given", async () => {
  const r = await runMain([
    "discovery-check",
    "--cluster-info",
    "-",
    "--token",
    "abcdef.0123456789abcdef",
    "--discovery-token-unsafe-skip-ca-verification",
  ]);
  assert.equal(r.code, 1, r.stderr);
  assert.doesNotMatch(r.stdout + r.stderr, /0123456789abcdef/);
  assert.match(r.stdout, /^REJECTED: /);
});
