// The exit statuses are one list (`ExitCode` and its meanings in core/errors.ts): the README's
// table shows exactly that list, and every error class ends with a status from it.
import assert from "node:assert/strict";
import {
  ConfigError,
  DiscoveryError,
  EXIT_STATUS_MEANING,
  ExitCode,
  exitStatuses,
  FlagError,
  PhaseError,
  PreflightError,
  redactSecrets,
  ValidationError,
} from "../../core/errors.ts";
import { UsageError } from "../../cli/command.ts";
import { repoRoot } from "../support/repo.ts";

/** The rows of the README's exit-status table: [status, name, meaning]. */
function readmeExitTable(): string[][] {
  const readme = Deno.readTextFileSync(`${repoRoot}/README.md`);
  const section = readme.split("### Exit status")[1]?.split("\n## ")[0] ?? "";
  return section.split("\n")
    .filter((l) => l.startsWith("|") && !/^\|\s*-/.test(l))
    .slice(1) // the header
    .map((l) => l.slice(1, -1).split("|").map((c) => c.trim()));
}

Deno.test("the README's exit-status table is the code's list", () => {
  const expected = (Object.keys(ExitCode) as (keyof typeof ExitCode)[])
    .map((name) => [String(ExitCode[name]), name, EXIT_STATUS_MEANING[name]]);
  assert.deepEqual(readmeExitTable(), expected);
});

Deno.test("exitStatuses lists every status once, ascending", () => {
  assert.deepEqual(exitStatuses(), [0, 1, 2, 3, 4]);
});

Deno.test("each error family ends with its documented status", () => {
  const statuses = exitStatuses();
  const cases: [Error & { exitCode: number }, number][] = [
    [new UsageError("unknown flag: --x"), ExitCode.generic],
    [new DiscoveryError("couldn't validate the identity of the API Server"), ExitCode.generic],
    [new PreflightError("preflight"), ExitCode.preflight],
    [new ValidationError([{ field: "a", detail: "b" }]), ExitCode.validation],
    [new ConfigError("bad yaml"), ExitCode.validation],
    [new FlagError("bad flag"), ExitCode.validation],
    [new PhaseError("certs", new PreflightError("x")), ExitCode.preflight],
  ];
  for (const [e, status] of cases) {
    assert.equal(e.exitCode, status, e.constructor.name);
    assert.ok(statuses.includes(e.exitCode));
  }
});

Deno.test("redactSecrets hides tokens, private keys, certificate keys and client-key-data, not hashes", () => {
  const key = "9f".repeat(32);
  const text = [
    "token abcdef.0123456789abcdef",
    `--certificate-key ${key}`,
    `certificateKey: "${key}"`,
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
    "client-key-data: LS0tLS1CRUdJTiBFQyBQUklW",
    `--discovery-token-ca-cert-hash sha256:${key}`,
    // An unterminated key block hides everything after it.
    "-----BEGIN PRIVATE KEY-----\ntruncated\nmore",
  ].join("\n");
  assert.equal(
    redactSecrets(text),
    [
      "token abcdef.<redacted>",
      "--certificate-key <redacted>",
      'certificateKey: "<redacted>"',
      "-----BEGIN RSA PRIVATE KEY-----<redacted>-----END RSA PRIVATE KEY-----",
      "client-key-data: <redacted>",
      `--discovery-token-ca-cert-hash sha256:${key}`,
      "-----BEGIN PRIVATE KEY-----<redacted>-----END PRIVATE KEY-----",
    ].join("\n"),
  );
});
