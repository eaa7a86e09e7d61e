/**
 * Load benchmark behind `scripts/bench-joiners` (issue 25, "Load"): many worker joins at once
 * against ONE real control plane (tests/support/cluster.ts: containerd, the real kubelet running
 * our `kubeadm init`'s static Pods).
 *
 * 1. Ours, whole API part: `--joiners N` (default 1000) in-process worker joins started at once
 *    (tests/support/joiners.ts: the real join command and its phases; a fake kubelet performs
 *    the TLS bootstrap in-process): discovery with token and CA pin, the cluster's
 *    configuration, the Node check, the kubelet's CSR approved and signed by the real
 *    kube-controller-manager, the wait for `kubelet.conf`.
 * 2. Ours and upstream's, the part upstream kubeadm can run without a kubelet: `kubeadm join
 *    phase preflight` (token discovery + the cluster's configuration; the machine checks of this
 *    host ignored) as processes, `--runs R` of each (default 200), `--concurrency C` at a time
 *    (default 50: a thousand Go or Deno processes at once do not fit in this machine's memory),
 *    on the same control plane: ours from the sources (`scripts/kubeadm`), ours installed
 *    (`scripts/install`: what the nodes run), with `--before DIR` another checkout's
 *    `scripts/kubeadm`, and upstream's; each kubeadm's runs in rounds of `--concurrency`, the
 *    kubeadms alternating round by round (the machine's other load falls on all alike). Each
 *    kubeadm's CPU seconds per process (user + system, from this process's finished children)
 *    is what a join costs a node on shared cores. Upstream's CSR is the kubelet's (kubeadm only
 *    waits for `kubelet.conf`), so no upstream command does step 1's last part.
 *
 * For each: wall time of the whole load, per-join p50/p90/p99/max, failures (with the first
 * messages); for the in-process joins also the CPU seconds and peak RSS of kube-apiserver, etcd
 * and kube-controller-manager during them (from /proc; the processes' rounds alternate, so the
 * control plane's share is not told apart by kubeadm). Run under the real-node lock:
 * `flock /tmp/kts-realnode.lock scripts/bench-joiners`.
 *
 * @module
 */
import process from "node:process";
import { scriptArgs } from "./script_args.ts";
import {
  type ClusterNode,
  createClusterNode,
  initForJoin,
  kubectlJson,
  TEST_TOKEN,
} from "../tests/support/cluster.ts";
import { kubeadmLauncher, run } from "../tests/support/commands.ts";
import { installedKubeadm } from "../tests/support/installed_kubeadm.ts";
import {
  type JoinerResult,
  joinPreflightArgv,
  type JoinTarget,
  runJoiner,
} from "../tests/support/joiners.ts";

const args = scriptArgs("bench-joiners", {
  joiners: { type: "string", default: "1000" },
  transcript: { type: "boolean", default: false },
  runs: { type: "string", default: "200" },
  concurrency: { type: "string", default: "50" },
  "skip-processes": { type: "boolean", default: false },
  before: { type: "string" },
});
const { values } = args;
/** Loads run one after the other on the same cluster (`--joiners 100,1000`). */
const loads = values.joiners.split(",").map(Number);
if (loads.some((n) => !Number.isInteger(n) || n < 1)) {
  args.refuse(`--joiners: ${values.joiners} is not a comma-separated list of positive integers`);
}
const runs = args.integer("runs", 0);
const concurrency = args.integer("concurrency");

/** CPU time and memory of a control-plane process, from /proc. */
interface ProcSample {
  cpuSeconds: number;
  rssMiB: number;
}

const CLOCK_TICKS = 100;

