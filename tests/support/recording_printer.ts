/**
 * A {@link Printer} that keeps what was printed, for asserting log lines.
 *
 * @module
 */
import type { Printer } from "../../core/ports/printer.ts";

/** A verbose log line as the core handed it over. */
export interface LoggedLine {
  level: number;
  source: string;
  message: string;
}

/** Collects info and warning lines, and the verbose log lines (`Printer.log`). */
export class RecordingPrinter implements Printer {
  readonly lines: string[] = [];
  readonly warnings: string[] = [];
  readonly logged: LoggedLine[] = [];

  info(line: string): void {
    this.lines.push(line);
  }

  warn(line: string): void {
    this.warnings.push(line);
  }

  log = (level: number, source: string, message: string): void => {
    this.logged.push({ level, source, message });
  };

  /** The messages logged at `level` or below. */
  messages(level = 1): string[] {
    return this.logged.filter((l) => l.level <= level).map((l) => l.message);
  }
}
