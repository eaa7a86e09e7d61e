/**
 * The one way a workflow becomes a command line: `kubeadm <name> [argument]` runs every phase
 * minus `--skip-phases` (the flag, else the configuration's list), and `kubeadm <name> phase
 * <phase> [<sub-phase>]` runs one, each command with exactly the flags its phase declares (from
 * the registry in `cli/flags.ts`). As upstream's workflow runner: a hidden phase gets no
 * command (it still runs, and `--skip-phases` still names it), a phase with sub-phases only
 * groups them (no flags; run alone it prints its help and fails), and every command, phases
 * included, refuses `--config` mixed with configuration flags before anything is read. A
 * command only says how to prepare a run from the parsed flags
 * ({@link WorkflowCommand.prepare}); `init`, `join` and `reset` (and later `upgrade`) are
 * declared this way.
 *
 * @module
 */
import type { Command } from "commander";
import { validateMixedArguments } from "../core/config/mixed_flags.ts";
import type { NodeHost } from "../core/ports/node.ts";
import type { Printer } from "../core/ports/printer.ts";
import type { Phase, Workflow } from "../core/workflow/phase.ts";
import type { RunOptions } from "../core/workflow/runner.ts";
import {
  addFlags,
  type CommandName,
  type FlagName,
  flagOf,
  flagValues,
  type GivenFlags,
  inputsOf,
  setFlagNames,
} from "./flags.ts";
import type { Inputs } from "../core/config/inputs.ts";
import { consolePrinter } from "./output.ts";
import { requireSubcommand } from "./usage.ts";
import type { DirectCommand } from "./command_list.ts";

/** What a caller (a test) can hand to a workflow command instead of this machine. */
export interface CommandDeps {
  /** Progress and warnings (default: the process's stdout and stderr). */
  out?: Printer;
  /** The node (default: this machine under `--rootfs`). */
  node?: (rootfs: string) => NodeHost;
}

/** One invocation of a workflow command, as its `prepare` sees it. */
export interface Invocation {
  /** What the flags the user set give (`inputsOf`; `--config` mixing is already checked). */
  inputs: Inputs;
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
  /**
   * The workflow's outline (`cli/phase_outlines.ts`): cheap to build, each phase's module loaded
   * when it runs.
   */
  workflow(): Workflow<D>;
  /** Resolves flags, configuration and host into a run. */
  prepare(invocation: Invocation, deps: CommandDeps): Promise<WorkflowRun<D>>;
}

/** The flags commander parsed for `cmd`. */
function commanderFlags(cmd: Command): GivenFlags {
  return { set: setFlagNames(cmd), values: () => flagValues(cmd) };
}

async function run<D extends { willRun?: (phasePath: string) => boolean }>(
  spec: WorkflowCommand<D>,
  deps: CommandDeps,
  given: GivenFlags,
  accepts: readonly string[],
  argument: string | undefined,
  only: string | undefined,
): Promise<void> {
  const { phaseSelector, resolveSkipPhases, runWorkflow } = await import(
    "../core/workflow/runner.ts"
  );
  // Upstream's data initialiser checks this for the workflow and every phase command alike.
  validateMixedArguments(given.set);
  const flags = given.values();
  const workflow = spec.workflow();
  const skip = only ? [] : resolveSkipPhases(workflow, flags["skip-phases"] ?? []);
  const prepared = await spec.prepare({
    inputs: inputsOf(flags),
    accepts,
    argument,
    only,
    rootfs: flags.rootfs ?? "/",
    out: deps.out ?? consolePrinter,
  }, deps);
  try {
    const { faultInjectionArmed, faultPoint } = await import("../adapters/deno/fault_injection.ts");
    const options: RunOptions = {
      skip: only || skip.length > 0 ? skip : resolveSkipPhases(workflow, prepared.skipPhases ?? []),
      only,
      onPhase: faultInjectionArmed() ? (path) => faultPoint(`phase:${path}`) : undefined,
    };
    prepared.data.willRun = phaseSelector(workflow, options);
    await (prepared.execute ?? ((o) => runWorkflow(workflow, prepared.data, o)))(options);
  } finally {
    prepared.close?.();
  }
  await prepared.finish?.();
}

/** The flags a phase's command accepts: those bound to its inputs. */
function phaseFlags<D>(phase: Phase<D>): FlagName[] {
  return (phase.inputs ?? []).map(flagOf);
}

