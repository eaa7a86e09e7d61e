/**
 * The `kubeadm` command line: upstream-compatible commands and flags over the core.
 *
 * Heavy modules (PKI, YAML, the workflows) are imported lazily inside each command so that
 * start-up stays cheap.
 *
 * @module
 */
import { type Command, CommanderError } from "commander";
import { errorMessage, ExitCode, KubeadmError, redactSecrets } from "../core/errors.ts";
import { type CliStreams, processStreams, stderr, withStreams } from "./output.ts";
import { envGet } from "../runtime/host/env.ts";
import { addFlags, normaliseArgv, PERSISTENT_FLAGS } from "./flags.ts";
import { KubeadmCommand } from "./command.ts";
import { registerVersion } from "./commands/version.ts";
import { registerInit } from "./commands/init.ts";
import { registerToken } from "./commands/token.ts";
import { registerConfig } from "./commands/config.ts";
import { registerCompletion } from "./commands/completion.ts";
import { registerReset } from "./commands/reset.ts";
import { registerJoin } from "./commands/join.ts";
import { registerDiscoveryCheck } from "./commands/discovery_check.ts";
import { registerCerts } from "./commands/certs.ts";
import { registerKubeconfig } from "./commands/kubeconfig.ts";

/**
 * The root command as the command line uses it (upstream's help and parse errors, each command
 * parsing exactly its own flags, the global flags on every command), with the commands
 * `register` adds. Tests register commands with their fakes through it.
 */
export function createProgram(register: (program: Command) => void): Command {
  // Positional options: a command parses exactly its own flags (a phase command rejects the
  // flags its phase does not declare); the global flags are on every command.
  const program = new KubeadmCommand("kubeadm")
    .description("kubeadm: easily bootstrap a secure Kubernetes cluster")
    .exitOverride()
    .enablePositionalOptions();
  register(program);
  addFlags(program, PERSISTENT_FLAGS, "kubeadm");
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const c of all(program).slice(1)) {
    addFlags(c, PERSISTENT_FLAGS, "kubeadm", { inherited: true });
  }
  return program;
}

/** Builds the root command with every sub-command registered. */
export function buildProgram(): Command {
  return createProgram((program) => {
    registerInit(program);
    registerToken(program);
    registerJoin(program);
    registerDiscoveryCheck(program);
    registerReset(program);
    registerCerts(program);
    registerKubeconfig(program);
    registerConfig(program);
    registerCompletion(program);
    registerVersion(program);
  });
}

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
  return await withStreams(options.streams ?? processStreams, async () => {
    try {
      return await run(argv);
    } catch (e) {
      options.onError?.(e);
      return report(e);
    }
  });
}

async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  // Upstream's bare `kubeadm` prints its help (to stdout) and succeeds.
  if (argv.length === 0) {
    program.outputHelp();
    return ExitCode.success;
  }
  try {
    await program.parseAsync(normaliseArgv(argv), { from: "user" });
    return ExitCode.success;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version requests are not failures; commander printed its other errors.
      if (
        e.exitCode === 0 || e.code === "commander.helpDisplayed" ||
        e.code === "commander.version" || e.code === "commander.help"
      ) return ExitCode.success;
    }
    throw e;
  }
}

/** Prints a failure (secrets redacted) and returns its exit status. */
function report(e: unknown): number {
  if (e instanceof CommanderError) return ExitCode.generic;
  if (e instanceof KubeadmError) {
    stderr(redactSecrets(e.message));
    if (e.hint) stderr(`hint: ${redactSecrets(e.hint)}`);
    return e.exitCode;
  }
  stderr(redactSecrets(errorMessage(e)));
  if (envGet("KUBEADM_TS_DEBUG") && e instanceof Error && e.stack) stderr(e.stack);
  return ExitCode.generic;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
