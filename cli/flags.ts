/**
 * pflag-compatible flag handling on top of commander.
 *
 * kubeadm users write `--dry-run=false`, repeat `--ignore-preflight-errors` or comma-split it,
 * and pass durations like `--token-ttl 2h`. These helpers give commander the same behaviour.
 *
 * @module
 */

/** Collector for repeatable, comma-splittable string-slice flags (pflag StringSlice). */
export function collectList(value: string, previous: string[] = []): string[] {
  return previous.concat(value.split(",").map((s) => s.trim()).filter((s) => s !== ""));
}

/** Collector for repeatable flags whose values are kept whole (pflag StringArray). */
export function collectArray(value: string, previous: string[] = []): string[] {
  return previous.concat(value);
}

/**
 * Rewrites `--flag=true|false` for the given boolean flags into commander's `--flag` /
 * `--no-flag` form, so pflag-style boolean assignments work.
 */
export function normaliseBoolFlags(argv: string[], boolFlags: ReadonlySet<string>): string[] {
  return argv.map((arg) => {
    const m = arg.match(/^--([a-z0-9-]+)=(true|false|1|0|t|f|TRUE|FALSE|True|False)$/);
    if (!m || !boolFlags.has(m[1])) return arg;
    const on = ["true", "1", "t", "TRUE", "True"].includes(m[2]);
    return on ? `--${m[1]}` : `--no-${m[1]}`;
  });
}

/** The `-o, --output` flag of the `preflight` phases (a JSON report of every check). */
export const PREFLIGHT_OUTPUT_FLAG = {
  flags: "-o, --output <format>",
  description: "Output format: text or json (a report of every check).",
} as const;

/** Checks a preflight `--output` value (`text` when absent). */
export async function parsePreflightOutput(value: string | undefined): Promise<"text" | "json"> {
  const output = value ?? "text";
  if (output === "text" || output === "json") return output;
  const { FlagError } = await import("../core/errors.ts");
  throw new FlagError(`invalid output format ${JSON.stringify(output)}`, {
    field: "--output",
    value: output,
    hint: "use text or json",
  });
}
