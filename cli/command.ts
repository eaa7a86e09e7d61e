/**
 * The command class of the whole command line: commander's `Command` with upstream kubeadm's
 * (cobra and pflag) help layout and parse errors. Parse errors are thrown as
 * {@link FlagError}s in pflag's and cobra's words (`unknown flag: --tokn`, `unknown command
 * "x" for "kubeadm init"`), naming the flag but never echoing the value that followed it: a
 * mistyped `--tokn=<secret>` must not print the secret. Only the root has a `help` command,
 * as in cobra.
 *
 * @module
 */
import { Command, type Option } from "commander";
import { commandPath, formatHelp } from "./help.ts";
import { writeStderr, writeStdout } from "./output.ts";
import { UsageError } from "./usage.ts";

export { requireSubcommand, UsageError } from "./usage.ts";

/** A command of the kubeadm command line (sub-commands are created as this class too). */
export class KubeadmCommand extends Command {
  constructor(name?: string) {
    super(name);
    this.configureHelp({ formatHelp: (cmd) => formatHelp(cmd) });
    this.configureOutput({
      writeOut: writeStdout,
      writeErr: writeStderr,
    });
  }

  /** Sub-commands share the class, its help and errors; only the root has `help`. */
  override createCommand(name?: string): Command {
    return new KubeadmCommand(name).helpCommand(false);
  }

  /** pflag: `unknown flag: --name` (without `=value`), `unknown shorthand flag: 'x' in -x`. */
  unknownOption(flag: string): never {
    if (flag.startsWith("--")) {
      const name = flag.slice(2).split("=")[0];
      throw new UsageError(`unknown flag: --${name}`, { field: `--${name}` });
    }
    const letter = flag.slice(1, 2);
    throw new UsageError(`unknown shorthand flag: '${letter}' in -${letter}`, {
      field: `-${letter}`,
    });
  }

  /** cobra: `unknown command "x" for "kubeadm init phase"`. */
  unknownCommand(): never {
    const name = this.args[0] ?? "";
    throw new UsageError(`unknown command ${JSON.stringify(name)} for "${commandPath(this)}"`);
  }

  /** cobra's `NoArgs` / `MaximumNArgs` errors. */
  _excessArguments(received: string[]): never {
    const max = this.registeredArguments.length;
    if (max === 0) {
      throw new UsageError(
        `unknown command ${JSON.stringify(received[0])} for "${commandPath(this)}"`,
      );
    }
    throw new UsageError(`accepts at most ${max} arg(s), received ${received.length}`);
  }

  /** pflag: `flag needs an argument: --name`. */
  optionMissingArgument(option: Option): never {
    throw new UsageError(`flag needs an argument: ${option.long ?? option.short}`, {
      field: option.long ?? option.short,
    });
  }
}
