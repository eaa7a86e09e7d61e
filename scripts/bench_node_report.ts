/**
 * What `scripts/bench-node` makes of its runs, whatever the mode: each run cut into spans at the
 * lines that start a phase (in wall time, or in the process's CPU time), medians per tool, and
 * the printed report (per phase, CPU per phase, totals, the floor and the ratios against
 * upstream and against the floor).
 *
 * @module
 */
import type { Impl, NodeRun } from "./bench_node_measure.ts";

/** The span a line starts (a name), or undefined when it starts none. */
export type PhaseOf = (text: string) => string | undefined;

/** What a mode tells the report. */
export interface ModeFigures {
  /** The command timed: `init`, `join`. */
  command: string;
  /** What ran where, for the report's first lines (ends before "; medians of …"). */
  describe: string;
  /** The span each line starts. */
  phaseOf: PhaseOf;
  /** Names of spans that are not just their phase. */
  spanLabels?: Record<string, string>;
  /** A run's floor figures (ms). */
  floorOf(run: NodeRun): Map<string, number>;
  /** The floor figure the totals are set against. */
  floorKey: string;
}

/**
 * The run's spans: `start-up` (to the first line), then each phase to the next one's start; in
 * wall time, or with `cpu` in CPU time (the process's when each line arrived; the last phase
 * ends at `/usr/bin/time`'s total, its children included).
 */
export function phaseSpans(
  run: NodeRun,
  mode: Pick<ModeFigures, "phaseOf" | "spanLabels">,
  cpu = false,
): Map<string, number> {
  const starts: [string, number][] = [["start-up", cpu ? 0 : run.started]];
  for (const { at, text, cpu: cpuAt } of run.lines) {
    const phase = mode.phaseOf(text);
    if (phase === undefined || starts.some(([p]) => p === phase)) continue;
    if (cpu && cpuAt === undefined) return new Map();
    starts.push([phase, cpu ? cpuAt! : at]);
  }
  const end = cpu ? run.cpuMs : run.ended;
  return new Map(
    starts.map((
      [phase, at],
      i,
    ) => [mode.spanLabels?.[phase] ?? phase, (starts[i + 1]?.[1] ?? end) - at]),
  );
}

/** When the first line matching `re` arrived. */
export const lineAt = (run: NodeRun, re: RegExp): number | undefined =>
  run.lines.find((l) => re.test(l.text))?.at;

/** The median (of at least one number). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Medians per key over runs. */
export function medians(maps: Map<string, number>[]): Map<string, number> {
  const keys = [...new Set(maps.flatMap((m) => [...m.keys()]))];
  return new Map(keys.map((k) => [k, median(maps.flatMap((m) => m.get(k) ?? []))]));
}

/** Milliseconds as seconds, right-aligned; `-` for none. */
export const s = (ms: number | undefined): string =>
  ms === undefined ? "     -" : (ms / 1000).toFixed(2).padStart(6);
/** `a / b` as `1.23x`; `-` when either is missing. */
export const ratio = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined || b === 0 ? "    -" : `${(a / b).toFixed(2)}x`.padStart(6);

/** A run's one-line summary and, with `trace`, its timeline. */
export function printRun(
  round: number,
  run: NodeRun,
  command: string,
  load: string,
  trace: boolean,
): void {
  console.log(
    `run ${round} ${run.impl.padEnd(8)} ${command} ${s(run.ended - run.started)} s, CPU ${
      s(run.cpuMs)
    } s  (load ${load})`,
  );
  if (!trace) return;
  for (const l of run.lines) console.log(`  +${s(l.at - run.started)}  ${l.text}`);
  for (const [k, at] of Object.entries(run.healthy)) {
    console.log(`  +${s(at - run.started)}  (probe) ${k} healthy`);
  }
}

/** What the report is made of. */
export interface Report {
  mode: ModeFigures;
  impls: Impl[];
  runs: NodeRun[];
  rounds: number;
  loadBefore: string;
  loadAfter: string;
  /** The `--before` checkout, if any. */
  before?: string;
}

/** Prints the medians per phase, the CPU per phase, the totals, the floor and the ratios. */
export function printReport({ mode, impls, runs, rounds, loadBefore, loadAfter, before }: Report) {
  const { command } = mode;
  const of = (impl: Impl) => runs.filter((r) => r.impl === impl);
  const total = new Map(impls.map((i) => [i, median(of(i).map((r) => r.ended - r.started))]));
  const cpu = new Map(impls.map((i) => [i, median(of(i).map((r) => r.cpuMs))]));
  const spans = new Map(impls.map((i) => [i, medians(of(i).map((r) => phaseSpans(r, mode)))]));
  const cpuSpans = new Map(
    impls.map((i) => [i, medians(of(i).map((r) => phaseSpans(r, mode, true)))]),
  );
  const floors = new Map(impls.map((i) => [i, medians(of(i).map((r) => mode.floorOf(r)))]));
  const allFloors = medians(runs.map((r) => mode.floorOf(r)));
  const floor = allFloors.get(mode.floorKey);
  const head = (label: string) =>
    `  ${label.padEnd(42)}${impls.map((i) => i.padStart(9)).join("")}`;
  const row = (label: string, xs: (number | undefined)[]) =>
    `  ${label.padEnd(42)}${xs.map((x) => s(x).padStart(9)).join("")}`;

  console.log(`
${mode.describe}; medians of ${rounds} run(s) each, order alternating; seconds. Load before: ${loadBefore};
after: ${loadAfter}.${before ? `\n"before" is ${before}.` : ""}

Per phase (from each line's arrival; a phase ends where the next one prints):
${head("phase")}   ours/upstream`);
  const phases = [...new Set(impls.flatMap((i) => [...spans.get(i)!.keys()]))];
  for (const p of phases) {
    const xs = impls.map((i) => spans.get(i)!.get(p));
    console.log(`${row(p, xs)}   ${ratio(xs[0], xs.at(-1))}`);
  }
  console.log(`
CPU time per phase (the process's, user + system, its reaped children included, read from /proc
as each line arrived; 10 ms ticks):
${head("phase")}   ours/upstream`);
  const cpuPhases = [...new Set(impls.flatMap((i) => [...cpuSpans.get(i)!.keys()]))];
  for (const p of cpuPhases) {
    const xs = impls.map((i) => cpuSpans.get(i)!.get(p));
    console.log(`${row(p, xs)}   ${ratio(xs[0], xs.at(-1))}`);
  }
  const totals = impls.map((i) => total.get(i));
  const cpus = impls.map((i) => cpu.get(i));
  console.log(
    `${row(`total (wall time of ${command})`, totals)}   ${ratio(totals[0], totals.at(-1))}
${row(`CPU time of ${command} (user+sys, children too)`, cpus)}   ${ratio(cpus[0], cpus.at(-1))}

Floor (the components themselves, probed every 25 ms in the node; medians per tool's runs):
${head("figure")}      all`,
  );
  for (const k of allFloors.keys()) {
    console.log(
      `${row(k, impls.map((i) => floors.get(i)!.get(k)))}${s(allFloors.get(k)).padStart(9)}`,
    );
  }
  console.log(`
Wall time of ${command}, median (the floor: ${mode.floorKey}, ${s(floor)} s):`);
  for (const i of impls) {
    const t = total.get(i);
    console.log(
      `  ${i.padEnd(9)} ${s(t)} s   ${ratio(t, total.get("upstream"))} upstream   ${
        ratio(t, floor)
      } the floor${i === "upstream" ? "   (kubeadm v1.37.2)" : ""}`,
    );
  }
}
