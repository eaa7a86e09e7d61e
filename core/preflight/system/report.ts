/**
 * The system-verification report: one `KEY: value` line per item, coloured like upstream's
 * `StreamReporter` (key white; value green when good, yellow for a warning, red when bad).
 *
 * @module
 */

/** How one reported item fared. */
export type ReportResult = "good" | "warn" | "bad";

const COLOUR: Record<ReportResult, number> = { good: 32, warn: 33, bad: 31 };
const WHITE = 37;

function colourise(s: string, colour: number): string {
  return `\x1b[0;${colour}m${s}\x1b[0m`;
}

/** Collects report lines in order. */
export class ValidationReport {
  readonly #lines: string[] = [];

  /** Records one item. */
  report(key: string, value: string, result: ReportResult): void {
    this.#lines.push(`${colourise(key, WHITE)}: ${colourise(value, COLOUR[result])}`);
  }

  /** The coloured lines, as upstream prints them. */
  get lines(): string[] {
    return [...this.#lines];
  }
}

/** Removes ANSI colour codes (for JSON output). */
export function stripColours(line: string): string {
  // deno-lint-ignore no-control-regex
  return line.replace(/\x1b\[[0-9;]*m/g, "");
}
