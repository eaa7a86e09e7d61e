/**
 * The command tree on commander: the root command (upstream's help and parse errors, the global
 * flags) and the top-level commands of `cli/command_list.ts`, whose modules are imported only
 * when their command is built, so a run builds only its own command's sub-tree.
 *
 * @module
 */
import type { Command } from "commander";
import { addFlags, PERSISTENT_FLAGS } from "./flags.ts";
import { KubeadmCommand } from "./command.ts";
import { COMMANDS } from "./command_list.ts";

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

/**
 * Builds the root command with every top-level command registered, or only `only` (what a
 * run of that command needs: a command's parsing, help and errors depend on its own sub-tree).
 */
export async function buildProgram(only?: string): Promise<Command> {
  const selected = COMMANDS.filter((c) => only === undefined || c.name === only);
  const registrations = await Promise.all(selected.map((c) => c.load()));
  return createProgram((program) => {
    for (const register of registrations) register(program);
  });
}

/**
 * The top-level command a command line runs, when only its sub-tree is needed: not for a bare
 * `kubeadm`, a leading flag, `help`, an unknown command, or `completion` (which walks the tree).
 */
export function commandToLoad(argv: readonly string[]): string | undefined {
  const first = argv[0];
  if (first === "completion") return undefined;
  return COMMANDS.some((c) => c.name === first) ? first : undefined;
}
