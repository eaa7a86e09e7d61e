/**
 * The `kubeadm` command line: upstream-compatible commands and flags over the core.
 *
 * Start-up loads only what the command run needs: the top-level commands are one list
 * ({@link COMMANDS}), each registered by its own module, imported when that command is run (the
 * whole tree only for the root's help, completion and unknown commands); heavy modules (PKI,
 * YAML, the workflows' phases) are imported inside the commands that use them.
 *
 * @module
 */
import { type Command, CommanderError } from "commander";
import { errorMessage, KubeadmError, redactSecrets } from "../core/errors.ts";
import { stderr } from "./output.ts";
import { envGet } from "../runtime/host/env.ts";
import { addFlags, normaliseArgv, PERSISTENT_FLAGS } from "./flags.ts";
import { KubeadmCommand } from "./command.ts";

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

/** A top-level command: its name and the registration its module exports, loaded on demand. */
interface TopLevelCommand {
  name: string;
  load(): Promise<(program: Command) => void>;
}

/** Every top-level command, in registration (root help) order. */
export const COMMANDS: readonly TopLevelCommand[] = [
  { name: "init", load: async () => (await import("./commands/init.ts")).registerInit },
  { name: "token", load: async () => (await import("./commands/token.ts")).registerToken },
  { name: "join", load: async () => (await import("./commands/join.ts")).registerJoin },
  {
    name: "discovery-check",
    load: async () => (await import("./commands/discovery_check.ts")).registerDiscoveryCheck,
  },
  { name: "reset", load: async () => (await import("./commands/reset.ts")).registerReset },
  { name: "certs", load: async () => (await import("./commands/certs.ts")).registerCerts },
  {
    name: "kubeconfig",
    load: async () => (await import("./commands/kubeconfig.ts")).registerKubeconfig,
  },
  { name: "config", load: async () => (await import("./commands/config.ts")).registerConfig },
  {
    name: "completion",
    load: async () => (await import("./commands/completion.ts")).registerCompletion,
  },
  { name: "version", load: async () => (await import("./commands/version.ts")).registerVersion },
];

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
function commandToLoad(argv: readonly string[]): string | undefined {
  const first = argv[0];
  if (first === "completion") return undefined;
  return COMMANDS.some((c) => c.name === first) ? first : undefined;
}

/** Runs the CLI and returns the process exit status. */
export async function main(argv: string[]): Promise<number> {
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
    if (e instanceof CommanderError) {
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version") return 0;
      if (e.code === "commander.help") return 0;
      return e.exitCode === 0 ? 0 : 1;
    }
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
