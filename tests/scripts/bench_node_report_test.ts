// scripts/bench-node's reading of a run, offline: the spans each mode cuts from the lines both
// tools print, and the floor figures from the probe's (here made-up) times.
import assert from "node:assert/strict";
import type { NodeRun } from "../../scripts/bench_node_measure.ts";
import { medians, phaseSpans } from "../../scripts/bench_node_report.ts";
import { initMode } from "../../scripts/bench_node_init.ts";
import { joinMode } from "../../scripts/bench_node_join.ts";

/** A run whose lines arrive at the given ms after its start (at 1000), CPU 10 ms a line. */
function run(lines: [number, string][], endMs: number, healthy: Record<string, number> = {}) {
  return {
    impl: "upstream",
    started: 1000,
    ended: 1000 + endMs,
    cpuMs: 10 * lines.length + 5,
    lines: lines.map(([at, text], i) => ({ at: 1000 + at, text, cpu: 10 * (i + 1) })),
    healthy: Object.fromEntries(Object.entries(healthy).map(([k, at]) => [k, 1000 + at])),
  } satisfies NodeRun;
}

/** A worker join's lines as upstream kubeadm v1.37.2 prints them (stdout and stderr). */
const JOIN_LINES: [number, string][] = [
  [100, "[preflight] Running pre-flight checks"],
  [150, "\t[WARNING SystemVerification]: cgroups v1 support is in maintenance mode"],
  [400, '[preflight] Reading configuration from the "kubeadm-config" ConfigMap in namespace'],
  [450, "[preflight] Use 'kubeadm init phase upload-config kubeadm --config your-config-file'"],
  [500, '[kubelet-start] Writing kubelet configuration to file "/var/lib/kubelet/config.yaml"'],
  [520, "[patches] Applied patch of type to target kubeletconfiguration"],
  [600, "[kubelet-start] Starting the kubelet"],
  [700, "[kubelet-check] Waiting for a healthy kubelet at http://127.0.0.1:10248/healthz."],
  [1700, "[kubelet-check] The kubelet is healthy after 1.0s"],
  [1710, "[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap"],
  [3710, ""],
  [3711, "This node has joined the cluster:"],
  [3712, "* Certificate signing request was sent to apiserver and a response was received."],
];

Deno.test("bench-node join: the spans of a worker's join, from the lines both tools print", () => {
  const mode = joinMode("rsa", 60_000);
  const r = run(JOIN_LINES, 3800, {
    kubelet: 1200,
    "kubelet.conf": 1300,
    "client certificate": 2600,
  });
  assert.deepEqual(
    [...phaseSpans(r, mode)],
    [
      ["start-up", 100],
      ["preflight: checks + discovery", 300],
      ["preflight: cluster configuration", 100],
      ["kubelet-start: kubelet files", 100],
      ["kubelet start → tool saw it healthy", 1110],
      ["wait for the TLS bootstrap", 2001],
      ["closing message, exit", 89],
    ],
  );
  // CPU: at each span's first line; the last one ends at the total.
  assert.deepEqual([...phaseSpans(r, mode, true).values()], [10, 20, 20, 20, 30, 20, 15]);
  assert.deepEqual(
    [...mode.floorOf(r)],
    [
      ["kubelet start → kubelet", 600],
      ["kubelet start → kubelet.conf", 700],
      ["kubelet start → client certificate", 2000],
      ["kubelet start → healthy + certificate", 2000],
      ["wait lag: bootstrap (tool saw it after)", 1111],
      ["floor reached → join done", 1200],
      ["wait lag: kubelet (tool saw it after)", 500],
    ],
  );
  assert.equal(mode.floorKey, "kubelet start → healthy + certificate");
  // Without the probe's figures there is no floor, the spans still count.
  assert.deepEqual(mode.floorOf(run(JOIN_LINES, 3800)), new Map());
  assert.deepEqual(medians([phaseSpans(r, mode), phaseSpans(r, mode)]), phaseSpans(r, mode));
});

Deno.test("bench-node init: phases from the [tag]s, shared tags starting none", () => {
  const mode = initMode("ecdsa");
  const r = run([
    [100, "[init] Using Kubernetes version: v1.37.2"],
    [150, "[preflight] Running pre-flight checks"],
    [900, "[certs] Using certificateDir folder"],
    [1000, "[kubelet-start] Starting the kubelet"],
    [1050, "[patches] Applied patch"],
    [1100, "[kubelet-check] Waiting for a healthy kubelet"],
    [9000, "[upload-config] Storing the configuration"],
    [9100, "[kubelet] Creating a ConfigMap"],
    [9300, "[kubelet-finalize] Updating"],
    [9800, "[addons] Applied essential addon: CoreDNS"],
    [9900, "Your Kubernetes control-plane has initialized successfully!"],
  ], 10_000);
  assert.deepEqual([...phaseSpans(r, mode)], [
    ["start-up", 150],
    ["preflight", 750],
    ["certs", 100],
    ["kubelet-start", 100],
    ["wait-control-plane", 7900],
    ["upload-config", 300],
    ["kubelet-finalize + addon CoreDNS", 500],
    ["addon kube-proxy", 100],
    ["show-join-command", 100],
  ]);
});
