/**
 * The benchmark behind `scripts/bench-upgrade`: `kubeadm upgrade apply v1.37.2 --yes`, ours and
 * upstream kubeadm v1.37.2, each on its own fresh single control plane built at v1.36.3 by our
 * `init` on a real node (tests/support/cluster.ts: containerd, the real v1.36.3 kubelet, the
 * v1.37.2 images imported beforehand), identical states, timed as whole processes inside the
 * node. The order alternates between runs. Both ignore only SystemVerification (cgroup v1).
 *
 * Usage: scripts/deno run -A scripts/bench_upgrade.ts [--runs N]   (as root)
 *
 * @module
 */
import { scriptArgs } from "./script_args.ts";
import {
  type ClusterNode,
  createClusterNode,
  importImages,
  initControlPlane,
  PREFLIGHT_IGNORED_CONTROL_PLANE,
} from "../tests/support/cluster.ts";
import { kubeadmLauncher } from "../tests/support/commands.ts";
import { k8sBinDir } from "../tests/support/k8s_bins.ts";

const runs = scriptArgs("bench-upgrade", { runs: { type: "string", default: "1" } }).integer(
  "runs",
);

const FROM = "v1.36.3";
const TO = "v1.37.2";
const upstreamKubeadm = `${await k8sBinDir()}/kubeadm`;

/** A v1.36.3 control plane by our init, its API answering, the v1.37.2 images imported. */
async function cluster(name: string): Promise<ClusterNode> {
  const node = await createClusterNode(name, { version: FROM });
  try {
    await initControlPlane(node, `kubernetesVersion: ${FROM}\n`);
    await importImages(node, TO);
  } catch (e) {
    await node.stop();
    throw e;
  }
  return node;
}

async function timed(node: ClusterNode, who: "ours" | "upstream"): Promise<number> {
  const args = [
    "upgrade",
    "apply",
    TO,
    "--yes",
    `--ignore-preflight-errors=${PREFLIGHT_IGNORED_CONTROL_PLANE}`,
  ];
  const start = performance.now();
  const r = await node.exec([who === "ours" ? kubeadmLauncher() : upstreamKubeadm, ...args], {
    timeoutMs: 15 * 60_000,
  });
  const ms = performance.now() - start;
  if (r.code !== 0) throw new Error(`${who} upgrade apply failed:\n${r.stdout}\n${r.stderr}`);
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const times: Record<"ours" | "upstream", number[]> = { ours: [], upstream: [] };
const nodes: ClusterNode[] = [];
const cleanup = async () => {
  for (const n of nodes.splice(0)) await n.stop().catch(() => {});
};
Deno.addSignalListener("SIGINT", () => cleanup().then(() => Deno.exit(130)));
try {
  for (let i = 0; i < runs; i++) {
    const order: ("ours" | "upstream")[] = i % 2 === 0
      ? ["ours", "upstream"]
      : ["upstream", "ours"];
    for (const who of order) {
      const node = await cluster(`bench${i}${who[0]}`);
      nodes.push(node);
      const ms = await timed(node, who);
      times[who].push(ms);
      console.log(`run ${i + 1}: ${who.padEnd(8)} ${(ms / 1000).toFixed(1)} s`);
      await cleanup();
    }
  }
  const ours = median(times.ours);
  const theirs = median(times.upstream);
  console.log(`\nupgrade apply ${FROM} -> ${TO}, single control plane, ${runs} run(s), medians:`);
  console.log(`  ours      ${(ours / 1000).toFixed(1)} s`);
  console.log(`  upstream  ${(theirs / 1000).toFixed(1)} s`);
  console.log(`  ratio     ${(ours / theirs).toFixed(2)}x (target <= 1.0x)`);
  console.log(
    "Both wait for the node's kubelet to restart each static Pod from the new images and mirror it; that wait dominates.",
  );
} finally {
  await cleanup();
}
