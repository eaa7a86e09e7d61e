/**
 * The one list of the command line's top-level commands, in registration (root help) order.
 * It imports nothing but types: each command's module is imported when that command is built
 * (`cli/program.ts`) or run without commander (`cli/direct.ts`).
 *
 * @module
 */
import type { Command } from "commander";
import type { CommandName, FlagName, FlagValues } from "./flags.ts";

/** A top-level command: its name and the registration its module exports, loaded on demand. */
export interface TopLevelCommand {
  name: CommandName;
  load(): Promise<(program: Command) => void>;
  /** The command's run without the command-line library, for a command that has one. */
  direct?(): Promise<DirectCommand>;
}

/**
 * A command that can also run without commander (see `cli/direct.ts`): the registry's flags it
 * accepts, besides the global ones, and its run from their values.
 */
export interface DirectCommand {
  flags: readonly FlagName[];
  run(values: FlagValues): Promise<void>;
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
  {
    name: "version",
    load: async () => (await import("./commands/version.ts")).registerVersion,
    direct: async () => {
      const { VERSION_FLAGS, runVersion } = await import("./commands/version.ts");
      return { flags: VERSION_FLAGS, run: runVersion };
    },
  },
];