/** The fields of `/proc/<pid>/stat` after the command name, from the state (field 3) on. */
function statFields(pid: number | "self"): string[] {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** CPU seconds of this process's finished children (`cutime` + `cstime`). */
function childrenCpuSeconds(): number {
  const fields = statFields("self");
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
}

function sample(pid: number): ProcSample | undefined {
  try {
    const fields = statFields(pid);
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const rss = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    return {
      cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS,
      rssMiB: rss / 1024,
    };
  } catch {
    return undefined;
  }
}

const COMPONENTS = ["kube-apiserver", "etcd", "kube-controller-manager"] as const;

/** Each component's CPU seconds per second with no load (measured before the loads). */
const idleCpuPerSecond = new Map<string, number>();

/** Measures {@link idleCpuPerSecond} over `ms`. */
async function measureIdle(ms: number): Promise<string> {
  const pids = componentPids();
  const before = new Map([...pids].map(([n, p]) => [n, sample(p)]));
  await new Promise((r) => setTimeout(r, ms));
  for (const [n, p] of pids) {
    const a = before.get(n);
    const b = sample(p);
    if (a && b) idleCpuPerSecond.set(n, (b.cpuSeconds - a.cpuSeconds) / (ms / 1000));
  }
  return [...idleCpuPerSecond].map(([n, r]) => `${n} ${r.toFixed(3)}`).join(", ");
}

/** The control plane's processes (one cluster runs under the real-node lock). */
function componentPids(): Map<string, number> {
  const pids = new Map<string, number>();
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    let argv0: string;
    try {
      argv0 = Deno.readTextFileSync(`/proc/${e.name}/cmdline`).split("\0")[0];
    } catch {
      continue;
    }
    const base = argv0.split("/").pop()!;
    if ((COMPONENTS as readonly string[]).includes(base)) pids.set(base, Number(e.name));
  }
  return pids;
}

/**
 * Watches the control plane while `load` (of `joins` joins) runs: its components' CPU and peak
 * RSS, the requests the API server answered (by verb, resource and code), and this process's
 * own CPU (the in-process joiners').
 */
async function watched<T>(
  cp: ClusterNode,
  joins: number,
  load: () => Promise<T>,
): Promise<{ value: T; usage: string[] }> {
  const pids = componentPids();
  const before = new Map([...pids].map(([n, p]) => [n, sample(p)]));
  const started = performance.now();
  const requestsBefore = await requestCounts(cp);
  const ownBefore = process.cpuUsage();
  const childrenBefore = childrenCpuSeconds();
  const peak = new Map<string, number>();
  const timer = setInterval(() => {
    for (const [n, p] of pids) {
      const s = sample(p);
      if (s && s.rssMiB > (peak.get(n) ?? 0)) peak.set(n, s.rssMiB);
    }
  }, 250);
  try {
    const value = await load();
    const own = process.cpuUsage(ownBefore);
    const children = childrenCpuSeconds() - childrenBefore;
    const components = [...pids].map(([n, p]) => {
      const a = before.get(n);
      const b = sample(p);
      if (!a || !b) return `${n}: (restarted)`;
      const idle = (idleCpuPerSecond.get(n) ?? 0) * (performance.now() - started) / 1000;
      return `${n} ${(b.cpuSeconds - a.cpuSeconds).toFixed(1)} CPU-s (${
        (b.cpuSeconds - a.cpuSeconds - idle).toFixed(1)
      } above idle), peak RSS ${Math.round(Math.max(peak.get(n) ?? 0, b.rssMiB))} MiB`;
    }).join("; ");
    return {
      value,
      usage: [
        `control plane: ${components}`,
        `this process (the in-process joiners, process spawning): ${
          ((own.user + own.system) / 1e6).toFixed(1)
        } CPU-s`,
        `API server: ${requestsPerJoin(requestsBefore, await requestCounts(cp), joins)}`,
        ...(children > 0
          ? [
            `the kubeadm processes: ${children.toFixed(1)} CPU-s, ${
              (children / joins).toFixed(2)
            } per join (independent of the machine's other load)`,
          ]
          : []),
      ],
    };
  } finally {
    clearInterval(timer);
  }
}

