/**
 * The printer port: kubeadm's output lines (progress, warnings) and its verbose log lines, as
 * data the face decides how to show (the CLI on stdout and stderr, a plan keeps them).
 *
 * @module
 */

/** Line-oriented output, in kubeadm's `[phase] message` style. */
export interface Printer {
  /** A normal progress line (stdout). */
  info(line: string): void;
  /** A warning (stderr). */
  warn(line: string): void;
  /**
   * A verbose log line (upstream's `klog.V(level)`): data, which the caller decides to show
   * (the CLI at `--v` ≥ `level`, klog-style on stderr) or drop. `source` is the base name of
   * the module that logs (`tree.ts`), for `--vmodule` and the line's header. Optional: a
   * printer without it drops them.
   */
  log?: LogFn;
}

/**
 * Where a verbose log line goes: `level` is upstream's (`1` for `klog.V(1)`), `source` the
 * base name of the module that logs. Pure functions (configuration resolution) take one as
 * an option and otherwise log nothing.
 */
export type LogFn = (level: number, source: string, message: string) => void;
