/**
 * The real-node `init` benchmark behind `scripts/bench-node`: `kubeadm init` wall time on a
 * fresh real node (tests/support/cluster.ts: its own namespaces, containerd v2.4.2, the real
 * kubelet running the static Pods from the local images), ours vs upstream kubeadm v1.37.2
 * (scripts/k8s-bins), each run on its own identical fresh node with the same config and the
 * same ignored preflight checks, alternating which goes first. Only the `init` command is
 * timed (node boot and tear-down are not). Prints each run, the medians and their ratio.
 *
 * Usage: scripts/deno run -A scripts/bench_node.ts [--runs N]   (as root; default 3 each)
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  createClusterNode,
  PREFLIGHT_IGNORED_CONTROL_PLANE,
  writeInitConfig,
} from "../tests/support/cluster.ts";
import { kubeadmLauncher } from "../tests/support/commands.ts";
import { k8sBinDir } from "../tests/support/k8s_bins.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "3" } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs: not a positive integer");

type Impl = "ours" | "upstream";

/** One `init` on a fresh node: its wall time in seconds (throws when init fails). */
async function timeInit(impl: Impl): Promise<number> {
  const node = await createClusterNode("cp1");
  try {
    const config = await writeInitConfig(node);
    const kubeadm = impl === "ours" ? kubeadmLauncher() : `${await k8sBinDir()}/kubeadm`;
    const started = performance.now();
    const r = await node.exec(
      [
        kubeadm,
        "init",
        "--config",
        config,
        `--ignore-preflight-errors=${PREFLIGHT_IGNORED_CONTROL_PLANE}`,
      ],
      { timeoutMs: 10 * 60_000 },
    );
    const seconds = (performance.now() - started) / 1000;
    if (r.code !== 0) throw new Error(`${impl} init failed:\n${r.stdout}\n${r.stderr}`);
    return seconds;
  } finally {
    await node.stop();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// Warm Deno's module cache for our CLI, so the first run does not pay for it.
await new Deno.Command(kubeadmLauncher(), { args: ["version", "-o", "short"], stdout: "null" })
  .output();

const times: Record<Impl, number[]> = { ours: [], upstream: [] };
for (let i = 0; i < runs; i++) {
  const order: Impl[] = i % 2 === 0 ? ["ours", "upstream"] : ["upstream", "ours"];
  for (const impl of order) {
    const s = await timeInit(impl);
    times[impl].push(s);
    console.log(`run ${i + 1} ${impl.padEnd(8)} init ${s.toFixed(2)} s`);
  }
}
const ours = median(times.ours);
const upstream = median(times.upstream);
console.log(`
kubeadm init on a fresh real node (containerd v2.4.2, kubelet v1.37.2, static Pods from local
images), wall time of the init command; medians of ${runs} run(s) each, order alternating:
  ours      ${ours.toFixed(2)} s
  upstream  ${upstream.toFixed(2)} s  (kubeadm v1.37.2)
  ratio     ${(ours / upstream).toFixed(2)}x  (ours / upstream; below 1 is faster)`);
