/**
 * The fleet benchmark behind `scripts/bench-fleet`: one control plane and `--workers` workers,
 * real test nodes (tests/support/cluster.ts), brought up from cloud-init user-data all at once
 * (Debian's cloud-init, its four boot stages, tests/support/cloud_init.ts), timed from the moment
 * every machine starts cloud-init until every Node is Ready; the same fleet with kubeadm-ts
 * installed by `scripts/install` and with upstream kubeadm v1.37.2 (scripts/k8s-bins) as the
 * machines' `kubeadm`, alternating, in the same run. Two kinds of user-data:
 *
 * - `plan`: the library's (`planControlPlane`, `planWorker`, `toCloudInit`): the control plane
 *   runs `kubeadm init` reusing its planned files; the workers run `kubeadm join` with theirs
 *   in place, retrying discovery until the API server answers;
 * - `capi`: Cluster API's bootstrap data (its own code; a bootstrap token fixed in the spec so
 *   every machine's user-data exists at once): `kubeadm init` on the control plane, `kubeadm
 *   join` on every worker, retrying discovery until the API server answers.
 *
 * One fleet (the first user-data, upstream's kubeadm) is brought up first and not counted: the
 * run's first fleet meets a cold host. Figures per run: time to all-Ready, each machine's
 * `kubeadm` wall time and peak RSS (the machines' kubeadm is a wrapper running it under
 * /usr/bin/time), and the fleet's memory once all are Ready (the resident memory of every
 * process in the machines' PID namespaces). Node boot (namespaces, containerd, image import) and
 * tear-down are not timed.
 *
 * Usage: scripts/deno run -A scripts/bench_fleet.ts [--workers N] [--rounds R]
 *          [--user-data plan|capi|both] [--trace]   (as root; defaults 6, 1, both)
 * `--trace` prints, per run, the timelines of the first control plane and of the first worker:
 * kubeadm's phases as it printed them, the kubelet's (re)starts, the Node's Ready; and when
 * each Node was seen Ready.
 *
 * @module
 */
import { scriptArgs } from "./script_args.ts";
import type { ClusterNode } from "../tests/support/cluster.ts";
import { capiToken } from "../tests/support/cluster_api.ts";
import {
  type BootTarget,
  bringUp,
  capiFleetUserData,
  capiSucceeded,
  createMachines,
  planUserData,
} from "../tests/support/fleet.ts";
import { type HostUsageReport, sampleHostUsage } from "../tests/support/host_usage.ts";
import { installedKubeadm } from "../tests/support/installed_kubeadm.ts";
import { k8sBinDir } from "../tests/support/k8s_bins.ts";

const args = scriptArgs("bench-fleet", {
  workers: { type: "string", default: "6" },
  rounds: { type: "string", default: "1" },
  "user-data": { type: "string", default: "both" },
  trace: { type: "boolean", default: false },
});
const { values } = args;
const workers = args.integer("workers");
const rounds = args.integer("rounds");
const flavors = values["user-data"] === "both" ? ["plan", "capi"] : [values["user-data"]!];
for (const f of flavors) {
  if (f !== "plan" && f !== "capi") args.refuse(`--user-data: ${f} (plan, capi or both)`);
}

type Impl = "ours" | "upstream";
type Flavor = "plan" | "capi";

/**
 * `kubeadm` for the machines: `real` under /usr/bin/time (wall time, peak RSS and CPU time,
 * the latter with its children's, e.g. the nodes' `systemctl` script, appended to the node's
 * `/run/kubeadm-bench.log`), its output passed on and also appended, each line with the time it
 * was printed (epoch seconds), to `/run/kubeadm-bench.out` (the phases' timeline).
 */
async function timedKubeadm(real: string, dir: string, impl: Impl): Promise<string> {
  const path = `${dir}/kubeadm-${impl}`;
  await Deno.writeTextFile(
    path,
    `#!/bin/bash
set -o pipefail
/usr/bin/time -a -o /run/kubeadm-bench.log -f "$1 %e %M %U %S" '${real}' "$@" 2>&1 |
  perl -MTime::HiRes=time -ne 'BEGIN { $| = 1; open(O, ">>", "/run/kubeadm-bench.out") }
    print; printf O "%.3f %s", time, $_'
`,
    { mode: 0o755 },
  );
  return path;
}

/**
 * A machine's timeline, in seconds from `startMs` (epoch): its kubeadm output lines that open a
 * phase or report a wait, and every kubelet (re)start.
 */
