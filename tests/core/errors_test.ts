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
