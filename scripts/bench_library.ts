/**
 * The library benchmark behind `scripts/bench-library`: CPU time per call of the high-level
 * API, in Deno (in process) and in Cloudflare's workerd (per request, over loopback), beside
 * upstream kubeadm (Go) doing the certificate and kubeconfig part of a plan, and the bundles'
 * gzipped sizes against their targets.
 *
 * - Deno: `process.cpuUsage()` around N calls (user + system of the whole process).
 * - workerd: the process's CPU time from `/proc/<pid>/stat` around N sequential requests to
 *   `scripts/bench_library_worker.js`, minus the same for a no-op route (HTTP and routing).
 *   `/proc` counts in 10 ms ticks: N is chosen so that each figure spans many ticks. The
 *   `workerd` column is the first N requests of a route after one warm-up, so it includes V8
 *   compiling the code as it gets hot (all of the process's threads count); the targets are
 *   judged on it. `warm` is the N requests after those: an isolate that has served a while.
 * - Upstream: `kubeadm init phase certs all` + `kubeconfig all` (v1.37.2), the children's
 *   CPU time (rusage), including each process's start-up.
 *
 * Usage: scripts/deno run -A scripts/bench_library.ts [--runs N] [--rsa-runs N]
 *
 * @module
 */
import process from "node:process";
import { scriptArgs } from "./script_args.ts";
import * as lib from "../web/core_entry.ts";
import { buildWeb } from "../tests/support/web_build.ts";
import { startWorkerd } from "../tests/support/workerd.ts";
import { repoRoot } from "../tests/support/repo.ts";

const args = scriptArgs("bench-library", {
  runs: { type: "string", default: "40" },
  "rsa-runs": { type: "string", default: "6" },
});
const RUNS = args.integer("runs");
const RSA_RUNS = args.integer("rsa-runs");

const CONFIG = (alg: string) =>
  `apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nencryptionAlgorithm: ${alg}\n`;
const HOST = { hostname: "cp1", advertiseAddress: "192.0.2.10" };
const TARGETS_MS: Record<string, number> = { verify: 2, "plan/ecdsa": 10 };
const SIZE_TARGETS_KB: Record<string, number> = {
  "kubeadm-core.js": 150,
  "kubeadm-verify.js": 60,
  "verify.html": 60,
};

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** CPU and wall milliseconds per call of `fn` in this process (after one warm-up call). */
async function inProcess(fn: () => Promise<unknown>, runs: number) {
  await fn();
  const c0 = cpuMs();
  const w0 = performance.now();
  for (let i = 0; i < runs; i++) await fn();
  return { cpu: (cpuMs() - c0) / runs, wall: (performance.now() - w0) / runs };
}

// Inputs: a signed cluster-info with its token and pin, from a seeded plan.
const cp = await lib.planControlPlane({
  config: CONFIG("ECDSA-P256"),
  host: HOST,
  random: lib.seededRandom("bench"),
});
const clusterInfo = (await lib.withBootstrapSignatures(cp.objects)).find((o) =>
  o.metadata?.name === "cluster-info"
);
const verifyInput = { clusterInfo, token: cp.token, caCertHashes: [cp.caCertHash] };
const verified = await lib.checkClusterInfo(verifyInput);
if (verified.verdict !== "verified") throw new Error(`bench input: ${verified.reason}`);

const calls: { name: string; runs: number; body?: unknown; deno: () => Promise<unknown> }[] = [
  {
    name: "verify",
    runs: RUNS * 10,
    body: verifyInput,
    deno: () => lib.checkClusterInfo(verifyInput),
  },
  {
    name: "plan/ecdsa",
    runs: RUNS,
    deno: () => lib.planControlPlane({ config: CONFIG("ECDSA-P256"), host: HOST }),
  },
  {
    name: "plan/ecdsa-seeded",
    runs: RUNS,
    body: { seed: "bench" },
    deno: () =>
      lib.planControlPlane({
        config: CONFIG("ECDSA-P256"),
        host: HOST,
        random: lib.seededRandom("bench"),
      }),
  },
  {
    name: "plan/rsa",
    runs: RSA_RUNS,
    deno: () => lib.planControlPlane({ config: CONFIG("RSA-2048"), host: HOST }),
  },
];

const build = await buildWeb();
const results: Record<
  string,
  { deno: number; denoWall: number; workerd?: number; workerdWarm?: number }
