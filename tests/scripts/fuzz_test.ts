// scripts/fuzz: its judge flags each kind of finding, the case generator is reproducible, and a
// short seeded slice (in-process plus a few cases through the launcher) has no finding. The
// long run (>= 10,000 cases) is run by hand: `scripts/fuzz --seed <s> --cases 10000`.
import assert from "node:assert/strict";
import { checkOutcome, type Outcome, secretsOf } from "../../scripts/fuzz.ts";
import { generateCase, reusedNodeFiles } from "../../scripts/fuzz_cases.ts";
import { buildProgram } from "../../cli/program.ts";
import { ExitCode, ValidationError } from "../../core/errors.ts";
import { repoRoot } from "../support/repo.ts";

/** Cases in CI's slice: about a minute on two shared cores. */
const CI_CASES = 400;
/** Of which run through the launcher too. */
const CI_SUBPROCESS = 6;

const clean: Outcome = {
  code: ExitCode.validation,
  output: 'networking.podSubnet: Invalid value: "x": couldn\'t parse subnet\n',
  error: new ValidationError([{ field: "networking.podSubnet", value: "x", detail: "bad" }]),
  changed: [],
};

Deno.test("the fuzzer's judge passes a clean failure and flags every kind of finding", () => {
  const secret = "0123456789abcdef";
  assert.deepEqual(checkOutcome(clean, [secret]), []);
  assert.deepEqual(
    checkOutcome({ ...clean, code: 0, changed: ["/r/etc/kubernetes/pki/ca.crt"] }, []),
    [],
  );
  const kinds = (o: Partial<Outcome>) =>
    checkOutcome({ ...clean, ...o }, [secret]).map((f) => f.kind);
  assert.deepEqual(kinds({ error: new TypeError("x is undefined") }), ["crash"]);
  assert.deepEqual(kinds({ escaped: new Error("boom") }), ["crash"]);
  const stack = "Error: boom\n    at run (file:///work/cli/main.ts:10:5)\n";
  assert.deepEqual(kinds({ output: stack }), ["crash"]);
  // A command line that asks for stacks (--v=5 and above) may print one; below 5 it may not.
  assert.deepEqual(checkOutcome({ ...clean, output: stack }, [], ["version", "--v=5"]), []);
  assert.deepEqual(
    checkOutcome({ ...clean, output: stack }, [], ["version", "-v", "4"]).map((f) => f.kind),
    ["crash"],
  );
  assert.deepEqual(kinds({ code: 7 }), ["exit-status"]);
  assert.deepEqual(kinds({ changed: ["/r/etc/kubernetes/pki/ca.key"] }), ["write-on-error"]);
  assert.deepEqual(kinds({ output: `token abcdef.${secret}` }), ["secret"]);
  assert.deepEqual(kinds({ output: "-----BEGIN EC PRIVATE KEY-----\n" }), ["secret"]);
});

Deno.test("secretsOf finds token secrets and private key bodies", () => {
  const body = "MHcCAQEEIE3x4pQ0Xn1oN0sW8cTqO2sI9b3M1pYdQ4bN6oU0mZ5AoAoGCCqGSM49";
  assert.deepEqual(
    secretsOf([
      "--token=abcdef.0123456789abcdef",
      `-----BEGIN EC PRIVATE KEY-----\n${body}\n-----END EC PRIVATE KEY-----\n`,
    ]),
    ["0123456789abcdef", body.slice(0, 40)],
  );
});

Deno.test("the same seed and index give the same case", async () => {
  const ctx = {
    program: await buildProgram(),
    clusterInfoYaml: "apiVersion: v1\nkind: ConfigMap\n",
    nodeFiles: reusedNodeFiles(["/etc/kubernetes/pki/ca.crt", "/etc/kubernetes/admin.conf"]),
  };
  for (let i = 0; i < 50; i++) {
    assert.deepEqual(generateCase("s", i, ctx), generateCase("s", i, ctx));
  }
  const targets = new Set(Array.from({ length: 200 }, (_, i) => generateCase("s", i, ctx).target));
  assert.deepEqual([...targets].sort(), [
    "certs",
    "discovery-check",
    "join",
    "kubeconfig",
    "validate",
  ]);
});

Deno.test(`a seeded slice of ${CI_CASES} cases has no finding`, async () => {
  const r = await new Deno.Command(`${repoRoot}/scripts/fuzz`, {
    args: ["--seed", "ci", "--cases", String(CI_CASES), "--subprocess", String(CI_SUBPROCESS)],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr);
  console.log(out.split("\n").filter((l) => !l.startsWith("  ")).slice(-6).join("\n"));
  assert.equal(r.code, 0, out);
  assert.match(out, new RegExp(`cases ${CI_CASES} `));
  assert.match(
    out,
    /crashes 0, writes-on-error 0, leaked secrets 0, undocumented exit statuses 0, subprocess mismatches 0, hangs 0/,
  );
  assert.match(out, /no findings/);
});
