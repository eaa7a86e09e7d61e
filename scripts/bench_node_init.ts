/**
 * `scripts/bench-node --mode init` (the default): `kubeadm init` on a fresh real node per run,
 * the test configuration and the control plane's ignored preflight checks; the phases from the
 * `[tag]` of each line; the floor: the kubelet's start to the components' own health endpoints
 * answering (bench_node_probe.ts `init`).
 *
 * @module
 */
import {
  createClusterNode,
  PREFLIGHT_IGNORED_CONTROL_PLANE,
  writeInitConfig,
} from "../tests/support/cluster.ts";
import { type BenchMode, type Impl, type NodeRun, timeKubeadm } from "./bench_node_measure.ts";
import { lineAt } from "./bench_node_report.ts";

/** The keys of the benchmark's clusters: the test configuration's, or kubeadm's default. */
export type Keys = "ecdsa" | "rsa";

/** The keys' `encryptionAlgorithm`, as the report names them too. */
export const keysName = (keys: Keys): string => keys === "rsa" ? "RSA-2048" : "ECDSA-P256";

/** The phase a line's `[tag]` belongs to (tags that phases print besides their own name). */
const TAG_PHASE: Record<string, string> = {
  "kubelet-check": "wait-control-plane",
  "control-plane-check": "wait-control-plane",
  kubelet: "upload-config",
};
/** Tags that several phases print and that start no phase: `[patches]` (kubelet-start's, …). */
const SHARED_TAGS = new Set(["init", "patches"]);

/** The phase an init line starts: its `[tag]`'s, or the join command's closing text. */
function initPhaseOf(text: string): string | undefined {
  const tag = /^\[([a-z-]+)\]/.exec(text)?.[1];
  let phase = tag === undefined ? undefined : TAG_PHASE[tag] ?? tag;
  if (tag === undefined && text.startsWith("Your Kubernetes control-plane")) {
    phase = "show-join-command";
  }
  return phase === undefined || SHARED_TAGS.has(phase) ? undefined : phase;
}

/** The floor figures of an init (ms), from the kubelet's start. */
function initFloorOf(run: NodeRun): Map<string, number> {
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

/** The init mode: each run a fresh node, timed from init's start to its exit. */
export function initMode(keys: Keys): BenchMode {
  return {
    command: "init",
    describe:
      `kubeadm init on a fresh real node (containerd v2.4.2, kubelet v1.37.2, static Pods from local
images; ${keysName(keys)} keys)`,
    phaseOf: initPhaseOf,
    // `addons` prints each addon's line once it is applied, so the span before its first line
    // holds CoreDNS's work.
    spanLabels: {
      "kubelet-finalize": "kubelet-finalize + addon CoreDNS",
      addons: "addon kube-proxy",
    },
    floorOf: initFloorOf,
    floorKey: "kubelet start → control plane healthy",
    setUp: () => Promise.resolve(),
    tearDown: () => Promise.resolve(),
    async run(impl: Impl, kubeadm: string): Promise<NodeRun> {
      const node = await createClusterNode("cp1");
      try {
        const config = await writeInitConfig(node, "", { encryptionAlgorithm: keysName(keys) });
        return await timeKubeadm(node, {
          impl,
          kubeadm,
          args: [
            "init",
            "--config",
            config,
            `--ignore-preflight-errors=${PREFLIGHT_IGNORED_CONTROL_PLANE}`,
          ],
          marker: config,
          probe: ["init", node.ip],
        });
      } finally {
        await node.stop();
      }
    },
  };
}
