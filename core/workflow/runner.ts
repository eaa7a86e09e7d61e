/**
 * Runs a {@link Workflow}: all phases in order minus `--skip-phases`, or one phase on its own.
 *
 * Mirrors upstream's workflow runner: depth-first order, skipping a parent skips its
 * children, failures are wrapped as `error execution phase <path>`.
 *
 * @module
 */
import { FlagError, KubeadmError, PhaseError } from "../errors.ts";
import type { Phase, Workflow } from "./phase.ts";

/** A phase with its position in the tree. */
export interface PhaseEntry<D> {
  /** `certs/apiserver`. */
  path: string;
  phase: Phase<D>;
  /** Path of the parent, or `undefined` for top-level phases. */
  parent?: string;
  /** Nesting depth (0 for top level). */
  depth: number;
}

/** All phases of a workflow in depth-first order, with their paths. */
export function listPhases<D>(workflow: Workflow<D>): PhaseEntry<D>[] {
  const out: PhaseEntry<D>[] = [];
  const walk = (phases: readonly Phase<D>[], parent: string | undefined, depth: number) => {
    for (const phase of phases) {
      const path = parent ? `${parent}/${phase.name}` : phase.name;
      out.push({ path, phase, parent, depth });
      if (phase.phases) walk(phase.phases, path, depth + 1);
    }
  };
  walk(workflow.phases, undefined, 0);
  return out;
}

function normalise<D>(workflow: Workflow<D>, name: string): string | undefined {
  const wanted = name.trim().replace(/^\/+|\/+$/g, "");
  for (const entry of listPhases(workflow)) {
    if (entry.path === wanted) return entry.path;
    const aliases = entry.phase.aliases ?? [];
    const parentPrefix = entry.parent ? `${entry.parent}/` : "";
    if (aliases.some((a) => parentPrefix + a === wanted)) return entry.path;
  }
  return undefined;
}

/** Valid `--skip-phases` values of a workflow (every path, `all` phases excluded). */
export function skippablePhases<D>(workflow: Workflow<D>): string[] {
  return listPhases(workflow).filter((e) => !e.phase.runAllSiblings).map((e) => e.path);
}

/**
 * Checks and normalises `--skip-phases` values; unknown names raise a {@link FlagError}
 * listing the valid ones.
 */
export function resolveSkipPhases<D>(workflow: Workflow<D>, skip: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of skip) {
    if (raw.trim() === "") continue;
    const path = normalise(workflow, raw);
    if (!path) {
      throw new FlagError(`phase "${raw}" does not exist in the "${workflow.name}" workflow`, {
        field: "--skip-phases",
        value: raw,
        hint: `valid phases: ${skippablePhases(workflow).join(", ")}`,
      });
    }
    out.push(path);
  }
  return out;
}

function isSkipped(path: string, skip: readonly string[]): boolean {
  return skip.some((s) => path === s || path.startsWith(`${s}/`));
}

/** Options of {@link runWorkflow}. */
export interface RunOptions {
  /** Normalised `--skip-phases` (see {@link resolveSkipPhases}). */
  skip?: readonly string[];
  /** Run only this phase path (and its sub-phases), as `kubeadm init phase <path>` does. */
  only?: string;
  /** Called before a phase's `run`; lets the CLI print or time phases. */
  onPhase?: (path: string) => void;
}

async function runTree<D>(
  phases: readonly Phase<D>[],
  parent: string | undefined,
  data: D,
  opts: RunOptions,
): Promise<void> {
  for (const phase of phases) {
    if (phase.runAllSiblings) continue;
    const path = parent ? `${parent}/${phase.name}` : phase.name;
    if (isSkipped(path, opts.skip ?? [])) continue;
    if (phase.runIf && !phase.runIf(data)) continue;
    await runOne(phase, path, data, opts);
    if (phase.phases) await runTree(phase.phases, path, data, opts);
  }
}

async function runOne<D>(phase: Phase<D>, path: string, data: D, opts: RunOptions) {
  if (!phase.run) return;
  opts.onPhase?.(path);
  try {
    await phase.run(data);
  } catch (e) {
    if (e instanceof PhaseError) throw e;
    throw new PhaseError(path, e);
  }
}

/**
 * Predicts which phase paths a {@link runWorkflow} call with these options will run (ignoring
 * `runIf`). Phases use it to prepare work ahead, e.g. generating keys concurrently.
 */
export function phaseSelector<D>(
  workflow: Workflow<D>,
  opts: RunOptions,
): (path: string) => boolean {
  if (opts.only === undefined) return (path) => !isSkipped(path, opts.skip ?? []);
  const only = normalise(workflow, opts.only);
  const entry = listPhases(workflow).find((e) => e.path === only);
  if (!entry) return () => false;
  const root = entry.phase.runAllSiblings ? entry.parent : entry.path;
  if (root === undefined) return () => true;
  return (path) => path === root || path.startsWith(`${root}/`) || path === entry.parent;
}

/**
 * The workflow with the top-level phases a run needs loaded (a phase outline's `load`): all of
 * them, or with `only` the one holding that phase.
 */
export async function loadPhases<D>(workflow: Workflow<D>, only?: string): Promise<Workflow<D>> {
  const top = only === undefined ? undefined : normalise(workflow, only)?.split("/")[0];
  const phases = await Promise.all(workflow.phases.map(async (phase) => {
    if (!phase.load || (only !== undefined && phase.name !== top)) return phase;
    const loaded = await phase.load();
    if (loaded.name !== phase.name) {
      throw new KubeadmError(`phase outline ${phase.name} loaded phase ${loaded.name}`, {
        hint: "an outline is generated from its workflow: generate it again",
      });
    }
    return loaded;
  }));
  return { ...workflow, phases };
}

/** Runs a workflow (or one phase of it) against `data`, loading the phases it runs. */
export async function runWorkflow<D>(
  outline: Workflow<D>,
  data: D,
  opts: RunOptions = {},
): Promise<void> {
  const workflow = await loadPhases(outline, opts.only);
  if (opts.only === undefined) {
    await runTree(workflow.phases, undefined, data, opts);
    return;
  }
  const path = normalise(workflow, opts.only);
  const entry = listPhases(workflow).find((e) => e.path === path);
  if (!entry) {
    throw new FlagError(`phase "${opts.only}" does not exist in the "${workflow.name}" workflow`, {
      value: opts.only,
      hint: `valid phases: ${listPhases(workflow).map((e) => e.path).join(", ")}`,
    });
  }
  if (entry.phase.runAllSiblings) {
    const siblings = entry.parent
      ? listPhases(workflow).find((e) => e.path === entry.parent)?.phase.phases ?? []
      : workflow.phases;
    if (entry.parent) {
      const parentEntry = listPhases(workflow).find((e) => e.path === entry.parent)!;
      await runOne(parentEntry.phase, parentEntry.path, data, opts);
    }
    await runTree(siblings, entry.parent, data, { ...opts, skip: [] });
    return;
  }
  if (entry.phase.runIf && !entry.phase.runIf(data)) return;
  if (entry.parent) {
    // Upstream runs the parent's own preamble (e.g. the "[certs] Using certificateDir" line).
    const parentEntry = listPhases(workflow).find((e) => e.path === entry.parent)!;
    await runOne(parentEntry.phase, parentEntry.path, data, opts);
  }
  await runOne(entry.phase, entry.path, data, opts);
  if (entry.phase.phases) {
    await runTree(entry.phase.phases, entry.path, data, { ...opts, skip: [] });
  }
}
