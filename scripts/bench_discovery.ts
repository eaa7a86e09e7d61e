/**
 * Benchmark of bootstrap-token discovery against a real API server (see scripts/bench-discovery).
 *
 * Brings up a control plane with our own `kubeadm init` on a real node (tests/support/cluster.ts:
 * its own namespaces, containerd, the real kubelet), then measures from the host, in this process, `discoverWithToken` with the
 * CLI's real transports (an insecure `node:https` fetch of cluster-info, JWS and CA-pin checks,
 * a second fetch verified against the pinned CA): first sequentially (one at a time), then N at
 * once. Beside it, upstream kubeadm's own discovery is timed from its `-v=1` log (the klog
 * timestamps of `[discovery] Created cluster-info discovery client` and `[discovery] Cluster
 * info signature and contents are valid and TLS certificate validates against pinned roots`)
 * while it runs `kubeadm join phase preflight`, the upstream command that performs token
 * discovery and exits; the whole process's wall time is reported too. Everything is torn down
 * at the end, also on failure.
 *
 * @module
 */
import { type ClusterNode, createClusterNode, initForJoin } from "../tests/support/cluster.ts";
import { run } from "../tests/support/commands.ts";
import { clusterInfoFetcher, discoverWithToken } from "../library/discovery.ts";
import { discoveryTransport } from "../adapters/deno/transport.ts";
import { scriptArgs } from "./script_args.ts";

const TOKEN = "abcdef.0123456789abcdef";

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)];
}

function summary(label: string, ms: number[], errors: number, extra = ""): string {
  const s = [...ms].sort((a, b) => a - b);
  const f = (x: number) => x.toFixed(1).padStart(8);
  return `${label.padEnd(44)} ${String(ms.length + errors).padStart(5)} ${f(percentile(s, 50))} ${
    f(percentile(s, 90))
  } ${f(percentile(s, 99))} ${f(s[s.length - 1] ?? NaN)} ${String(errors).padStart(6)}${extra}`;
}

/** `I0102 15:04:05.123456 ...` → milliseconds since midnight. */
function klogMs(line: string): number | undefined {
  const m = /^[IWE]\d{4} (\d{2}):(\d{2}):(\d{2})\.(\d{6})/.exec(line);
  if (!m) return undefined;
  return ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + Number(m[4]) / 1000;
}

async function main(): Promise<void> {
  const args = scriptArgs("bench-discovery", {
    concurrency: { type: "string", default: "500" },
    sequential: { type: "string", default: "20" },
    "upstream-runs": { type: "string", default: "5" },
  });
  const concurrent = args.integer("concurrency");
  const sequential = args.integer("sequential");
  const upstreamRuns = args.integer("upstream-runs", 0);
  let cp: ClusterNode | undefined;
  try {
    console.error("bench-discovery: starting a control plane (kubeadm-ts init)...");
    cp = await createClusterNode("bench-cp");
    // init, and cluster-info signed by the bootstrap signer.
    const { endpoint, pin } = await initForJoin(cp);

    const once = async (): Promise<number> => {
      const start = performance.now();
      const result = await discoverWithToken({
        token: TOKEN,
        caCertHashes: [pin],
        fetchClusterInfo: clusterInfoFetcher(endpoint, discoveryTransport),
        timeoutMs: 60_000,
        endpoint,
      });
      if (!result.pinned) throw new Error("not pinned");
      return performance.now() - start;
    };

    await once(); // warm-up (module loading, first TLS handshake)
    const seq: number[] = [];
    let seqErrors = 0;
    for (let i = 0; i < sequential; i++) {
      try {
        seq.push(await once());
      } catch {
        seqErrors++;
      }
    }

    console.error(`bench-discovery: ${concurrent} concurrent discoveries...`);
    const wallStart = performance.now();
    const results = await Promise.allSettled(Array.from({ length: concurrent }, () => once()));
    const wall = performance.now() - wallStart;
    const conc = results.filter((r) => r.status === "fulfilled").map((r) =>
      (r as PromiseFulfilledResult<number>).value
    );
    const concErrors = results.length - conc.length;
    const firstError = results.find((r) => r.status === "rejected") as
      | PromiseRejectedResult
      | undefined;

    console.error(`bench-discovery: upstream kubeadm join phase preflight x${upstreamRuns}...`);
    const upDiscovery: number[] = [];
    const upWall: number[] = [];
    let upErrors = 0;
    for (let i = 0; i < upstreamRuns; i++) {
      const start = performance.now();
      const r = await run([
        `${cp.binDir}/kubeadm`,
        "join",
        "phase",
        "preflight",
        endpoint,
        "--token",
        TOKEN,
        "--discovery-token-ca-cert-hash",
        pin,
        "--node-name",
        "localhost",
        "--ignore-preflight-errors=all",
        "-v=1",
      ]);
      upWall.push(performance.now() - start);
      const lines = r.stderr.split("\n");
      const t0 = klogMs(
        lines.find((l) => l.includes("Created cluster-info discovery client")) ?? "",
      );
      const t1 = klogMs(
        lines.find((l) => l.includes("TLS certificate validates against pinned roots")) ?? "",
      );
      if (r.code !== 0 || t0 === undefined || t1 === undefined) {
        upErrors++;
        if (upErrors === 1) console.error(r.stderr.slice(-2000));
        continue;
      }
      upDiscovery.push(t1 - t0);
    }

    const head = `${"measurement".padEnd(44)} ${"n".padStart(5)} ${"p50 ms".padStart(8)} ${
      "p90 ms".padStart(8)
    } ${"p99 ms".padStart(8)} ${"max ms".padStart(8)} ${"errors".padStart(6)}`;
    console.log(head);
    console.log(summary("kubeadm-ts discoverWithToken, sequential", seq, seqErrors));
    console.log(
      summary(
        `kubeadm-ts discoverWithToken, ${concurrent} concurrent`,
        conc,
        concErrors,
        `   (all done in ${(wall / 1000).toFixed(2)}s)`,
      ),
    );
    console.log(summary("upstream kubeadm discovery (klog -v=1 window)", upDiscovery, upErrors));
    console.log(summary("upstream `kubeadm join phase preflight` wall", upWall, 0));
    if (firstError) console.log(`first error: ${firstError.reason}`);
    console.log(
      [
        "",
        "What was measured, all against the same real kube-apiserver (v1.37.2, our init) in one run:",
        "- kubeadm-ts: one discovery = insecure GET of kube-public/cluster-info over node:https,",
        "  JWS + CA-pin checks, GET again with TLS verified against the pinned CA, byte comparison;",
        "  a fresh TLS connection per fetch, in-process (no process start-up). 'concurrent' starts",
        "  all of them at once: its latencies include queueing behind one another.",
        "- upstream: `kubeadm join phase preflight <endpoint> --token ... --discovery-token-ca-cert-hash",
        "  ... -v=1` (preflight checks ignored); 'discovery window' is the time between its",
        "  '[discovery] Created cluster-info discovery client' and '... validates against pinned",
        "  roots' log lines (the same steps as above); 'wall' is the whole process.",
      ].join("\n"),
    );
  } finally {
    await cp?.stop();
  }
}

if (import.meta.main) await main();
