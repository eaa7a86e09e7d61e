/**
 * `scripts/bench-node --mode join`: a worker's `kubeadm join` on real nodes. One control plane
 * is booted once with our `init` (the test configuration, its keys as `--keys`, its own address
 * as the control-plane endpoint); each run is a fresh worker node (linked to it, the worker's
 * images only) running `kubeadm join <endpoint> --token … --discovery-token-ca-cert-hash …
 * --node-name … --ignore-preflight-errors=…`, the same arguments and ignored checks as
 * tests/e2e/join_test.ts, for every tool. After each run the worker is torn down and its Node
 * object deleted on the control plane, so every run starts alike. The token is the init
 * configuration's (kubeadm's default TTL, 24 h), checked to outlive the benchmark before the first
 * run.
 *
 * The phases, from lines both tools print: the checks and the discovery (to the cluster's
 * configuration's line), the configuration read, the kubelet's files, the kubelet's start and
 * health check, the wait for its TLS bootstrap, and the closing message. The floor (probe
 * `join`): from the kubelet's start (`[kubelet-start] Starting the kubelet`) to its client
 * certificate stored, `kubelet.conf` written and its `healthz` answering; the tools' wait lags
 * beside it.
 *
 * @module
 */
import {
  type ClusterNode,
  createClusterNode,
  initForJoin,
  kubectlJson,
  TEST_TOKEN,
  tokenJoinArgs,
  workerJoinArgs,
} from "../tests/support/cluster.ts";
import { type BenchMode, type Impl, type NodeRun, timeKubeadm } from "./bench_node_measure.ts";
import { type Keys, keysName } from "./bench_node_init.ts";
import { lineAt } from "./bench_node_report.ts";

/** The lines that start a join's spans, in the order they arrive, and the spans' names. */
const JOIN_SPANS: [RegExp, string][] = [
  [/^\[preflight\] Running pre-flight checks/, "preflight: checks + discovery"],
  [/^\[preflight\] Reading configuration from/, "preflight: cluster configuration"],
  [/^\[kubelet-start\] Writing kubelet/, "kubelet-start: kubelet files"],
  [/^\[kubelet-start\] Starting the kubelet/, "kubelet start → tool saw it healthy"],
  [/^\[kubelet-start\] Waiting for the kubelet to perform/, "wait for the TLS bootstrap"],
  [/^This node has joined the cluster/, "closing message, exit"],
];

/** The span a join line starts. */
const joinPhaseOf = (text: string): string | undefined =>
  JOIN_SPANS.find(([re]) => re.test(text))?.[1];

/** The floor figure the totals are set against. */
const FLOOR_KEY = "kubelet start → healthy + certificate";

/** The floor figures of a join (ms), from the kubelet's start. */
function joinFloorOf(run: NodeRun): Map<string, number> {
  const kubeletStart = lineAt(run, /^\[kubelet-start\] Starting the kubelet/);
  const h = run.healthy;
  const out = new Map<string, number>();
  if (kubeletStart === undefined) return out;
  for (const [name, at] of Object.entries(h)) out.set(`kubelet start → ${name}`, at - kubeletStart);
  const needed = ["kubelet", "client certificate", "kubelet.conf"];
  if (needed.every((k) => h[k] !== undefined)) {
    const all = Math.max(...needed.map((k) => h[k]));
    out.set(FLOOR_KEY, all - kubeletStart);
    const done = lineAt(run, /^This node has joined the cluster/);
    if (done !== undefined) out.set("wait lag: bootstrap (tool saw it after)", done - all);
    out.set("floor reached → join done", run.ended - all);
  }
  const kubeletSeen = lineAt(run, /^\[kubelet-check\] The kubelet is healthy/);
  if (kubeletSeen !== undefined && h.kubelet !== undefined) {
    out.set("wait lag: kubelet (tool saw it after)", kubeletSeen - h.kubelet);
  }
  return out;
}

/** The control plane every run joins. */
interface ControlPlane {
  node: ClusterNode;
  endpoint: string;
  pin: string;
}

/**
 * Boots the control plane with our `init` (`initForJoin`: the test configuration with the
 * benchmark's keys, cluster-info signed) and checks that the token outlives the benchmark.
 */
async function bootControlPlane(keys: Keys, needMs: number): Promise<ControlPlane> {
  const node = await createClusterNode("cp1");
  try {
    const { endpoint, pin } = await initForJoin(node, "", undefined, undefined, keysName(keys));
    const tokenId = TEST_TOKEN.split(".")[0];
    const secret = await kubectlJson(node, [
      "-n",
      "kube-system",
      "get",
      "secret",
      `bootstrap-token-${tokenId}`,
    ]);
    const expiration = (secret.data as Record<string, string> | undefined)?.expiration;
    const expires = expiration === undefined ? Infinity : Date.parse(atob(expiration));
    if (!(expires > Date.now() + needMs)) {
      throw new Error(`the bootstrap token expires at ${atob(expiration!)}, before the runs end`);
    }
    return { node, endpoint, pin };
  } catch (e) {
    await node.stop().catch((c) => console.error(c));
    throw e;
  }
}

/**
 * The join mode. `maxMs`: how long the runs may take (the token must outlive them; at least an
 * hour is asked for when unbounded).
 */
export function joinMode(keys: Keys, maxMs: number): BenchMode {
  let cp: ControlPlane | undefined;
  return {
    command: "join",
    describe: `kubeadm join of a worker on a fresh real node per run (containerd v2.4.2, kubelet
v1.37.2) to one control plane made by our init (${keysName(keys)} keys), token discovery pinned
to the CA, each worker torn down and its Node deleted after its run`,
    phaseOf: joinPhaseOf,
    floorOf: joinFloorOf,
    floorKey: FLOOR_KEY,
    async setUp(warm: string[]) {
      cp = await bootControlPlane(keys, Number.isFinite(maxMs) ? maxMs + 30 * 60_000 : 3600_000);
      // Our join's modules loaded once, untimed: a dry run on the control plane (discovery and
      // the cluster's configuration for real, nothing written; its checks there ignored).
      for (const kubeadm of warm) {
        const r = await cp.node.exec([
          kubeadm,
          ...tokenJoinArgs(cp.endpoint, cp.pin),
          "--node-name",
          "bench-warm-up",
          "--ignore-preflight-errors=all",
          "--dry-run",
        ], { timeoutMs: 120_000 });
        if (r.code !== 0) console.error(`warm-up dry run of ${kubeadm} failed: ${r.stderr}`);
      }
    },
    async tearDown() {
      await cp?.node.stop();
    },
    async run(impl: Impl, kubeadm: string, round: number): Promise<NodeRun> {
      if (!cp) throw new Error("join: no control plane (setUp not run)");
      const name = `bench-w${round}-${impl}`;
      const worker = await createClusterNode(name, { linkTo: [cp.node], role: "worker" });
      try {
        return await timeKubeadm(worker, {
          impl,
          kubeadm,
          args: workerJoinArgs(cp.endpoint, cp.pin, name),
          marker: name,
          probe: ["join"],
        });
      } finally {
        // The worker first (its kubelet would register the Node again), then its Node.
        try {
          await worker.stop();
        } finally {
          const r = await cp.node.kubectl(["delete", "node", name, "--ignore-not-found"]);
          if (r.code !== 0) console.error(`deleting Node ${name}: ${r.stderr}`);
        }
      }
    },
  };
}
