/**
 * The one list of the command line's top-level commands, in registration (root help) order.
 * It imports nothing but types: each command's module is imported when that command is built
 * (`cli/program.ts`) or run without commander (`cli/direct.ts`).
 *
 * @module
 */
import type { Command } from "commander";
import type { CommandName, FlagName, GivenFlags } from "./flags.ts";

/** A top-level command: its name and the registration its module exports, loaded on demand. */
export interface TopLevelCommand {
  name: CommandName;
  load(): Promise<(program: Command) => void>;
  /**
   * The run without the command-line library of `kubeadm <name> <path…>` (the sub-command names
   * given), for a command that has one; `undefined` leaves the command line to commander.
   */
  direct?(path: readonly string[]): Promise<DirectCommand | undefined>;
}

/**
 * A command that can also run without commander (see `cli/direct.ts`): the registry's flags it
 * accepts, besides the global ones, and its run from the flags given.
 */
export interface DirectCommand {
  flags: readonly FlagName[];
  run(given: GivenFlags): Promise<void>;
}

/** Every top-level command, in registration (root help) order. */
export const COMMANDS: readonly TopLevelCommand[] = [
  {
    name: "init",
    load: async () => (await import("./commands/init.ts")).registerInit,
    direct: async (path) => {
      const [{ INIT_COMMAND }, { directWorkflowCommand }] = await Promise.all([
        import("./commands/init.ts"),
        import("./workflow_command.ts"),
      ]);
      return directWorkflowCommand(INIT_COMMAND, {}, path);
    },
  },
  { name: "token", load: async () => (await import("./commands/token.ts")).registerToken },
  {
    name: "join",
    load: async () => (await import("./commands/join.ts")).registerJoin,
    direct: async (path) => {
      const [{ joinCommand }, { directWorkflowCommand }] = await Promise.all([
        import("./commands/join.ts"),
        import("./workflow_command.ts"),
      ]);
      return directWorkflowCommand(joinCommand(), {}, path);
    },
  },
  {
    name: "discovery-check",
    load: async () => (await import("./commands/discovery_check.ts")).registerDiscoveryCheck,
  },
  {
    name: "reset",
    load: async () => (await import("./commands/reset.ts")).registerReset,
    direct: async (path) => {
      const [{ resetCommand }, { directWorkflowCommand }] = await Promise.all([
        import("./commands/reset.ts"),
        import("./workflow_command.ts"),
      ]);
      return directWorkflowCommand(resetCommand(), {}, path);
    },
  },
  { name: "certs", load: async () => (await import("./commands/certs.ts")).registerCerts },
  {
    name: "kubeconfig",
    load: async () => (await import("./commands/kubeconfig.ts")).registerKubeconfig,
  },
  { name: "upgrade", load: async () => (await import("./commands/upgrade.ts")).registerUpgrade },
  {
    name: "config",
    load: async () => (await import("./commands/config.ts")).registerConfig,
    direct: async (path) => (await import("./commands/config.ts")).directConfigCommand(path),
  },
  {
    name: "completion",
    load: async () => (await import("./commands/completion.ts")).registerCompletion,
  },
  {
    name: "version",
    load: async () => (await import("./commands/version.ts")).registerVersion,
    direct: async (path) => {
      if (path.length > 0) return undefined;
      const { VERSION_FLAGS, runVersion } = await import("./commands/version.ts");
      return { flags: VERSION_FLAGS, run: (given) => runVersion(given.values()) };
    },
  },
];
