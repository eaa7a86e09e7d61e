/**
 * The `kubeadm` command line: upstream-compatible commands and flags over the core.
 *
 * Start-up loads only what the command run needs. A command line a command can run without the
 * command-line library ({@link directRun}: `version`, the `config print` defaults and the
 * workflows with plain flags) runs at once; any other builds, on commander, only the sub-tree of
 * the top-level command it names (`cli/program.ts`; the whole tree for the root's help,
 * completion and unknown commands). Heavy modules (PKI, YAML, the workflows' phases) are
 * imported inside the commands that use them.
 *
 * @module
 */
import { errorMessage, ExitCode, KubeadmError, redactSecrets } from "../core/errors.ts";
import { type CliStreams, stderr, withStreams, writeStderr } from "./output.ts";
import type { Printer } from "../core/ports/printer.ts";
import { envGet, exitProcess, processArgs, processStreams } from "../adapters/deno/process.ts";
import { directRun } from "./direct.ts";
import { verbosityOf } from "./flags.ts";

/** What a caller running the command line in-process may supply (the fuzzer, tests). */
export interface MainOptions {
  /** Where output goes and input comes from (default: the process's standard streams). */
  streams?: CliStreams;
  /**
   * Called with what a failed run threw, after its message is printed: a caller can tell a
   * {@link KubeadmError} (a failure the core reports on purpose) from anything else (a bug).
   */
  onError?: (error: unknown) => void;
}

/**
 * Runs the CLI on `argv` (without the program name) and returns the process exit status, one of
 * {@link ExitCode}'s. The process entry below and in-process callers use this same function.
 */
export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  const log = await verboseLogger(argv);
  return await withStreams(options.streams ?? processStreams, async () => {
    try {
      if (await directRun(argv)) return ExitCode.success;
      return await runProgram(argv);
    } catch (e) {
      options.onError?.(e);
      return report(e, verbosityOf(argv));
    }
  }, log);
}

/**
 * The klog-style logger of `--v`/`--vmodule` (`cli/klog.ts`), loaded only when the command
 * line may show a log line.
 */
async function verboseLogger(argv: string[]): Promise<Printer["log"]> {
  if (verbosityOf(argv) === 0 && !argv.some((a) => a.startsWith("--vmodule"))) return undefined;
  const { commandLineLogger } = await import("./klog.ts");
  return commandLineLogger(argv, writeStderr);
}

/** Parses and runs a command line on commander; returns the exit status of a parse outcome. */
async function runProgram(argv: string[]): Promise<number> {
  const [{ CommanderError }, { buildProgram, commandToLoad }, { normaliseArgv }] = await Promise
    .all([import("commander"), import("./program.ts"), import("./flags.ts")]);
  const program = await buildProgram(commandToLoad(argv));
  // Upstream's bare `kubeadm` prints its help (to stdout) and succeeds.
  if (argv.length === 0) {
    program.outputHelp();
    return ExitCode.success;
  }
  try {
    await program.parseAsync(normaliseArgv(argv), { from: "user" });
    return ExitCode.success;
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    // Help and version requests are not failures; commander printed its other errors.
    if (
      e.exitCode === 0 || e.code === "commander.helpDisplayed" ||
      e.code === "commander.version" || e.code === "commander.help"
    ) return ExitCode.success;
    return ExitCode.generic;
  }
}

/** Upstream's last line of a failure (kubeadm's `CheckErr`) below log level 5. */
const STACK_TRACE_HINT = "To see the stack trace of this error execute with --v=5 or higher";

/**
 * Prints a failure as upstream does (`error: <message>`, then the stack-trace hint, or at
 * `--v=5` and above the stack itself), with kubeadm-ts's `hint:` line between; secrets
 * redacted. Returns the exit status.
 */
function report(e: unknown, verbosity: number): number {
  const message = redactSecrets(errorMessage(e));
  // Upstream ends the message with a newline even when it has one (a JSONPath failure's does).
  writeStderr(`${message.startsWith("error: ") ? message : `error: ${message}`}\n`);
  if (e instanceof KubeadmError && e.hint) stderr(`hint: ${redactSecrets(e.hint)}`);
  const stack = e instanceof Error ? e.stack : undefined;
  if ((verbosity >= 5 || envGet("KUBEADM_TS_DEBUG")) && stack) stderr(redactSecrets(stack));
  else stderr(STACK_TRACE_HINT);
  return e instanceof KubeadmError ? e.exitCode : ExitCode.generic;
}

if (import.meta.main) {
  exitProcess(await main(processArgs()));
}
