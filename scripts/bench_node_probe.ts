/**
 * The floor probe of `scripts/bench-node`, run INSIDE a benchmark node beside the `kubeadm`
 * being timed: it polls the components' own health endpoints every 25 ms (the kubelet's
 * `healthz`, kube-apiserver's `livez` and `readyz`, kube-controller-manager's `healthz`,
 * kube-scheduler's `livez`, each at its default address, unverified as kubeadm checks them) and
 * prints, as one JSON line, when each first answered 200 (milliseconds since the epoch). Until
 * the kubelet answers it polls only the kubelet (nothing else can be healthy before it runs the
 * static Pods), so that it costs next to nothing while the tool's first phases run. It prints
 * `ready` first, once it is running, so that its own start-up is not timed. Exits when all
 * answered or after two minutes.
 *
 * Usage (inside the node): scripts/deno run -A scripts/bench_node_probe.ts <node-ip>
 *
 * @module
 */
import { createHealthProbe } from "../adapters/deno/http.ts";

const ip = Deno.args[0];
if (!ip) throw new Error("usage: bench_node_probe.ts <node-ip>");

/** Endpoint name → URL. */
const ENDPOINTS: Record<string, string> = {
  kubelet: "http://127.0.0.1:10248/healthz",
  "kube-apiserver": `https://${ip}:6443/livez`,
  "kube-apiserver-readyz": `https://${ip}:6443/readyz`,
  "kube-controller-manager": "https://127.0.0.1:10257/healthz",
  "kube-scheduler": "https://127.0.0.1:10259/livez",
};
const INTERVAL_MS = 25;
const DEADLINE = Date.now() + 120_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
console.log("ready");
const probe = createHealthProbe();
const healthy: Record<string, number> = {};
/** The endpoints still to answer: only the kubelet until it has. */
const pendingNow = () =>
  healthy.kubelet === undefined
    ? ["kubelet"]
    : Object.keys(ENDPOINTS).filter((n) => healthy[n] === undefined);
for (let pending = pendingNow(); pending.length > 0 && Date.now() < DEADLINE;) {
  await Promise.all(pending.map(async (name) => {
    const r = await probe.get(ENDPOINTS[name], { insecureSkipTLSVerify: true, timeoutMs: 2_000 });
    if ("status" in r && r.status === 200) healthy[name] = Date.now();
  }));
  pending = pendingNow();
  await sleep(INTERVAL_MS);
}
console.log(JSON.stringify(healthy));
