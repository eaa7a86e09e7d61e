/**
 * The `kubeadm` command line: upstream-compatible commands and flags over the core.
 *
 * Heavy modules (PKI, YAML, the workflows) are imported lazily inside each command so that
 * start-up stays cheap.
 *
 * @module
 */
import { Command, CommanderError } from "commander";
import { errorMessage, KubeadmError, redactSecrets } from "../core/errors.ts";
import { stderr } from "./output.ts";
import { envGet } from "../runtime/host/env.ts";
import { addFlags, normaliseArgv, PERSISTENT_FLAGS } from "./flags.ts";
import { registerVersion } from "./commands/version.ts";
import { registerInit } from "./commands/init.ts";
import { registerToken } from "./commands/token.ts";
import { registerConfig } from "./commands/config.ts";
import { registerReset } from "./commands/reset.ts";
import { registerJoin } from "./commands/join.ts";
import { registerDiscoveryCheck } from "./commands/discovery_check.ts";
import { registerCerts } from "./commands/certs.ts";
import { registerKubeconfig } from "./commands/kubeconfig.ts";
import { registerUpgrade } from "./commands/upgrade.ts";

/** Builds the root command with every sub-command registered. */
export function buildProgram(): Command {
  // Positional options: a command parses exactly its own flags (a phase command rejects the
  // flags its phase does not declare); the global flags are on every command.
  const program = new Command("kubeadm")
    .description("kubeadm: easily bootstrap a secure Kubernetes cluster")
    .showHelpAfterError()
    .exitOverride()
    .enablePositionalOptions()
    .configureOutput({ writeOut: (s) => Deno.stdout.writeSync(new TextEncoder().encode(s)) });
  registerInit(program);
  registerToken(program);
  registerJoin(program);
  registerDiscoveryCheck(program);
  registerReset(program);
  registerCerts(program);
  registerKubeconfig(program);
  registerUpgrade(program);
  registerConfig(program);
  registerVersion(program);
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const c of all(program)) addFlags(c, PERSISTENT_FLAGS, "kubeadm");
  return program;
}

/** Runs the CLI and returns the process exit status. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
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
