/**
 * A {@link Printer} that keeps what was printed, for asserting log lines.
 *
 * @module
 */
import type { Printer } from "../../core/host/ports.ts";

/** Collects info and warning lines. */
export class RecordingPrinter implements Printer {
  readonly lines: string[] = [];
  readonly warnings: string[] = [];

  info(line: string): void {
    this.lines.push(line);
  }

  warn(line: string): void {
    this.warnings.push(line);
  }
}
