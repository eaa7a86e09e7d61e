/**
 * The real-node benchmark behind `scripts/bench-node`: a `kubeadm` command's wall time on fresh
 * real nodes (tests/support/cluster.ts: each node its own namespaces, containerd v2.4.2, the real
 * kubelet), ours vs upstream kubeadm v1.37.2 (scripts/k8s-bins), each run on its own identical
 * fresh node with the same arguments and the same ignored preflight checks, alternating which
 * goes first. Only the command is timed (node boot and tear-down are not).
 *
 * - `--mode init` (the default, bench_node_init.ts): `kubeadm init` of a control plane running
 *   the static Pods from the local images.
 * - `--mode join` (bench_node_join.ts): a worker's `kubeadm join` to one control plane booted
 *   once by our `init`; each run a fresh worker, torn down (and its Node deleted) after it.
 *
 * The breakdown (bench_node_report.ts): each line the command prints is timestamped as it
 * arrives, and a phase spans from its first line to the next phase's first line (both tools
 * print the same lines; a phase that prints only when it is done, as init's `addons`, is counted
 * with the one before it, as the table's names say). The floor: a probe inside the node
 * (scripts/bench_node_probe.ts) polls every 25 ms, giving the time from the kubelet's start (the
 * `[kubelet-start] Starting the kubelet` line) to each component's first healthy answer (init)
 * or to the worker's kubelet healthy with its client certificate issued (join); the gap between
 * that and the tool's own lines is the tool's wait lag. Prints each run, per-phase medians and
 * ratios against upstream and against the floor, and the CPU time of each command (user +
 * system, its children included, from `/usr/bin/time`; by phase from `/proc` as the lines
 * arrive): on a node whose cores are shared (a fleet booting at once) that is what every other
 * machine waits for.
 *
 * Usage: scripts/deno run -A scripts/bench_node.ts [--mode init|join] [--runs N]
 *   [--max-minutes M] [--before DIR] [--keys ecdsa|rsa] [--trace]   (as root; default 5 runs
 *   each, fewer when a new round would start after M minutes; `--before DIR` also times another
 *   checkout of ours, e.g. the commit before a change; `--keys rsa`: kubeadm's default RSA-2048
 *   keys instead of the test configuration's ECDSA-P256, as most clusters are made; `--trace`
 *   prints each run's timeline)
 *
 * @module
 */
import { scriptArgs } from "./script_args.ts";
import { kubeadmLauncher } from "../tests/support/commands.ts";
import { k8sBinDir } from "../tests/support/k8s_bins.ts";
import { repoRoot } from "../tests/support/repo.ts";
import {
  type BenchMode,
  deno,
  type Impl,
  type NodeRun,
  probeScript,
} from "./bench_node_measure.ts";
import { printReport, printRun } from "./bench_node_report.ts";
import { initMode, type Keys } from "./bench_node_init.ts";
import { joinMode } from "./bench_node_join.ts";

const args = scriptArgs("bench-node", {
  mode: { type: "string", default: "init" },
  runs: { type: "string", default: "5" },
  trace: { type: "boolean", default: false },
  before: { type: "string" },
  keys: { type: "string", default: "ecdsa" },
  "max-minutes": { type: "string" },
});
const { values } = args;
const runs = args.integer("runs");
const keys: Keys = values.keys === "ecdsa" || values.keys === "rsa"
  ? values.keys
  : args.refuse(`--keys: ${values.keys} (ecdsa or rsa)`);
if (values.mode !== "init" && values.mode !== "join") {
  args.refuse(`--mode: ${values.mode} (init or join)`);
}
const maxMinutes = Number(values["max-minutes"] ?? Infinity);
if (!(maxMinutes > 0)) args.refuse(`--max-minutes: ${values["max-minutes"]} (minutes, above 0)`);
const maxMs = maxMinutes * 60_000;

const impls: Impl[] = values.before ? ["ours", "before", "upstream"] : ["ours", "upstream"];

/** The `kubeadm` command of an implementation. */
async function kubeadmOf(impl: Impl): Promise<string> {
  if (impl === "ours") return kubeadmLauncher();
  if (impl === "before") return `${values.before}/scripts/kubeadm`;
  return `${await k8sBinDir()}/kubeadm`;
}

const mode: BenchMode = values.mode === "join" ? joinMode(keys, maxMs) : initMode(keys);

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

const benchStart = Date.now();
const all: NodeRun[] = [];
let rounds = 0;
let loadBefore = "";
try {
  await mode.setUp(
    await Promise.all(impls.filter((i) => i !== "upstream").map((i) => kubeadmOf(i))),
  );
  loadBefore = (await Deno.readTextFile("/proc/loadavg")).trim();
  for (let i = 0; i < runs && (i === 0 || Date.now() - benchStart < maxMs); i++, rounds++) {
    const order = i % 2 === 0 ? impls : [...impls].reverse();
    for (const impl of order) {
      let run: NodeRun;
      try {
        run = await mode.run(impl, await kubeadmOf(impl), i + 1);
      } catch (e) {
        // One failed run (a slow machine) is reported and left out; the others still count.
        console.log(`run ${i + 1} ${impl.padEnd(8)} FAILED: ${e instanceof Error ? e.message : e}`);
        continue;
      }
      all.push(run);
      const load = (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];
      printRun(i + 1, run, mode.command, load, values.trace);
    }
  }
} finally {
  await mode.tearDown();
}
const loadAfter = (await Deno.readTextFile("/proc/loadavg")).trim();

printReport({ mode, impls, runs: all, rounds, loadBefore, loadAfter, before: values.before });