function addPhaseCommands<D extends { willRun?: (phasePath: string) => boolean }>(
  spec: WorkflowCommand<D>,
  deps: CommandDeps,
  parent: Command,
  phases: readonly Phase<D>[],
  prefix: string,
): void {
  for (const phase of phases) {
    // Upstream creates no command for a hidden phase.
    if (phase.hidden) continue;
    const path = prefix ? `${prefix}/${phase.name}` : phase.name;
    const cmd = parent.command(phase.name).description(phase.short);
    for (const alias of phase.aliases ?? []) cmd.alias(alias);
    if (phase.long) cmd.summary(phase.short).description(phase.long);
    if (phase.phases && phase.phases.length > 0) {
      addPhaseCommands(spec, deps, cmd, phase.phases, path);
      requireSubcommand(cmd);
      continue;
    }
    const accepts = phaseFlags(phase);
    if (phase.argsUsage) cmd.argument(phase.argsUsage);
    addFlags(cmd, accepts, spec.name);
    cmd.action(async (...args: unknown[]) => {
      const c = args[args.length - 1] as Command;
      const argument = phase.argsUsage ? args[0] as string | undefined : undefined;
      await run(spec, deps, commanderFlags(c), accepts, argument, path);
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
  const workflow = spec.workflow();
  // Upstream names the workflow by its usage line (`apply [version]`).
  const usage = spec.argument ? `${word} ${spec.argument}` : word;
  const cmd = program.command(word).summary(spec.summary)
    .description(`${spec.description ?? spec.summary}\n\n${phaseListHelp(usage, workflow)}`);
  if (spec.argument) cmd.argument(spec.argument);
  addFlags(cmd, spec.flags, spec.name).action(async (...args: unknown[]) => {
    const c = args[args.length - 1] as Command;
    const argument = spec.argument ? args[0] as string | undefined : undefined;
    await run(spec, deps, commanderFlags(c), spec.flags, argument, undefined);
  });
  const phase = requireSubcommand(
    cmd.command("phase").description(
      `Use this command to invoke single phase of the "${word}" workflow`,
    ),
  );
  // The outline only names phases; their modules load when a phase runs.
  addPhaseCommands(spec, deps, phase, workflow.phases, "");
  return cmd;
}

/**
 * The command `kubeadm <name> <path…>` names, to run without commander (`cli/direct.ts`): the
 * workflow itself, or a runnable phase command (`phase <name> [<sub-phase>]`, by name or alias,
 * not hidden, without sub-phases), each followed by its optional positional argument when it
 * takes one (`join <endpoint>`, `join phase preflight <endpoint>`: commander's `args[0]`);
 * `undefined` for anything else, which commander parses.
 */
export function directWorkflowCommand<D extends { willRun?: (phasePath: string) => boolean }>(
  spec: WorkflowCommand<D>,
  deps: CommandDeps,
  path: readonly string[],
): DirectCommand | undefined {
  if (path[0] !== "phase") {
    if (path.length > (optionalArgument(spec.argument) ? 1 : 0)) return undefined;
    const argument = path[0];
    return {
      flags: spec.flags,
      run: (given) => run(spec, deps, given, spec.flags, argument, undefined),
    };
  }
  let phases: readonly Phase<D>[] = spec.workflow().phases;
  let phase: Phase<D> | undefined;
  const names: string[] = [];
  let rest = path.slice(1);
  while (rest.length > 0 && (phase === undefined || phases.length > 0)) {
    phase = phases.find((p) => !p.hidden && (p.name === rest[0] || p.aliases?.includes(rest[0])));
    if (!phase) return undefined;
    names.push(phase.name);
    phases = phase.phases ?? [];
    rest = rest.slice(1);
  }
  if (!phase || phases.length > 0) return undefined;
  if (rest.length > (optionalArgument(phase.argsUsage) ? 1 : 0)) return undefined;
  const accepts = phaseFlags(phase);
  const only = names.join("/");
  const argument = rest[0];
  return { flags: accepts, run: (given) => run(spec, deps, given, accepts, argument, only) };
}

/** A command's positional argument that may be left out (`[api-server-endpoint]`). */
function optionalArgument(usage: string | undefined): boolean {
  return usage?.startsWith("[") ?? false;
}

/**
 * The phase list upstream appends to a workflow command's help: every visible phase with its
 * one-line help, sub-phases as `/name` (upstream's "all" phases left out).
 */
function phaseListHelp<D>(name: string, workflow: Workflow<D>): string {
  // Upstream pads each name (`/name` below the top) to the longest plus two, after the
  // indentation of its level.
  const rows: { depth: number; use: string; short: string }[] = [];
  const visit = (phases: readonly Phase<D>[], depth: number) => {
    for (const p of phases) {
      if (p.hidden || p.runAllSiblings) continue;
      rows.push({ depth, use: `${depth > 0 ? "/" : ""}${p.name}`, short: p.short });
      visit(p.phases ?? [], depth + 1);
    }
  };
  visit(workflow.phases, 0);
  const width = Math.max(...rows.map((r) => r.use.length)) + 2;
  return `The ${JSON.stringify(name)} command executes the following phases:\n\`\`\`\n${
    rows.map((r) => `${"  ".repeat(r.depth)}${r.use.padEnd(width)}${r.short}`).join("\n")
  }\n\`\`\`\n`;
}
