/**
 * The real-node `init` benchmark behind `scripts/bench-node`: `kubeadm init` wall time on a
 * fresh real node (tests/support/cluster.ts: its own namespaces, containerd v2.4.2, the real
 * kubelet running the static Pods from the local images), ours vs upstream kubeadm v1.37.2
 * (scripts/k8s-bins), each run on its own identical fresh node with the same config and the
 * same ignored preflight checks, alternating which goes first. Only the `init` command is
 * timed (node boot and tear-down are not).
 *
 * The breakdown: each line the command prints is timestamped as it arrives, and a phase spans
 * from its first line to the next phase's first line (both tools print the same lines; a
 * phase that prints only when it is done, as `addons`, is counted with the one before it,
 * as the table's names say). The floor: a probe inside the node
 * (scripts/bench_node_probe.ts) polls the components' own health endpoints every 25 ms, giving
 * the time from the kubelet's start (the `[kubelet-start] Starting the kubelet` line) to each
 * component's first healthy answer; the gap between that and the tool's own "is healthy" line
 * is the tool's wait lag. Prints each run, per-phase medians and ratios against upstream and
 * against the floor, and the CPU time of each `init` (user + system, its children included, from
 * `/usr/bin/time`): on a node whose cores are shared (a fleet booting at once) that is what
 * every other machine waits for.
 *
 * Usage: scripts/deno run -A scripts/bench_node.ts [--runs N] [--max-minutes M] [--before DIR]
 *   [--keys ecdsa|rsa] [--trace]   (as root; default 5 runs each, fewer when a new round would
 *   start after M minutes; `--before DIR` also times another checkout of ours, e.g. the commit
 *   before a change; `--keys rsa`: kubeadm's default RSA-2048 keys instead of the test
 *   configuration's ECDSA-P256, as most clusters are made; `--trace` prints each run's
 *   timeline)
 *
 * @module
 */
import { scriptArgs } from "./script_args.ts";
import {
  type ClusterNode,
  createClusterNode,
  PREFLIGHT_IGNORED_CONTROL_PLANE,
  writeInitConfig,
} from "../tests/support/cluster.ts";
import { kubeadmLauncher } from "../tests/support/commands.ts";
import { k8sBinDir } from "../tests/support/k8s_bins.ts";
import { repoRoot } from "../tests/support/repo.ts";

const args = scriptArgs("bench-node", {
  runs: { type: "string", default: "5" },
  trace: { type: "boolean", default: false },
  before: { type: "string" },
  keys: { type: "string", default: "ecdsa" },
  "max-minutes": { type: "string" },
});
const { values } = args;
const runs = args.integer("runs");
if (values.keys !== "ecdsa" && values.keys !== "rsa") {
  args.refuse(`--keys: ${values.keys} (ecdsa or rsa)`);
}
/** The test configuration's key type, or kubeadm's default (RSA-2048) with `--keys rsa`. */
async function writeBenchConfig(node: ClusterNode): Promise<string> {
  const path = await writeInitConfig(node);
  if (values.keys === "rsa") {
    const text = await Deno.readTextFile(path);
    const rsa = text.replace(/^encryptionAlgorithm: ECDSA-P256$/m, "encryptionAlgorithm: RSA-2048");
    if (rsa === text) throw new Error(`no encryptionAlgorithm line to change in ${path}`);
    await Deno.writeTextFile(path, rsa);
  }
  return path;
}

/** What is timed: ours, upstream, and with `--before` another checkout of ours. */
type Impl = "ours" | "upstream" | "before";
const impls: Impl[] = values.before ? ["ours", "before", "upstream"] : ["ours", "upstream"];

/** The `kubeadm` command of an implementation. */
async function kubeadmOf(impl: Impl): Promise<string> {
  if (impl === "ours") return kubeadmLauncher();
  if (impl === "before") return `${values.before}/scripts/kubeadm`;
  return `${await k8sBinDir()}/kubeadm`;
}

/**
 * A line of the command's output, when it arrived (ms since the epoch) and the CPU time the
 * command's process had used by then (ms, its reaped children included; from `/proc`).
 */
