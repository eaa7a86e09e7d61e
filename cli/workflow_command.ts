/**
 * The one way a workflow becomes a command line: `kubeadm <name> [argument]` runs every phase
 * minus `--skip-phases` (the flag, else the configuration's list), and `kubeadm <name> phase
 * <phase> [<sub-phase>]` runs one, each command with exactly the flags its phase declares (from
 * the registry in `cli/flags.ts`). A command only says how to prepare a run from the parsed
 * flags ({@link WorkflowCommand.prepare}); `init`, `join` and `reset` (and later `upgrade`) are
 * declared this way.
 *
 * @module
 */
import type { Command } from "commander";
import type { NodeHost } from "../core/host/node.ts";
import type { Printer } from "../core/host/ports.ts";
import type { Phase, Workflow } from "../core/workflow/phase.ts";
import type { RunOptions } from "../core/workflow/runner.ts";
import {
  addFlags,
  type CommandName,
  type FlagName,
  type FlagValues,
  flagValues,
  setFlagNames,
} from "./flags.ts";
import { consolePrinter, stdout } from "./output.ts";

/** What a caller (a test) can hand to a workflow command instead of this machine. */
export interface CommandDeps {
  /** Progress and warnings (default: the process's stdout and stderr). */
  out?: Printer;
  /** The node (default: this machine under `--rootfs`). */
  node?: (rootfs: string) => NodeHost;
}

/** One invocation of a workflow command, as its `prepare` sees it. */
export interface Invocation {
  /** The flags the user set, typed. */
  values: FlagValues;
  /**
   * Names of the configuration flags the user set (for the `--config` mixing check); empty for
   * `phase` commands.
   */
  setFlags: string[];
  /** The flags this command accepts. */
  accepts: readonly string[];
  /** The positional argument, when the command takes one. */
  argument?: string;
  /** The phase path of a `phase` command; absent for the whole workflow. */
  only?: string;
  /** `--rootfs` (default `/`). */
  rootfs: string;
  out: Printer;
}

/** A prepared run. */
export interface WorkflowRun<D> {
  data: D;
  /** The configuration's `skipPhases`, used when `--skip-phases` is not given. */
  skipPhases?: readonly string[];
  /** Runs the workflow (default: the runner); reset adds its closing notes. */
  execute?(options: RunOptions): Promise<void>;
  /** After a successful run: the dry-run report, the closing message. */
  finish?(): Promise<void>;
  /** After every run: releases connections. */
  close?(): void;
}

/** A workflow command's declaration. */
export interface WorkflowCommand<D extends { willRun?: (phasePath: string) => boolean }> {
  /** Names the command's flag help in the registry (`upgrade apply`). */
  name: CommandName;
  /** The word on the command line when it differs from `name` (`apply` under `upgrade`). */
  use?: string;
  /** One-line help (the description when there is no `description`). */
  summary: string;
  /** Longer help. */
  description?: string;
  /** Positional argument of the top-level command (join's `[api-server-endpoint]`). */
  argument?: string;
  /** Flags of the top-level command (phases declare their own). */
  flags: readonly FlagName[];
  /** The workflow; building it must stay cheap (phases load their modules when they run). */
  workflow(): Workflow<D>;
  /** Resolves flags, configuration and host into a run. */
  prepare(invocation: Invocation, deps: CommandDeps): Promise<WorkflowRun<D>>;
}

async function run<D extends { willRun?: (phasePath: string) => boolean }>(
  spec: WorkflowCommand<D>,
  deps: CommandDeps,
  cmd: Command,
  accepts: readonly string[],
  argument: string | undefined,
  only: string | undefined,
): Promise<void> {
  const { phaseSelector, resolveSkipPhases, runWorkflow } = await import(
    "../core/workflow/runner.ts"
  );
  const values = flagValues(cmd);
  const workflow = spec.workflow();
  const skip = only ? [] : resolveSkipPhases(workflow, values["skip-phases"] ?? []);
  const prepared = await spec.prepare({
    values,
    // As before the registry, only the workflow command itself checks `--config` mixing
    // (upstream checks phase commands too; the CLI-parity work decides).
    setFlags: only ? [] : setFlagNames(cmd),
    accepts,
    argument,
    only,
    rootfs: values.rootfs ?? "/",
    out: deps.out ?? consolePrinter,
  }, deps);
  try {
    const options: RunOptions = {
      skip: only || skip.length > 0 ? skip : resolveSkipPhases(workflow, prepared.skipPhases ?? []),
      only,
    };
    prepared.data.willRun = phaseSelector(workflow, options);
    await (prepared.execute ?? ((o) => runWorkflow(workflow, prepared.data, o)))(options);
  } finally {
    prepared.close?.();
  }
  await prepared.finish?.();
}

function addPhaseCommands<D extends { willRun?: (phasePath: string) => boolean }>(
  spec: WorkflowCommand<D>,
  deps: CommandDeps,
  parent: Command,
  phases: readonly Phase<D>[],
  prefix: string,
): void {
  for (const phase of phases) {
    const path = prefix ? `${prefix}/${phase.name}` : phase.name;
    const cmd = parent.command(phase.name, { hidden: phase.hidden }).description(phase.short);
    for (const alias of phase.aliases ?? []) cmd.alias(alias);
    if (phase.long) cmd.summary(phase.short).description(phase.long);
    if (phase.phases && phase.phases.length > 0) {
      addPhaseCommands(spec, deps, cmd, phase.phases, path);
      if (!phase.run) {
        cmd.action(() => {
          stdout(
            "This command is not meant to be run on its own. See list of available subcommands.",
          );
          cmd.outputHelp();
        });
        continue;
      }
    }
    const accepts = phase.flags ?? [];
    if (phase.argsUsage) cmd.argument(phase.argsUsage);
    addFlags(cmd, accepts, spec.name);
    cmd.action(async (...args: unknown[]) => {
      const c = args[args.length - 1] as Command;
      const argument = phase.argsUsage ? args[0] as string | undefined : undefined;
      await run(spec, deps, c, accepts, argument, path);
    });
  }
}

/** Registers the workflow's command and its generated `phase` sub-commands. */
export function registerWorkflowCommand<D extends { willRun?: (phasePath: string) => boolean }>(
  program: Command,
  spec: WorkflowCommand<D>,
  deps: CommandDeps = {},
): Command {
  const word = spec.use ?? spec.name;
  const cmd = program.command(word).summary(spec.summary)
    .description(spec.description ?? spec.summary);
  if (spec.argument) cmd.argument(spec.argument);
  addFlags(cmd, spec.flags, spec.name).action(async (...args: unknown[]) => {
    const c = args[args.length - 1] as Command;
    const argument = spec.argument ? args[0] as string | undefined : undefined;
    await run(spec, deps, c, spec.flags, argument, undefined);
  });
  const phase = cmd.command("phase").description(
    `Use this command to invoke single phase of the "${word}" workflow`,
  );
  // The workflow module only declares phases; implementations load lazily when a phase runs.
  addPhaseCommands(spec, deps, phase, spec.workflow().phases, "");
  return cmd;
}
