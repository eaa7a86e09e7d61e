/**
 * How `scripts/bench-node` times one `kubeadm` command inside a real node, whatever the mode:
 * the command runs under `/usr/bin/time` (its wall time and its CPU time, user + system, its
 * children included), each line it prints is timestamped as it arrives together with the CPU
 * time the process had used by then (from `/proc`), and the floor probe
 * (scripts/bench_node_probe.ts) runs beside it in the node.
 *
 * @module
 */
import type { ClusterNode } from "../tests/support/cluster.ts";
import { repoRoot } from "../tests/support/repo.ts";
import type { ModeFigures } from "./bench_node_report.ts";

/** What is timed: ours, upstream, and with `--before` another checkout of ours. */
export type Impl = "ours" | "upstream" | "before";

/**
 * A line of the command's output, when it arrived (ms since the epoch) and the CPU time the
 * command's process had used by then (ms, its reaped children included; from `/proc`).
 */
export interface Line {
  at: number;
  text: string;
  cpu?: number;
}

/** One timed command. */
export interface NodeRun {
  impl: Impl;
  started: number;
  ended: number;
  /** CPU time of the command, user + system, its children included (ms). */
  cpuMs: number;
  lines: Line[];
  /** Probe figure → when it was first seen (ms since the epoch), from the probe. */
  healthy: Record<string, number>;
}

/** A mode of the benchmark: what it times and how the report reads it. */
export interface BenchMode extends ModeFigures {
  /**
   * Boots what every run shares (join: the control plane); `warm`: our kubeadms (not upstream's
   * binary), whose modules the mode may load once untimed, so that no run pays for Deno's first
   * load of them.
   */
  setUp(warm: string[]): Promise<void>;
  /** One timed run of `kubeadm` in round `round` (1, 2, …); throws when it fails. */
  run(impl: Impl, kubeadm: string, round: number): Promise<NodeRun>;
  /** Tears down what {@link BenchMode.setUp} booted. */
  tearDown(): Promise<void>;
}

/** The scripts' Deno. */
export const deno = `${repoRoot}/scripts/deno`;
/** The floor probe run inside the nodes. */
export const probeScript = `${repoRoot}/scripts/bench_node_probe.ts`;
/** The last line `/usr/bin/time` adds to the command's stderr: its user and system seconds. */
const CPU_LINE = "bench-node-cpu";

/**
 * Starts the floor probe in the node with `args` (see bench_node_probe.ts); resolves once it
 * runs, with its result to come (in an object: an async function returning the promise itself
 * would wait for it).
 */
export async function startProbe(
  node: ClusterNode,
  args: string[],
): Promise<{ result: Promise<Record<string, number>> }> {
  let ready!: () => void;
  const running = new Promise<void>((r) => ready = r);
  const done = node.exec(
    [deno, "run", "--allow-all", "--no-prompt", "--config", `${repoRoot}/deno.json`, probeScript]
      .concat(args),
    { timeoutMs: 180_000, onLine: (_, l) => l === "ready" && ready() },
  );
  await Promise.race([running, done.then((r) => Promise.reject(new Error(`probe: ${r.stderr}`)))]);
  const result = done.catch((e) => ({ code: -1, stdout: "", stderr: String(e) })).then((r) => {
    const last = r.stdout.trim().split("\n").at(-1) ?? "";
    if (r.code === 0 && last.startsWith("{")) return JSON.parse(last);
    // The run still counts; only its floor figures are missing.
    console.error(`probe failed (exit ${r.code}): ${r.stdout.slice(-500)}${r.stderr.slice(-2000)}`);
    return {};
  });
  return { result };
}

/** `/proc/<pid>/stat`'s fields after the command name (field 3, the state, first). */
function statFields(pid: number): string[] {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * The process running `kubeadm <subcommand> … <marker> …` (the launcher execs Deno, so its PID
 * is Deno's): of the processes whose command line holds both, the one whose parent is one of
 * them too (`/usr/bin/time`) and that is no one's parent among them.
 */
function kubeadmProcess(subcommand: string, marker: string): number | undefined {
  const found = new Map<number, number>();
  for (const e of Deno.readDirSync("/proc")) {
    const pid = Number(e.name);
    if (!Number.isInteger(pid)) continue;
    try {
      const argv = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0");
      if (argv.includes(marker) && argv.includes(subcommand)) {
        found.set(pid, Number(statFields(pid)[1]));
      }
    } catch {
      // Gone, or not ours to read.
    }
  }
  const parents = new Set(found.values());
  return [...found].find(([pid, ppid]) => found.has(ppid) && !parents.has(pid))?.[0];
}

/** CPU time (ms) of a process and its reaped children: utime + stime + cutime + cstime. */
function processCpuMs(pid: number): number | undefined {
  try {
    const f = statFields(pid);
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10; // 100 Hz ticks
  } catch {
    return undefined;
  }
}

/** What {@link timeKubeadm} runs. */
export interface KubeadmCommand {
  impl: Impl;
  /** The `kubeadm` executable. */
  kubeadm: string;
  /** Its arguments, the subcommand first (`init`, `join`). */
  args: string[];
  /** An argument no other process has (the config's path, the node's name): finds the process. */
  marker: string;
  /** The probe's arguments (bench_node_probe.ts). */
  probe: string[];
}

/**
 * Runs the command in the node under `/usr/bin/time` with the probe beside it; throws with its
 * output and the kubelet's log when it fails.
 */
export async function timeKubeadm(node: ClusterNode, c: KubeadmCommand): Promise<NodeRun> {
  const probe = await startProbe(node, c.probe);
  const lines: Line[] = [];
  let pid: number | undefined;
  /** The process's CPU time now (found at the first line: by then it runs Deno). */
  const cpuNow = () => {
    pid ??= kubeadmProcess(c.args[0], c.marker);
    return pid === undefined ? undefined : processCpuMs(pid);
  };
  const started = Date.now();
  const r = await node.exec(
    ["/usr/bin/time", "-f", `${CPU_LINE} %U %S`, c.kubeadm, ...c.args],
    {
      timeoutMs: 10 * 60_000,
      onLine: (_, text) => lines.push({ at: Date.now(), text, cpu: cpuNow() }),
    },
  );
  const ended = Date.now();
  if (r.code !== 0) {
    const kubelet = (await node.machine.log("kubelet")).slice(-1500);
    throw new Error(
      `${c.impl} ${c.args[0]} failed:\n${r.stdout}\n${r.stderr}\n--- kubelet log:\n${kubelet}`,
    );
  }
  const cpu = new RegExp(`^${CPU_LINE} (\\S+) (\\S+)$`, "m").exec(r.stderr);
  if (!cpu) {
    throw new Error(`${c.impl} ${c.args[0]}: no CPU time from /usr/bin/time in:\n${r.stderr}`);
  }
  const cpuMs = (Number(cpu[1]) + Number(cpu[2])) * 1000;
  return { impl: c.impl, started, ended, cpuMs, lines, healthy: await probe.result };
}