interface Line {
  at: number;
  text: string;
  cpu?: number;
}

/** One timed `init`. */
interface InitRun {
  impl: Impl;
  started: number;
  ended: number;
  /** CPU time of the command, user + system, its children included (ms). */
  cpuMs: number;
  lines: Line[];
  /** Endpoint → first healthy answer (ms since the epoch), from the probe. */
  healthy: Record<string, number>;
}

/** The phase a line's `[tag]` belongs to (tags that phases print besides their own name). */
const TAG_PHASE: Record<string, string> = {
  "kubelet-check": "wait-control-plane",
  "control-plane-check": "wait-control-plane",
  kubelet: "upload-config",
};
/** Tags that several phases print and that start no phase: `[patches]` (kubelet-start's, …). */
const SHARED_TAGS = new Set(["init", "patches"]);
/**
 * Names of spans that are not just their phase: `addons` prints each addon's line once it is
 * applied, so the span before its first line holds CoreDNS's work.
 */
const SPAN_LABEL: Record<string, string> = {
  "kubelet-finalize": "kubelet-finalize + addon CoreDNS",
  addons: "addon kube-proxy",
};

const deno = `${repoRoot}/scripts/deno`;
/** The last line `/usr/bin/time` adds to the command's stderr: its user and system seconds. */
const CPU_LINE = "bench-node-cpu";
const probeScript = `${repoRoot}/scripts/bench_node_probe.ts`;

/**
 * Starts the floor probe in the node; resolves once it runs, with its result to come (in an
 * object: an async function returning the promise itself would wait for it).
 */