/** `apiserver_request_total` by verb, resource and code (`GET configmaps 200`). */
async function requestCounts(cp: ClusterNode): Promise<Map<string, number>> {
  const r = await cp.kubectl(["get", "--raw", "/metrics"]);
  const counts = new Map<string, number>();
  for (const line of r.stdout.split("\n")) {
    if (!line.startsWith("apiserver_request_total{")) continue;
    const label = (name: string) => new RegExp(`[{,]${name}="([^"]*)"`).exec(line)?.[1] ?? "";
    const sub = label("subresource");
    const key = `${label("verb")} ${label("resource") || "(none)"}${sub ? `/${sub}` : ""} ${
      label("code")
    }`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1)));
  }
  return counts;
}

/** The requests the API server answered between two counts, most frequent first, per join. */
function requestsPerJoin(
  before: Map<string, number>,
  after: Map<string, number>,
  joins: number,
): string {
  const delta = [...after].map(([k, n]) => [k, n - (before.get(k) ?? 0)] as const)
    .filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
  const total = delta.reduce((n, [, d]) => n + d, 0);
  return `${total} requests (${(total / joins).toFixed(1)} per join): ${
    delta.slice(0, 12).map(([k, n]) => `${k} ${n}`).join(", ")
  }`;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

function row(label: string, ms: number[], failures: number, wallS: number): string {
  const s = [...ms].sort((a, b) => a - b);
  const f = (x: number) => (x / 1000).toFixed(2).padStart(7);
  return `${label.padEnd(52)} ${String(ms.length + failures).padStart(5)} ${
    f(percentile(s, 0.5))
  } ${f(percentile(s, 0.9))} ${f(percentile(s, 0.99))} ${f(s[s.length - 1] ?? NaN)} ${
    String(failures).padStart(6)
  } ${wallS.toFixed(1).padStart(7)}`;
}

const HEADER = `${"load".padEnd(52)} ${"joins".padStart(5)} ${"p50 s".padStart(7)} ${
  "p90 s".padStart(7)
} ${"p99 s".padStart(7)} ${"max s".padStart(7)} ${"failed".padStart(6)} ${"wall s".padStart(7)}`;

function firstErrors(errors: string[]): string {
  const counts = new Map<string, number>();
  for (const e of errors) {
    const k = e.split("\n")[0].slice(0, 600);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].slice(0, 5).map(([k, n]) => `    ${n} x ${k}`).join("\n");
}

/** Runs `count` commands, `parallel` at a time; their wall times and failures. */
async function processes(
  count: number,
  parallel: number,
  argv: (i: number) => string[],
): Promise<{ ms: number[]; errors: string[] }> {
  const ms: number[] = [];
  const errors: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) {
      const i = next++;
      const start = performance.now();
      const r = await run(argv(i));
      if (r.code === 0) ms.push(performance.now() - start);
      else errors.push(`${r.stderr.trim().split("\n").at(-1)}`);
    }
  }));
  return { ms, errors };
}

