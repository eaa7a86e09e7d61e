/**
 * Runs groups of preflight checks and renders their results the way upstream's `RunChecks`
 * does, or as a JSON report.
 *
 * Text output goes through the {@link Printer}: each warning as `\t[WARNING <Name>]: <msg>`
 * (stderr) while the checks run; when errors remain, the block
 * `[preflight] Some fatal errors occurred:` + `\t[ERROR <Name>]: <msg>` lines + the
 * `--ignore-preflight-errors=...` hint (stderr), then a {@link PreflightError}. A check named in
 * the ignore set has its errors shown as warnings. In dry-run, errors are printed as warnings
 * prefixed `[preflight] dry-run:` and nothing fails.
 *
 * With JSON output nothing is printed while checks run; the report (every check, its status and
 * messages) is printed once, on stdout, when the run finishes or fails.
 *
 * @module
 */
import { errorMessage, PreflightError } from "../errors.ts";
import type { LogFn, Printer } from "../ports/printer.ts";
import type { Check, CheckOutcome, Severity } from "./check.ts";
import type { Machine } from "../ports/machine.ts";
import { IGNORE_NOTHING, type IgnoreSet } from "./ignore.ts";
import { stripColours } from "./system/report.ts";

/** What happened to one check. */
export type CheckStatus = "pass" | "warning" | "error" | "ignored";

/** One message of a check result. */
export interface CheckMessage {
  /** Whether the check reported it as a warning or an error. */
  level: "warning" | "error";
  /** The message, in upstream's words. */
  text: string;
}

/** The result of one check, as listed in the JSON report. */
export interface CheckResult {
  /** The check's name (what `--ignore-preflight-errors` accepts). */
  name: string;
  /** The severity of the check's usual failure. */
  severity: Severity;
  /**
   * `pass` (nothing found), `warning` (warnings only), `error` (fatal errors), `ignored`
   * (errors found but downgraded by the ignore set).
   */
  status: CheckStatus;
  /** Everything the check reported, warnings first. */
  messages: CheckMessage[];
  /** Extra output (the system-verification report), without colours. */
  details?: string[];
}

/** The JSON document printed with `-o json`. */
export interface PreflightReport {
  /** Always `PreflightReport`. */
  kind: "PreflightReport";
  /** `init`, `join`, `reset`. */
  command: string;
  /** Whether errors were only reported (`--dry-run`). */
  dryRun: boolean;
  /** True when errors that are not ignored were found. */
  failed: boolean;
  /** Every check that ran, in order. */
  checks: CheckResult[];
}

/** Output format of a preflight run. */
export type PreflightOutput = "text" | "json";

/** Options of a {@link PreflightRun}. */
export interface PreflightRunOptions {
  /** Command name for the report (`init`, `join`, `reset`). */
  command: string;
  /** Checks whose errors become warnings. */
  ignore?: IgnoreSet;
  /** Where lines go (warnings and the fatal block on stderr). */
  out: Printer;
  /** Report errors without failing. */
  dryRun?: boolean;
  /** `text` (default) or `json`. */
  output?: PreflightOutput;
}

/** The hint upstream prints after the fatal errors. */
export const IGNORE_HINT = "[preflight] If you know what you are doing, you can make a check " +
  "non-fatal with `--ignore-preflight-errors=...`";

/**
 * The hint of a failed run. Files or directories kubeadm writes found in place (the
 * `FileAvailable-…`/`DirAvailable-…` checks) are most often an earlier `init` or `join` on this
 * node, finished or killed half-way: `kubeadm reset` is what removes them.
 */