async function startProbe(
  node: ClusterNode,
): Promise<{ result: Promise<Record<string, number>> }> {
  let ready!: () => void;
  const running = new Promise<void>((r) => ready = r);
  const done = node.exec(
    [
      deno,
      "run",
      "--allow-all",
      "--no-prompt",
      "--config",
      `${repoRoot}/deno.json`,
      probeScript,
      node.ip,
    ],
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
 * The process running `kubeadm init --config <config>` (the launcher execs Deno, so its PID is
 * Deno's): of the processes whose command line names the config, the one whose parent is one of
 * them too (`/usr/bin/time`) and that is no one's parent among them.
 */
function initProcess(config: string): number | undefined {
  const found = new Map<number, number>();
  for (const e of Deno.readDirSync("/proc")) {
    const pid = Number(e.name);
    if (!Number.isInteger(pid)) continue;
    try {
      const argv = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0");
      if (argv.includes(config) && argv.includes("init")) {
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

/** One `init` on a fresh node (throws when init fails). */
async function timeInit(impl: Impl): Promise<InitRun> {
  const node = await createClusterNode("cp1");
  try {
    const config = await writeBenchConfig(node);
    const kubeadm = await kubeadmOf(impl);
    const probe = await startProbe(node);
    const lines: Line[] = [];
    let pid: number | undefined;
    /** The init process's CPU time now (found at the first line: by then it runs Deno). */
    const cpuNow = () => {
      pid ??= initProcess(config);
      return pid === undefined ? undefined : processCpuMs(pid);
    };
    const started = Date.now();
    const r = await node.exec(
      [
        "/usr/bin/time",
        "-f",
        `${CPU_LINE} %U %S`,
        kubeadm,
        "init",
        "--config",
        config,
        `--ignore-preflight-errors=${PREFLIGHT_IGNORED_CONTROL_PLANE}`,
      ],
      {
        timeoutMs: 10 * 60_000,
        onLine: (_, text) => lines.push({ at: Date.now(), text, cpu: cpuNow() }),
      },
    );
    const ended = Date.now();
    if (r.code !== 0) {
      const kubelet = (await node.machine.log("kubelet")).slice(-1500);
      throw new Error(
        `${impl} init failed:\n${r.stdout}\n${r.stderr}\n--- kubelet log:\n${kubelet}`,
      );
    }
    const cpu = new RegExp(`^${CPU_LINE} (\\S+) (\\S+)$`, "m").exec(r.stderr);
    if (!cpu) throw new Error(`${impl} init: no CPU time from /usr/bin/time in:\n${r.stderr}`);
    const cpuMs = (Number(cpu[1]) + Number(cpu[2])) * 1000;
    return { impl, started, ended, cpuMs, lines, healthy: await probe.result };
  } finally {
    await node.stop();
  }
}

/**
 * The run's spans: `start-up` (to the first line), then each phase to the next one's start; in
 * wall time, or with `cpu` in CPU time (the process's when each line arrived; the last phase
 * ends at `/usr/bin/time`'s total, its children included).
 */
function phaseSpans(run: InitRun, cpu = false): Map<string, number> {
  const starts: [string, number][] = [["start-up", cpu ? 0 : run.started]];
  for (const { at, text, cpu: cpuAt } of run.lines) {
    const tag = /^\[([a-z-]+)\]/.exec(text)?.[1];
    let phase = tag === undefined ? undefined : TAG_PHASE[tag] ?? tag;
    if (tag === undefined && text.startsWith("Your Kubernetes control-plane")) {
      phase = "show-join-command";
    }
    if (phase === undefined || SHARED_TAGS.has(phase) || starts.some(([p]) => p === phase)) {
      continue;
    }
    if (cpu && cpuAt === undefined) return new Map();
    starts.push([phase, cpu ? cpuAt! : at]);
  }
  const end = cpu ? run.cpuMs : run.ended;
  return new Map(
    starts.map((
      [phase, at],
      i,
    ) => [SPAN_LABEL[phase] ?? phase, (starts[i + 1]?.[1] ?? end) - at]),
  );
}

/** When the first line matching `re` arrived. */
const lineAt = (run: InitRun, re: RegExp) => run.lines.find((l) => re.test(l.text))?.at;

/** The floor figures of a run (ms), from the kubelet's start. */
function floorOf(run: InitRun): Map<string, number> {
  const kubeletStart = lineAt(run, /^\[kubelet-start\] Starting the kubelet/);
  const h = run.healthy;
  const out = new Map<string, number>();
  if (kubeletStart === undefined) return out;
  const components = ["kube-apiserver", "kube-controller-manager", "kube-scheduler"];
  for (const [name, at] of Object.entries(h)) out.set(`kubelet start → ${name}`, at - kubeletStart);
  if (components.every((c) => h[c] !== undefined)) {
    const all = Math.max(...components.map((c) => h[c]));
    out.set("kubelet start → control plane healthy", all - kubeletStart);
    const seen = run.lines.findLast((l) =>
      /^\[control-plane-check\] .* is healthy after/.test(l.text)
    )
      ?.at;
    if (seen !== undefined) out.set("wait lag: control plane (tool saw it after)", seen - all);
  }
  const kubeletSeen = lineAt(run, /^\[kubelet-check\] The kubelet is healthy/);
  if (kubeletSeen !== undefined && h.kubelet !== undefined) {
    out.set("wait lag: kubelet (tool saw it after)", kubeletSeen - h.kubelet);
  }
  if (h["kube-apiserver-readyz"] !== undefined) {
    out.set("API ready → init done", run.ended - h["kube-apiserver-readyz"]);
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Medians per key over runs. */
function medians(maps: Map<string, number>[]): Map<string, number> {
  const keys = [...new Set(maps.flatMap((m) => [...m.keys()]))];
  return new Map(keys.map((k) => [k, median(maps.flatMap((m) => m.get(k) ?? []))]));
}

const s = (ms: number | undefined) =>
  ms === undefined ? "     -" : (ms / 1000).toFixed(2).padStart(6);
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? "    -" : `${(a / b).toFixed(2)}x`.padStart(6);

// Warm Deno's module cache for our CLI and the probe, so the first run does not pay for it.
for (const impl of impls.filter((i) => i !== "upstream")) {
  await new Deno.Command(await kubeadmOf(impl), {
    args: ["version", "-o", "short"],
    stdout: "null",
  })
    .output();
}
await new Deno.Command(deno, { args: ["cache", "--config", `${repoRoot}/deno.json`, probeScript] })
  .output();

const loadBefore = (await Deno.readTextFile("/proc/loadavg")).trim();
const benchStart = Date.now();
const maxMs = values["max-minutes"] === undefined
  ? Infinity
  : Number(values["max-minutes"]) * 60_000;
const all: InitRun[] = [];
let rounds = 0;
for (let i = 0; i < runs && (i === 0 || Date.now() - benchStart < maxMs); i++, rounds++) {
  const order = i % 2 === 0 ? impls : [...impls].reverse();
  for (const impl of order) {
    let run: InitRun;
    try {
      run = await timeInit(impl);
    } catch (e) {
      // One failed init (a slow machine) is reported and left out; the others still count.
      console.log(`run ${i + 1} ${impl.padEnd(8)} FAILED: ${e instanceof Error ? e.message : e}`);
      continue;
    }
    all.push(run);
    const load = (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];
    console.log(
      `run ${i + 1} ${impl.padEnd(8)} init ${s(run.ended - run.started)} s, CPU ${
        s(run.cpuMs)
      } s  (load ${load})`,
    );
    if (values.trace) {
      for (const l of run.lines) console.log(`  +${s(l.at - run.started)}  ${l.text}`);
      for (const [k, at] of Object.entries(run.healthy)) {
        console.log(`  +${s(at - run.started)}  (probe) ${k} healthy`);
      }
    }
  }
}
const loadAfter = (await Deno.readTextFile("/proc/loadavg")).trim();

const of = (impl: Impl) => all.filter((r) => r.impl === impl);
const total = new Map(impls.map((i) => [i, median(of(i).map((r) => r.ended - r.started))]));
const cpu = new Map(impls.map((i) => [i, median(of(i).map((r) => r.cpuMs))]));
const spans = new Map(impls.map((i) => [i, medians(of(i).map((r) => phaseSpans(r)))]));
const cpuSpans = new Map(impls.map((i) => [i, medians(of(i).map((r) => phaseSpans(r, true)))]));
const floors = new Map(impls.map((i) => [i, medians(of(i).map(floorOf))]));
const allFloors = medians(all.map(floorOf));
const floor = allFloors.get("kubelet start → control plane healthy");
const head = (label: string) => `  ${label.padEnd(42)}${impls.map((i) => i.padStart(9)).join("")}`;
const row = (label: string, xs: (number | undefined)[]) =>
  `  ${label.padEnd(42)}${xs.map((x) => s(x).padStart(9)).join("")}`;

console.log(`
kubeadm init on a fresh real node (containerd v2.4.2, kubelet v1.37.2, static Pods from local
images; ${
  values.keys === "rsa" ? "RSA-2048" : "ECDSA-P256"
} keys); medians of ${rounds} run(s) each, order alternating; seconds. Load before: ${loadBefore};
after: ${loadAfter}.${values.before ? `\n"before" is ${values.before}.` : ""}

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
console.log(`${row("total (wall time of init)", totals)}   ${ratio(totals[0], totals.at(-1))}
${row("CPU time of init (user+sys, children too)", cpus)}   ${ratio(cpus[0], cpus.at(-1))}

Floor (the components themselves, probed every 25 ms in the node; medians per tool's runs):
${head("figure")}      all`);
for (const k of allFloors.keys()) {
  console.log(
    `${row(k, impls.map((i) => floors.get(i)!.get(k)))}${s(allFloors.get(k)).padStart(9)}`,
  );
}
console.log(`
Wall time of init, median (the floor: kubelet start → control plane healthy, ${s(floor)} s):`);
for (const i of impls) {
  const t = total.get(i);
  console.log(
    `  ${i.padEnd(9)} ${s(t)} s   ${ratio(t, total.get("upstream"))} upstream   ${
      ratio(t, floor)
    } the floor${i === "upstream" ? "   (kubeadm v1.37.2)" : ""}`,
  );
}
