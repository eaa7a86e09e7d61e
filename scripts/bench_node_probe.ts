/**
 * The floor probe of `scripts/bench-node`, run INSIDE a benchmark node beside the `kubeadm`
 * being timed. It prints `ready` first, once it is running (so that its own start-up is not
 * timed), then polls every 25 ms and prints, as one JSON line, when each figure was first seen
 * (milliseconds since the epoch). Exits when all were seen or after two minutes.
 *
 * - `init <node-ip>`: the components' own health endpoints answering 200 (the kubelet's
 *   `healthz`, kube-apiserver's `livez` and `readyz`, kube-controller-manager's `healthz`,
 *   kube-scheduler's `livez`, each at its default address, unverified as kubeadm checks them).
 *   Until the kubelet answers it polls only the kubelet (nothing else can be healthy before it
 *   runs the static Pods), so that it costs next to nothing while the tool's first phases run.
 * - `join`: a worker's kubelet: its `healthz` answering 200, its client certificate stored
 *   (`/var/lib/kubelet/pki/kubelet-client-current.pem`, written once kube-controller-manager
 *   approved and signed its CSR) and `/etc/kubernetes/kubelet.conf` written (the kubelet writes
 *   it, naming that certificate): what both kubeadms wait for.
 *
 * Usage (inside the node): scripts/deno run -A scripts/bench_node_probe.ts init <node-ip>
 *                          scripts/deno run -A scripts/bench_node_probe.ts join
 *
 * @module
 */
import { createHealthProbe } from "../adapters/deno/http.ts";

const [mode, ip] = Deno.args;
if (!(mode === "init" && ip) && mode !== "join") {
  throw new Error("usage: bench_node_probe.ts init <node-ip> | join");
}

const KUBELET_HEALTHZ = "http://127.0.0.1:10248/healthz";
/** Figure → URL answering 200 when it is reached. */
const ENDPOINTS: Record<string, string> = mode === "init"
  ? {
    kubelet: KUBELET_HEALTHZ,
    "kube-apiserver": `https://${ip}:6443/livez`,
    "kube-apiserver-readyz": `https://${ip}:6443/readyz`,
    "kube-controller-manager": "https://127.0.0.1:10257/healthz",
    "kube-scheduler": "https://127.0.0.1:10259/livez",
  }
  : { kubelet: KUBELET_HEALTHZ };
/** Figure → a file whose existence reaches it (a link counts once what it names exists). */
const FILES: Record<string, string> = mode === "join"
  ? {
    "client certificate": "/var/lib/kubelet/pki/kubelet-client-current.pem",
    "kubelet.conf": "/etc/kubernetes/kubelet.conf",
  }
  : {};
const INTERVAL_MS = 25;
const DEADLINE = Date.now() + 120_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
console.log("ready");
const probe = createHealthProbe();
const seen: Record<string, number> = {};
/** The figures still to see: in init, only the kubelet until it answered. */
const pendingNow = () =>
  mode === "init" && seen.kubelet === undefined
    ? ["kubelet"]
    : [...Object.keys(ENDPOINTS), ...Object.keys(FILES)].filter((n) => seen[n] === undefined);
for (let pending = pendingNow(); pending.length > 0 && Date.now() < DEADLINE;) {
  await Promise.all(pending.map(async (name) => {
    if (name in FILES) {
      if (await Deno.stat(FILES[name]).then(() => true, () => false)) seen[name] = Date.now();
      return;
    }
    const r = await probe.get(ENDPOINTS[name], { insecureSkipTLSVerify: true, timeoutMs: 2_000 });
    if ("status" in r && r.status === 200) seen[name] = Date.now();
  }));
  pending = pendingNow();
  await sleep(INTERVAL_MS);
}
console.log(JSON.stringify(seen));