async function main(): Promise<void> {
  let cp1: ClusterNode | undefined;
  const work = await Deno.makeTempDir({ prefix: "kts-joiners-" });
  try {
    console.error("bench-joiners: a control plane (our kubeadm init on a real node)...");
    cp1 = await createClusterNode("cp1");
    const { endpoint, pin } = await initForJoin(cp1);
    const target: JoinTarget = { endpoint, token: TEST_TOKEN, pin };
    const lines = [
      `control plane idle (CPU-s per second, over 30s): ${await measureIdle(30_000)}`,
      HEADER,
    ];

    for (const [k, joiners] of loads.entries()) {
      console.error(`bench-joiners: ${joiners} in-process worker joins at once...`);
      const started = performance.now();
      const ours = await watched(cp1, joiners, () =>
        Promise.all(
          Array.from(
            { length: joiners },
            (_, i) => runJoiner(target, `joiner-${k}-${String(i).padStart(4, "0")}`, work),
          ),
        ));
      const wall = (performance.now() - started) / 1000;
      const ok = ours.value.filter((r) => r.ok);
      const failed = ours.value.filter((r) => !r.ok);
      const part = (f: (r: JoinerResult) => number | undefined) =>
        ok.map(f).filter((x): x is number => x !== undefined);
      lines.push(
        row(
          `ours, ${joiners} in-process joins (whole API part)`,
          part((r) => r.totalMs),
          failed.length,
          wall,
        ),
      );
      lines.push(
        row(
          "  of which discovery + configuration + node check",
          part((r) => r.beforeKubeletMs),
          0,
          wall,
        ),
      );
      lines.push(
        row(
          "  of which the TLS bootstrap (CSR sent → signed)",
          part((r) => r.tlsBootstrapMs),
          0,
          wall,
        ),
      );
      lines.push(...ours.usage.map((l) => `  ${l}`));
      const retried = ok.filter((r) => r.transcript.some((l) => /Retrying|retry/i.test(l))).length;
      lines.push(`  joins that retried a step: ${retried}`);
      if (failed.length) lines.push(firstErrors(failed.map((r) => r.error!)));
      if (values.transcript) {
        const slowest = [...ours.value].sort((a, b) => b.totalMs - a.totalMs)[0];
        const shown = failed[0] ?? slowest;
        lines.push(`  transcript of ${shown.name} (${shown.ok ? "the slowest" : "failed"}):`);
        lines.push(...shown.transcript.map((l) => `    ${l}`));
      }
    }
    const csrs = await kubectlJson(cp1, ["get", "csr"]);
    const items = (csrs.items ?? []) as { status?: { certificate?: string } }[];
    lines.push(
      `CertificateSigningRequests in the cluster: ${items.length}, issued: ${
        items.filter((c) => c.status?.certificate).length
      }`,
    );

    if (!values["skip-processes"]) {
      const kubeadms: [string, string][] = [
        ["ours", kubeadmLauncher()],
        ["ours installed", await installedKubeadm()],
        ...(values.before
          ? [["before", `${values.before}/scripts/kubeadm`] as [string, string]]
          : []),
        ["upstream", `${cp1.binDir}/kubeadm`],
      ];
      console.error(
        `bench-joiners: \`join phase preflight\` x${runs} of ${
          kubeadms.map(([l]) => l).join(", ")
        }, ${concurrency} at a time, alternating round by round...`,
      );
      const results = new Map(
        kubeadms.map(([l]) => [l, { ms: [] as number[], errors: [] as string[], cpu: 0, wall: 0 }]),
      );
      for (let done = 0; done < runs; done += concurrency) {
        const round = Math.min(concurrency, runs - done);
        for (const [label, kubeadm] of kubeadms) {
          const r = results.get(label)!;
          const cpuBefore = childrenCpuSeconds();
          const t0 = performance.now();
          const out = await processes(
            round,
            round,
            (i) => joinPreflightArgv(kubeadm, target, done + i),
          );
          r.wall += (performance.now() - t0) / 1000;
          r.cpu += childrenCpuSeconds() - cpuBefore;
          r.ms.push(...out.ms);
          r.errors.push(...out.errors);
        }
      }
      const upstreamCpu = results.get("upstream")!.cpu / runs;
      for (const [label] of kubeadms) {
        const r = results.get(label)!;
        lines.push(
          row(
            `${label}, \`join phase preflight\` processes, ${concurrency} at a time`,
            r.ms,
            r.errors.length,
            r.wall,
          ),
        );
        lines.push(
          `  CPU per process (user + system): ${(r.cpu / runs).toFixed(3)} s, ${
            (r.cpu / runs / upstreamCpu).toFixed(2)
          }x upstream's`,
        );
        if (r.errors.length) lines.push(firstErrors(r.errors));
      }
      if (values.before) lines.push(`"before" is ${values.before}.`);
    }
    console.log(lines.join("\n"));
  } finally {
    await cp1?.stop();
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
