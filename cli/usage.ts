/**
 * Usage errors of the command line, in upstream's (cobra's and pflag's) words, apart from the
 * command class (`cli/command.ts`) so that modules declaring commands do not load commander.
 *
 * @module
 */
import type { Command } from "commander";
import { ExitCode, KubeadmError } from "../core/errors.ts";

/**
 * A command line that does not parse: an unknown flag, command or argument, a missing value or
 * sub-command. Exit status 1, as upstream's.
 */
export class UsageError extends KubeadmError {
  override readonly code = "ERR_USAGE";
  override readonly exitCode = ExitCode.generic;
}

/**
 * Makes a command that only groups sub-commands behave as upstream's: run alone, it prints its
 * help and fails with `subcommand is required`.
 */
export function requireSubcommand(cmd: Command): Command {
  return cmd.action(() => {
    cmd.outputHelp();
    throw new UsageError("subcommand is required");
  });
}
