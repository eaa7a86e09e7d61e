/**
 * Verbose log lines as upstream kubeadm prints them through klog: `--v=N` shows the core's
 * `Printer.log` lines of level ≤ N, `--vmodule=pattern=N` sets the level per source module, and
 * each line goes to stderr with klog's header (`I1124 16:30:55.210195   30852 tree.ts:123] …`).
 * The file is our own module's base name, with its line when the call is on the stack; the
 * thread column is the process id. Secrets are redacted as a backstop. Loaded only when a
 * command line asks for a level above 0 or a `--vmodule`.
 *
 * @module
 */
import { redactSecrets } from "../core/errors.ts";
import { verbosityOf } from "./flags.ts";
import { processId } from "../adapters/deno/process.ts";

/** One `--vmodule` rule: a glob over a module's base name, and its level. */
export interface ModuleRule {
  pattern: RegExp;
  level: number;
}

/** What the logger needs from the process (tests give their own). */
export interface KlogOptions {
  /** The `-v` level. */
  verbosity: number;
  /** `--vmodule` rules, first match wins (klog's order). */
  rules?: readonly ModuleRule[];
  /** Writes text to stderr as is. */
  write(text: string): void;
  /** Milliseconds since the epoch, with a fraction (default: `performance`'s clock). */
  now?: () => number;
  /** The thread column (default: the process id). */
  pid?: number;
}

/** A glob (`*`, `?`) over a whole name, as klog matches `--vmodule` patterns. */
function globPattern(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(
    /\?/g,
    ".",
  );
  return new RegExp(`^${body}$`);
}

/**
 * The rules of `--vmodule` values (`pattern=N`, comma-separated; the flag may repeat, the
 * last one wins as for pflag). Malformed parts are skipped; the flag parser reports them.
 */
export function moduleRules(argv: readonly string[]): ModuleRule[] {
  let spec = "";
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") break;
    if (a === "--vmodule") spec = argv[++i] ?? "";
    else if (a.startsWith("--vmodule=")) spec = a.slice("--vmodule=".length);
  }
  const rules: ModuleRule[] = [];
  for (const part of spec.split(",")) {
    const [glob, level] = part.split("=");
    const n = Number(level);
    if (!glob || !Number.isInteger(n)) continue;
    rules.push({ pattern: globPattern(glob), level: n });
  }
  return rules;
}

/**
 * The level a source module logs at: `-v`, or its first matching `--vmodule` rule's when that
 * is higher (klog consults `--vmodule` only when `-v` does not already allow a line, so a rule
 * raises a module's level and never lowers it).
 */
function levelFor(source: string, o: KlogOptions): number {
  const stem = source.replace(/\.[^.]*$/, "");
  for (const r of o.rules ?? []) {
    if (r.pattern.test(stem) || r.pattern.test(source)) return Math.max(o.verbosity, r.level);
  }
  return o.verbosity;
}

const pad = (n: number, width: number, fill = "0") => String(n).padStart(width, fill);

/** The line in `source` that called the logger, read from the stack when it shows it. */
function callerLine(source: string): string {
  const stack = new Error().stack ?? "";
  for (const frame of stack.split("\n").slice(1)) {
    const m = frame.match(/[/\\]([^/\\]+):(\d+):\d+\)?\s*$/);
    if (m && m[1] === source) return `:${m[2]}`;
  }
  return "";
}

/** klog's header for an info line logged at `epochMs`. */
export function klogHeader(epochMs: number, pid: number, file: string): string {
  const t = new Date(Math.floor(epochMs));
  const micros = Math.floor((epochMs - Math.floor(epochMs / 1000) * 1000) * 1000);
  return `I${pad(t.getMonth() + 1, 2)}${pad(t.getDate(), 2)} ${pad(t.getHours(), 2)}:${
    pad(t.getMinutes(), 2)
  }:${pad(t.getSeconds(), 2)}.${pad(micros, 6)} ${pad(pid, 7, " ")} ${file}] `;
}

/**
 * A `Printer.log` for the CLI: drops lines above their module's level, prints the rest klog's
 * way (one newline at the end; continuation lines of a multi-line message as they are).
 */
export function klogLogger(
  o: KlogOptions,
): (level: number, source: string, message: string) => void {
  const now = o.now ?? (() => performance.timeOrigin + performance.now());
  const pid = o.pid ?? processId();
  return (level, source, message) => {
    if (level > levelFor(source, o)) return;
    const text = klogHeader(now(), pid, `${source}${callerLine(source)}`) +
      redactSecrets(message);
    o.write(text.endsWith("\n") ? text : `${text}\n`);
  };
}

/** The logger a command line asks for, or `undefined` at `-v` 0 without `--vmodule`. */
export function commandLineLogger(
  argv: readonly string[],
  write: (text: string) => void,
): ((level: number, source: string, message: string) => void) | undefined {
  const verbosity = verbosityOf(argv);
  const rules = moduleRules(argv);
  if (verbosity <= 0 && !rules.some((r) => r.level > 0)) return undefined;
  return klogLogger({ verbosity, rules, write });
}
