/**
 * The CLI's {@link Printer}: progress lines to stdout, warnings to stderr, secrets redacted.
 *
 * @module
 */
import type { Printer } from "../core/host/ports.ts";

const enc = new TextEncoder();

/** Writes a line to stdout synchronously (ordering matters when mixed with stderr). */
export function stdout(line: string): void {
  Deno.stdout.writeSync(enc.encode(line.endsWith("\n") ? line : `${line}\n`));
}

/** Writes a line to stderr synchronously. */
export function stderr(line: string): void {
  Deno.stderr.writeSync(enc.encode(line.endsWith("\n") ? line : `${line}\n`));
}

/** Printer over the process's standard streams. */
export const consolePrinter: Printer = {
  info: stdout,
  warn: stderr,
};
