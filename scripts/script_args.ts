/**
 * The command line of a script (benchmarks, fuzzers, conformance): node's `parseArgs`, strict,
 * with `--help`, and bad input refused before anything runs (a benchmark must never start a
 * cluster, or take the real-node lock, on a mistyped flag).
 *
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** A script's parsed flags, and how it refuses a value. */
export interface ScriptArgs<T extends Options> {
  values: ReturnType<typeof parseArgs<{ options: T; strict: true; allowPositionals: false }>>[
    "values"
  ];
  /** Bad input: `<script>: <message>` and the usage line on stderr, exit status 2. */
  refuse(message: string): never;
  /** The flag's value as an integer ≥ `min` (default 1), refused otherwise. */
  integer(flag: keyof T & string, min?: number): number;
}

/** The usage line made from the options: `usage: scripts/<name> [--flag VALUE (default)] …`. */
export function usageLine(script: string, options: Options): string {
  const flags = Object.entries(options).map(([name, o]) => {
    if (o.type === "boolean") return `[--${name}]`;
    return o.default === undefined ? `[--${name} VALUE]` : `[--${name} VALUE (${o.default})]`;
  });
  return `usage: scripts/${script} ${flags.join(" ")}`;
}

/**
 * Parses `args` (default `Deno.args`) for `scripts/<script>`: `--help`/`-h` prints the usage
 * line (default: {@link usageLine}) and exits 0; an unknown flag, a missing value or a positional
 * argument is refused.
 */
export function scriptArgs<T extends Options>(
  script: string,
  options: T,
  { usage = usageLine(script, options), args = Deno.args }: { usage?: string; args?: string[] } =
    {},
): ScriptArgs<T> {
  const refuse = (message: string): never => {
    console.error(`scripts/${script}: ${message}\n${usage}`);
    Deno.exit(2);
  };
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usage);
    Deno.exit(0);
  }
  let values;
  try {
    values = parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    refuse(e instanceof Error ? e.message : String(e));
  }
  const parsed = values as ScriptArgs<T>["values"];
  return {
    values: parsed,
    refuse,
    integer(flag, min = 1) {
      const raw = (parsed as Record<string, unknown>)[flag];
      const n = Number(raw);
      if (typeof raw !== "string" || !/^-?\d+$/.test(raw) || n < min) {
        refuse(`--${flag}: ${JSON.stringify(raw)} is not an integer of at least ${min}`);
      }
      return n;
    },
  };
}