async function timeline(node: ClusterNode, startMs: number): Promise<string[]> {
  const out: [number, string][] = [];
  const text = await Deno.readTextFile(node.path("/run/kubeadm-bench.out")).catch(() => "");
  let last = "";
  for (const line of text.split("\n")) {
    const m = /^(\d+\.\d+) (\[[a-z-]+\].*)$/.exec(line);
    if (!m) continue;
    const phase = m[2].slice(0, m[2].indexOf("]") + 1);
    if (phase !== last || /healthy after|Waiting|Restarting|took/.test(m[2])) {
      out.push([Number(m[1]) * 1000, m[2].slice(0, 110)]);
    }
    last = phase;
  }
  for (const m of (await node.machine.log("kubelet")).matchAll(/^--- start (\S+):/gm)) {
    out.push([Date.parse(m[1]), "(kubelet started)"]);
  }
  return out.sort((a, b) => a[0] - b[0]).map(([t, l]) =>
    `    ${((t - startMs) / 1000).toFixed(1).padStart(6)} s  ${l}`
  );
}

/** Resident memory (kB) of every process in the PID namespace of each node. */
async function fleetRssKb(nodes: ClusterNode[]): Promise<number> {
  const namespaces = new Set<string>();
  for (const n of nodes) {
    namespaces.add((await n.exec(["readlink", "/proc/self/ns/pid"])).stdout.trim());
  }
  let total = 0;
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      if (!namespaces.has(await Deno.readLink(`/proc/${e.name}/ns/pid`))) continue;
      const status = await Deno.readTextFile(`/proc/${e.name}/status`);
      total += Number(status.match(/^VmRSS:\s+(\d+) kB$/m)?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

interface RunResult {
  impl: Impl;
  /** The first control plane's and the first worker's timelines (with --trace). */
  trace: string[];
  flavor: Flavor;
  allReadyS: number;
  controlPlaneReadyS: number;
  kubeadm: { node: string; command: string; wallS: number; rssKb: number; cpuS: number }[];
  fleetRssMb: number;
  /** The host while the fleet came up (load from this fleet and from other work). */
  host: HostUsageReport;
}

async function fleetRun(impl: Impl, flavor: Flavor, kubeadm: string): Promise<RunResult> {
  const machines = await createMachines(
    { controlPlanes: ["cp1"], workers: Array.from({ length: workers }, (_, i) => `w${i + 1}`) },
    { kubeadm },
  );
  try {
    const { controlPlane: cp, all: nodes } = machines;
    const targets: BootTarget[] = flavor === "plan"
      ? await planUserData(machines)
      : (await capiFleetUserData(machines, (await capiToken()).token)).targets;

    const startMs = Date.now();
    const usage = await sampleHostUsage();
    const { ready } = await bringUp(targets, cp, 20 * 60_000);
    const host = await usage.stop();
    const allReadyS = Math.max(...ready.values()) / 1000;
    const fleetRssMb = await fleetRssKb(nodes) / 1024;
    for (const n of flavor === "capi" ? nodes : []) {
      if (!(await capiSucceeded(n))) throw new Error(`${n.name}: no Cluster API success marker`);
    }
    const runs: RunResult["kubeadm"] = [];
    for (const n of nodes) {
      const log = await Deno.readTextFile(n.path("/run/kubeadm-bench.log")).catch(() => "");
      for (const line of log.split("\n").filter((l) => /^\S+ [\d.]+ \d+ [\d.]+ [\d.]+$/.test(l))) {
        const [command, wall, rss, user, sys] = line.split(" ");
        runs.push({
          node: n.name,
          command,
          wallS: Number(wall),
          rssKb: Number(rss),
          cpuS: Number(user) + Number(sys),
        });
      }
    }
    const trace: string[] = [];
    for (const n of values.trace ? [cp, machines.workers[0]] : []) {
      trace.push(
        `  ${n.name}:`,
        ...await timeline(n, startMs),
        `    ${f1(ready.get(n.name)! / 1000).padStart(6)} s  (Node ${n.name} Ready)`,
      );
    }
    if (values.trace) {
      trace.push(
        `  Ready: ${
          [...ready].sort((a, b) => a[1] - b[1]).map(([n, ms]) => `${n} ${f1(ms / 1000)} s`).join(
            ", ",
          )
        }`,
      );
    }
    return {
      impl,
      trace,
      flavor,
      allReadyS,
      controlPlaneReadyS: ready.get("cp1")! / 1000,
      kubeadm: runs,
      fleetRssMb,
      host,
    };
  } finally {
    await machines.stop();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const f1 = (x: number) => x.toFixed(1);

const tmp = await Deno.makeTempDir({ prefix: "kts-bench-fleet-" });
try {
  const kubeadms: Record<Impl, string> = {
    ours: await timedKubeadm(await installedKubeadm(), tmp, "ours"),
    upstream: await timedKubeadm(`${await k8sBinDir()}/kubeadm`, tmp, "upstream"),
  };
  const commit = new TextDecoder().decode(
    (await new Deno.Command("git", { args: ["rev-parse", "--short", "HEAD"] }).output()).stdout,
  ).trim();
  console.log(
    `fleet: 1 control plane + ${workers} workers from cloud-init, ${rounds} round(s); ` +
      `${navigator.hardwareConcurrency} cores; ${new Date().toISOString()}; commit ${commit}`,
  );
  // The run's first fleet meets a cold host (page cache, cloud-init's Python, the images'
  // snapshots): in two runs of 2026-11-30 its cloud-init reached `kubeadm` 1–11 s later than the
  // fleets after it did, before any kubeadm ran. One fleet is brought up first and not counted.
  const warm = await fleetRun("upstream", (flavors as Flavor[])[0], kubeadms.upstream);
  console.log(`warm-up fleet (not counted): all Ready ${f1(warm.allReadyS)} s`);
  const results: RunResult[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const [i, flavor] of (flavors as Flavor[]).entries()) {
      // Each tool goes first as often as the other, within a round too (the first fleet of a
      // round meets the host as the previous tear-down left it).
      const order: Impl[] = (round + i) % 2 === 0 ? ["ours", "upstream"] : ["upstream", "ours"];
      for (const impl of order) {
        const r = await fleetRun(impl, flavor, kubeadms[impl]);
        results.push(r);
        const init = r.kubeadm.find((k) => k.node === "cp1");
        const joins = r.kubeadm.filter((k) => k.node !== "cp1");
        console.log(
          `round ${round + 1} ${flavor.padEnd(4)} ${impl.padEnd(8)} all Ready ${
            f1(r.allReadyS)
          } s ` +
            `(cp1 ${f1(r.controlPlaneReadyS)} s); kubeadm ${init?.command ?? "-"} ${
              init
                ? `${f1(init.wallS)} s ${f1(init.rssKb / 1024)} MB CPU ${init.cpuS.toFixed(2)} s`
                : "-"
            }${
              joins.length
                ? `, ${joins.length} joins median ${f1(median(joins.map((j) => j.wallS)))} s, ` +
                  `max ${f1(Math.max(...joins.map((j) => j.rssKb)) / 1024)} MB, CPU ` +
                  `${joins.reduce((a, j) => a + j.cpuS, 0).toFixed(2)} s in all`
                : ""
            }; fleet RSS ${r.fleetRssMb.toFixed(0)} MB; host: load ≤${
              r.host.peakLoad.toFixed(1)
            }, CPU ${(r.host.meanBusy * 100).toFixed(0)}% busy, memory +${
              r.host.addedGiB.toFixed(1)
            } GiB`,
        );
        for (const line of r.trace) console.log(line);
      }
    }
  }
  console.log("\nmedians (ours / upstream):");
  for (const flavor of flavors as Flavor[]) {
    const of = (impl: Impl) => results.filter((r) => r.flavor === flavor && r.impl === impl);
    const ready = (impl: Impl) => median(of(impl).map((r) => r.allReadyS));
    const kubeadm = (impl: Impl, command: string) =>
      of(impl).flatMap((r) => r.kubeadm.filter((k) => k.command === command));
    const both = (f: (impl: Impl) => string) => `ours ${f("ours")}  upstream ${f("upstream")}`;
    console.log(
      `  ${flavor.padEnd(4)} all Ready  ${both((i) => `${f1(ready(i))} s`)}  ratio ${
        (ready("ours") / ready("upstream")).toFixed(2)
      }x`,
    );
    for (const command of new Set(of("ours").flatMap((r) => r.kubeadm.map((k) => k.command)))) {
      console.log(
        `       kubeadm ${command}: wall median ${
          both((i) => `${f1(median(kubeadm(i, command).map((k) => k.wallS)))} s`)
        };  peak RSS median ${
          both((i) => `${f1(median(kubeadm(i, command).map((k) => k.rssKb / 1024)))} MB`)
        };  CPU median ${
          both((i) => `${median(kubeadm(i, command).map((k) => k.cpuS)).toFixed(2)} s`)
        }`,
      );
    }
  }
} finally {
  await Deno.remove(tmp, { recursive: true });
}
