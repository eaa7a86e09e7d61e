/**
 * One preflight check: a name (what `--ignore-preflight-errors` accepts), the severity a
 * failure normally has, and a `run` that returns warnings and errors, like upstream's
 * `Checker.Check() (warnings, errorList []error)`.
 *
 * @module
 */
import type { Machine } from "../ports/machine.ts";
import type { LogFn } from "../ports/printer.ts";

/** What a failing check usually is: fatal (`error`) or advisory (`warning`). */
export type Severity = "error" | "warning";

/** What one check found. */
export interface CheckOutcome {
  /** Advisory findings, printed as `[WARNING <Name>]`. */
  warnings: string[];
  /** Fatal findings, printed as `[ERROR <Name>]` unless the check is ignored. */
  errors: string[];
  /**
   * Lines the check prints on stdout before its warnings (the system-verification report
   * upstream prints when a validator fails).
   */
  stdout?: string[];
}

/** A preflight check. */
export interface Check {
  /** Upstream's check name, e.g. `Port-6443` or `FileAvailable--etc-kubernetes-kubelet.conf`. */
  readonly name: string;
  /** Severity of the check's usual failure (for listings and JSON output). */
  readonly severity: Severity;
  /**
   * Inspects the host; logs upstream's line for the check at `-v=1` as it starts
   * (`validating the existence of file …`).
   */
  run(host: Machine, log?: LogFn): Promise<CheckOutcome>;
}

/** An outcome with nothing found. */
export function pass(): CheckOutcome {
  return { warnings: [], errors: [] };
}

/** An outcome with warnings only. */
export function warn(...messages: string[]): CheckOutcome {
  return { warnings: messages, errors: [] };
}

/** An outcome with errors only. */
export function fail(...messages: string[]): CheckOutcome {
  return { warnings: [], errors: messages };
}

/** Upstream's naming rule for checks about a path: every `/` becomes `-`. */
export function pathCheckName(prefix: string, path: string): string {
  return `${prefix}-${path.replaceAll("/", "-")}`;
}
