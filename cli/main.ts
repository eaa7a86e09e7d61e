/**
 * The `kubeadm` command line: upstream-compatible commands and flags over the core.
 *
 * Heavy modules (PKI, YAML, the workflows) are imported lazily inside each command so that
 * start-up stays cheap.
 *
 * @module
 */
import { type Command, CommanderError } from "commander";
import { errorMessage, KubeadmError, redactSecrets } from "../core/errors.ts";
import { stderr } from "./output.ts";
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

/** Runs the CLI and returns the process exit status. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
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