> = {};
try {
  for (const c of calls) {
    const r = await inProcess(c.deno, c.runs);
    results[c.name] = { deno: r.cpu, denoWall: r.wall };
  }
  await Deno.copyFile(`${repoRoot}/scripts/bench_library_worker.js`, `${build.dir}/worker.js`);
  const workerd = await startWorkerd(
    { "worker.js": "worker.js", "kubeadm-core.js": "kubeadm-core.js" },
    build.dir,
  );
  try {
    const request = async (name: string, body?: unknown) => {
      const res = await fetch(`${workerd.url}/${name}`, {
        method: body === undefined ? "GET" : "POST",
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await res.text();
      if (!res.ok) throw new Error(`workerd /${name}: ${res.status}`);
    };
    const perRequest = async (name: string, runs: number, body?: unknown) => {
      await request(name, body);
      const c0 = await workerd.cpuMs();
      for (let i = 0; i < runs; i++) await request(name, body);
      return (await workerd.cpuMs() - c0) / runs;
    };
    const noop = await perRequest("noop", RUNS * 10);
    for (const c of calls) {
      const body = c.name === "verify" ? c.body : c.body ?? {};
      results[c.name].workerd = Math.max(0, await perRequest(c.name, c.runs, body) - noop);
      results[c.name].workerdWarm = Math.max(0, await perRequest(c.name, c.runs, body) - noop);
    }
    console.log(`workerd no-op request: ${noop.toFixed(2)} ms CPU (subtracted below)`);
  } finally {
    await workerd.stop();
  }

  // Upstream kubeadm (Go): the PKI part of a plan, two processes.
  const upstream: Record<string, number> = {};
  const kubeadm = `${
    new TextDecoder().decode(
      (await new Deno.Command(`${repoRoot}/scripts/k8s-bins`, {
        args: ["--print-dir", "--set", "v1.37.2"],
        stdout: "piped",
        stderr: "null",
      }).output()).stdout,
    ).trim().split("\n").at(-1)
  }/kubeadm`;
  for (const [name, alg] of [["plan/ecdsa", "ECDSA-P256"], ["plan/rsa", "RSA-2048"]]) {
    const dir = await Deno.makeTempDir({ prefix: "kts-bench-upstream-" });
    try {
      await Deno.writeTextFile(
        `${dir}/config.yaml`,
        `${CONFIG(alg)}certificatesDir: ${dir}/pki\n---\n` +
          `apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n` +
          `localAPIEndpoint:\n  advertiseAddress: 192.0.2.10\nnodeRegistration:\n  name: cp1\n`,
      );
      const script = [
        "import resource, subprocess, sys, shutil, os",
        "k, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])",
        "for i in range(n):",
        "  for p in ('pki', 'kc'): shutil.rmtree(os.path.join(d, p), ignore_errors=True)",
        "  for args in (['certs', 'all'], ['kubeconfig', 'all', '--kubeconfig-dir', d + '/kc']):",
        "    subprocess.run([k, 'init', 'phase', *args, '--config', d + '/config.yaml'], check=True, capture_output=True)",
        "r = resource.getrusage(resource.RUSAGE_CHILDREN)",
        "print((r.ru_utime + r.ru_stime) * 1000 / n)",
      ].join("\n");
      const runs = name === "plan/rsa" ? RSA_RUNS : Math.max(5, RUNS / 4);
      const out = await new Deno.Command("python3", {
        args: ["-c", script, kubeadm, dir, String(runs)],
        stdout: "piped",
        stderr: "piped",
      }).output();
      if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
      upstream[name] = Number(new TextDecoder().decode(out.stdout));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }

  const pad = (s: string, n: number) => s.padEnd(n);
  const f = (x: number | undefined) => x === undefined ? "-" : x.toFixed(2);
  console.log(
    `\nCPU ms per call (Deno ${Deno.version.deno}, workerd via scripts/npm-tool, upstream kubeadm v1.37.2)`,
  );
  console.log(
    `${pad("call", 20)}${pad("Deno", 10)}${pad("Deno wall", 11)}${pad("workerd", 10)}${
      pad("warm", 8)
    }${pad("workerd/Deno", 14)}${pad("upstream Go*", 14)}${pad("Deno/Go", 9)}target`,
  );
  for (const c of calls) {
    const r = results[c.name];
    const up = upstream[c.name];
    const target = TARGETS_MS[c.name];
    console.log(
      `${pad(c.name, 20)}${pad(f(r.deno), 10)}${pad(f(r.denoWall), 11)}${pad(f(r.workerd), 10)}${
        pad(f(r.workerdWarm), 8)
      }${pad(r.workerd === undefined ? "-" : (r.workerd / r.deno).toFixed(2), 14)}${
        pad(f(up), 14)
      }${pad(up ? (r.deno / up).toFixed(2) : "-", 9)}${
        target === undefined
          ? "(report)"
          : `≤ ${target} ms: workerd ${(r.workerd ?? Infinity) <= target ? "met" : "NOT met"}`
      }`,
    );
  }
  console.log(
    "* upstream: `kubeadm init phase certs all` + `kubeconfig all` (2 processes, start-up included): the PKI part of a plan only",
  );

  console.log("\nBundle sizes (gzipped with the web platform's CompressionStream)");
  for (const [file, target] of Object.entries(SIZE_TARGETS_KB)) {
    const bytes = await Deno.readFile(`${build.dir}/${file}`);
    const gz = new Uint8Array(
      await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip")))
        .arrayBuffer(),
    );
    const kb = gz.length / 1024;
    console.log(
      `${pad(file, 20)}${pad(`${(bytes.length / 1024).toFixed(1)} KB`, 12)}${
        pad(`${kb.toFixed(1)} KB gz`, 14)
      }target ≤ ${target} KB: ${kb <= target ? "met" : "NOT met"}`,
    );
  }
} finally {
  await build.cleanup();
}
