/**
 * The `kubeadm` command line: upstream-compatible commands and flags over the core.
 *
 * Start-up loads only what the command run needs. A command line a command can run without the
 * command-line library ({@link directRun}: `version` with plain flags) runs at once; any other
 * builds, on commander, only the sub-tree of the top-level command it names (`cli/program.ts`;
 * the whole tree for the root's help, completion and unknown commands). Heavy modules (PKI,
 * YAML, the workflows' phases) are imported inside the commands that use them.
 *
 * @module
 */
import { errorMessage, KubeadmError, redactSecrets } from "../core/errors.ts";
import { stderr } from "./output.ts";
import { envGet } from "../runtime/host/env.ts";
import { directRun } from "./direct.ts";

/** Parses and runs a command line on commander; returns the exit status of a parse outcome. */
async function runProgram(argv: string[]): Promise<number> {
  const [{ CommanderError }, { buildProgram, commandToLoad }, { normaliseArgv }] = await Promise
    .all([import("commander"), import("./program.ts"), import("./flags.ts")]);
  const program = await buildProgram(commandToLoad(argv));
  // Upstream's bare `kubeadm` prints its help (to stdout) and succeeds.
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(normaliseArgv(argv), { from: "user" });
    return 0;
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    if (e.code === "commander.helpDisplayed" || e.code === "commander.version") return 0;
    if (e.code === "commander.help") return 0;
    return e.exitCode === 0 ? 0 : 1;
  }
}

/** Runs the CLI and returns the process exit status. */
export async function main(argv: string[]): Promise<number> {
  try {
    if (await directRun(argv)) return 0;
    return await runProgram(argv);
  } catch (e) {
    if (e instanceof KubeadmError) {
      stderr(redactSecrets(e.message));
      if (e.hint) stderr(`hint: ${redactSecrets(e.hint)}`);
      return e.exitCode;
    }
    stderr(redactSecrets(errorMessage(e)));
    if (envGet("KUBEADM_TS_DEBUG") && e instanceof Error && e.stack) stderr(e.stack);
    return 1;
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
