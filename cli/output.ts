/**
 * The CLI's standard streams and its {@link Printer}: progress lines to stdout, warnings to
 * stderr. Every byte the command line prints goes through here, so a caller of `main` (the
 * fuzzer, tests) can run the real entry in-process with its own streams ({@link withStreams}).
 *
 * @module
 */
import type { Printer } from "../core/ports/printer.ts";
import { processStreams } from "../adapters/deno/process.ts";

/** Where the CLI's output and input go: the process's streams, or a caller's. */
export interface CliStreams {
  /** Writes text to standard output as is. */
  stdout(text: string): void;
  /** Writes text to standard error as is. */
  stderr(text: string): void;
  /** Standard input (`discovery-check --cluster-info -`, `reset`'s prompt). */
  stdin(): ReadableStream<Uint8Array>;
}

let current: CliStreams = processStreams;
/** Where `Printer.log` lines go: `cli/klog.ts`'s logger at `--v` > 0, else nowhere. */
let verboseLog: Printer["log"];

/**
 * Runs `fn` with the CLI's output going to `streams`, and its verbose log lines to `log` (by
 * default where they went). A command line run is process-wide (its environment, its working
 * directory), so runs with their own streams are made one at a time.
 */
export async function withStreams<T>(
  streams: CliStreams,
  fn: () => Promise<T>,
  log: Printer["log"] = verboseLog,
): Promise<T> {
  const previous = { streams: current, log: verboseLog };
  current = streams;
  verboseLog = log;
  try {
    return await fn();
  } finally {
    current = previous.streams;
    verboseLog = previous.log;
  }
}

/** Writes text to stdout as is. */
export function writeStdout(text: string): void {
  current.stdout(text);
}

/** Writes text to stderr as is. */
export function writeStderr(text: string): void {
  current.stderr(text);
}

/** The CLI's standard input. */
export function stdinStream(): ReadableStream<Uint8Array> {
  return current.stdin();
}

/** Writes a line to stdout (a newline added unless it ends with one). */
export function stdout(line: string): void {
  writeStdout(line.endsWith("\n") ? line : `${line}\n`);
}

/** Writes a line to stderr (a newline added unless it ends with one). */
export function stderr(line: string): void {
  writeStderr(line.endsWith("\n") ? line : `${line}\n`);
}

/** Printer over the CLI's standard streams. */
export const consolePrinter: Printer = {
  info: stdout,
  warn: stderr,
  log: (level, source, message) => verboseLog?.(level, source, message),
};