export function failureHint(errorLines: readonly string[]): string {
  const generic =
    "fix the errors above, or make a check non-fatal with --ignore-preflight-errors=<name>";
  const leftovers = errorLines.some((l) => /^\[ERROR (File|Dir)Available-/.test(l));
  return leftovers
    ? "this node holds files of an earlier kubeadm init or join (finished, or interrupted): " +
      "run 'kubeadm reset' to remove them, then run this command again; or " + generic
    : generic;
}

/** A sequence of check groups sharing one ignore set, output mode and report. */
export class PreflightRun {
  readonly #host: Machine;
  readonly #opts: PreflightRunOptions;
  readonly #ignore: IgnoreSet;
  readonly #results: CheckResult[] = [];
  #failed = false;
  #printed = false;

  constructor(host: Machine, opts: PreflightRunOptions) {
    this.#host = host;
    this.#opts = opts;
    this.#ignore = opts.ignore ?? IGNORE_NOTHING;
  }

  /** Whether output is JSON. */
  get json(): boolean {
    return this.#opts.output === "json";
  }

  /** Results so far, in run order. */
  get results(): readonly CheckResult[] {
    return this.#results;
  }

  /** Verbose log lines of the checks (the run's printer's). */
  get log(): LogFn | undefined {
    return this.#opts.out.log;
  }

  /** Prints a progress line (`[preflight] Running pre-flight checks`) in text mode only. */
  info(line: string): void {
    if (!this.json) this.#opts.out.info(line);
  }

  /**
   * Runs one group of checks and reports them in the group's order. They run all at once (they
   * only inspect the host, and most of their time is spent waiting on it: commands, sockets,
   * files), except with a verbose log, whose lines carry the time and caller of each as it
   * happens: then one after another. Throws a {@link PreflightError} after printing the fatal
   * block when any check has errors that are not ignored (never in dry-run).
   */
  async run(checks: readonly Check[]): Promise<void> {
    const out = this.#opts.out;
    const errorLines: string[] = [];
    const started = out.log ? [] : checks.map((check) => outcomeOf(check, this.#host));
    for (const [i, check] of checks.entries()) {
      let outcome = await (started[i] ?? outcomeOf(check, this.#host, out.log));
      outcome = downgradeAccessDenials(outcome);
      const ignored = this.#ignore.has(check.name) && outcome.errors.length > 0;
      const warnings = ignored ? [...outcome.warnings, ...outcome.errors] : outcome.warnings;
      const errors = ignored ? [] : outcome.errors;
      const result: CheckResult = {
        name: check.name,
        severity: check.severity,
        status: errors.length > 0
          ? "error"
          : ignored
          ? "ignored"
          : warnings.length > 0
          ? "warning"
          : "pass",
        messages: [
          ...outcome.warnings.map((text): CheckMessage => ({ level: "warning", text })),
          ...outcome.errors.map((text): CheckMessage => ({ level: "error", text })),
        ],
      };
      if (outcome.stdout?.length) result.details = outcome.stdout.map(stripColours);
      this.#results.push(result);
      if (!this.json) {
        for (const line of outcome.stdout ?? []) out.info(line);
        for (const w of warnings) out.warn(`\t[WARNING ${check.name}]: ${w}`);
      }
      for (const e of errors) errorLines.push(`[ERROR ${check.name}]: ${e}`);
    }
    if (errorLines.length === 0) return;
    if (this.#opts.dryRun) {
      if (!this.json) { for (const line of errorLines) out.warn(`[preflight] dry-run: ${line}`); }
      this.#failed = true;
      return;
    }
    this.#failed = true;
    if (this.json) {
      this.#printReport();
    } else {
      out.warn("[preflight] Some fatal errors occurred:");
      for (const line of errorLines) out.warn(`\t${line}`);
      out.warn(IGNORE_HINT);
    }
    throw new PreflightError("preflight checks failed", { hint: failureHint(errorLines) });
  }

  /** The report as it stands. */
  report(): PreflightReport {
    return {
      kind: "PreflightReport",
      command: this.#opts.command,
      dryRun: this.#opts.dryRun ?? false,
      failed: this.#failed,
      checks: [...this.#results],
    };
  }

  /** Ends the run: prints the JSON report (once) in JSON mode; returns the report. */
  finish(): PreflightReport {
    if (this.json) this.#printReport();
    return this.report();
  }

  #printReport(): void {
    if (this.#printed) return;
    this.#printed = true;
    this.#opts.out.info(JSON.stringify(this.report(), null, 2));
  }
}

/** What `check` finds; a check that throws has found that error. */
async function outcomeOf(check: Check, host: Machine, log?: LogFn): Promise<CheckOutcome> {
  try {
    return await check.run(host, log);
  } catch (e) {
    return { warnings: [], errors: [errorMessage(e)] };
  }
}

/**
 * A runtime that was not given access to part of the host (Deno's `NotCapable`: "Requires run
 * access to ...") cannot inspect it. That is not a finding about the host, so it becomes a
 * warning saying the check could not be made, never an error (dry runs run with narrow
 * permissions).
 */
function downgradeAccessDenials(outcome: CheckOutcome): CheckOutcome {
  const denied = (text: string) =>
    /Requires (\w+ )?access to .*run again with the --allow-\w+ flag/.test(text);
  const errors = outcome.errors.filter((e) => !denied(e));
  if (errors.length === outcome.errors.length && !outcome.warnings.some(denied)) return outcome;
  const notChecked = (text: string) => `could not be checked without more permissions: ${text}`;
  return {
    ...outcome,
    errors,
    warnings: [
      ...outcome.warnings.map((w) => denied(w) ? notChecked(w) : w),
      ...outcome.errors.filter(denied).map(notChecked),
    ],
  };
}
