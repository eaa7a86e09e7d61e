/**
 * `kubeadm completion bash|zsh`: prints a shell completion script for the whole command line
 * (commands, phases, aliases and flags), generated from the command tree.
 *
 * @module
 */
import type { Command } from "commander";
import { UsageError } from "../command.ts";
import { setExample, useArguments } from "../help.ts";
import { writeStdout } from "../output.ts";

const SHELLS = ["bash", "zsh"] as const;

const LONG = `Prints shell code that completes kubeadm's commands, phases and flags when it is
loaded into the shell (bash or zsh); put it in your shell's start-up file to keep it.
For zsh, the completion system must be initialised first (autoload -U compinit; compinit).`;

const EXAMPLE = `  # Load completion into the current bash or zsh session
  source <(kubeadm completion bash)
  source <(kubeadm completion zsh)

  # Load it in every new bash session
  kubeadm completion bash > ~/.kube/kubeadm_completion.bash.inc
  echo "source '$HOME/.kube/kubeadm_completion.bash.inc'" >> ~/.bashrc`;

/** Registers `completion SHELL`. */
export function registerCompletion(program: Command): void {
  const cmd = program.command("completion")
    .summary("Output shell completion code for the specified shell (bash or zsh)")
    .description(LONG)
    .argument("[SHELL...]");
  useArguments(cmd, "SHELL").action(async (shells: string[], _o: unknown, c: Command) => {
    if (shells.length === 0) throw new UsageError("shell not specified");
    if (shells.length > 1) {
      throw new UsageError("too many arguments. expected only the shell type");
    }
    const shell = shells[0];
    if (!(SHELLS as readonly string[]).includes(shell)) {
      throw new UsageError(
        `unsupported shell type ${JSON.stringify(shell)}, the supported shell types are [${
          SHELLS.join(" ")
        }]`,
      );
    }
    let root = c;
    while (root.parent) root = root.parent;
    const { bashCompletion, zshCompletion } = await import("../completion.ts");
    const text = shell === "bash" ? bashCompletion(root) : zshCompletion(root);
    writeStdout(text);
  });
  setExample(cmd, EXAMPLE);
}
