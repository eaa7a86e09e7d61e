/**
 * Benchmark behind `scripts/bench-join-process`: what one worker join's kubeadm process costs a
 * node in CPU, offline and without the real-node lock. `kubeadm join phase preflight <endpoint>
 * --token … --discovery-token-ca-cert-hash …` (the host's checks run, their errors ignored;
 * token discovery with the CA pin: cluster-info fetched twice; the cluster's configuration:
 * kubeadm-config, kubelet-config, kube-proxy) against a fake API server over HTTPS in this
 * process (tests/support/fake_kube_api.ts; upstream's own defaults as the cluster's
 * configuration), as processes, one at a time, the kubeadms alternating run by run: ours from
 * the sources (`scripts/kubeadm`), ours installed (`scripts/install`: what the nodes run), with
 * `--before DIR` another checkout's `scripts/kubeadm`, and upstream kubeadm v1.37.2. Beside them
 * the floors of ours, with the launcher's Deno and V8 flags: Deno's start-up (an empty module),
 * and the same five GETs by `node:https` (our transport's stack) and by `Deno.connectTls` (no
 * Node layer; not usable by the transport: its `caCerts` are added to Deno's root store, see
 * adapters/deno/transport/node_https.ts).
 *
 * Per case: median CPU seconds (user + system, `/usr/bin/time`), wall seconds and peak RSS, and
 * the CPU against upstream's. bench-joiners measures the same command against a real control
 * plane, many at once.
 *
 * Usage: scripts/bench-join-process [--runs 11] [--before DIR]
 *
 * @module
 */
import { scriptArgs } from "./script_args.ts";
import { FakeKubeApi } from "../tests/support/fake_kube_api.ts";
import { makeTlsFixtures, startHttpsServer } from "../tests/support/tls_fixtures.ts";
import { kubeadmLauncher, run } from "../tests/support/commands.ts";
import { installKubeadm } from "../tests/support/installed_kubeadm.ts";
import { joinPreflightArgv } from "../tests/support/joiners.ts";
import { repoRoot } from "../tests/support/repo.ts";
import { computeDetachedSignature } from "../core/discovery/jws.ts";
import { webCryptoPort } from "../adapters/crypto/webcrypto.ts";
import { certificatePin } from "../core/pki/pin.ts";
import { parseCertificatesPEM } from "../core/pki/cert.ts";
import { createBasicKubeconfig, serializeKubeconfig } from "../core/kubeconfig/kubeconfig.ts";
import type { KubeObject } from "../core/kube/client.ts";

const args = scriptArgs("bench-join-process", {
  runs: { type: "string", default: "11" },
  before: { type: "string" },
});
const runs = args.integer("runs");
const { values } = args;

const TOKEN_ID = "abcdef";
const TOKEN_SECRET = "0123456789abcdef";

/** The ConfigMap paths a worker join reads, in the order it reads them. */
const PATHS = [
  "/api/v1/namespaces/kube-public/configmaps/cluster-info",
  "/api/v1/namespaces/kube-public/configmaps/cluster-info",
  "/api/v1/namespaces/kube-system/configmaps/kubeadm-config",
  "/api/v1/namespaces/kube-system/configmaps/kubelet-config",
  "/api/v1/namespaces/kube-system/configmaps/kube-proxy",
];

/** One measured process: CPU and wall seconds, peak RSS in MiB. */
interface Sample {
  cpu: number;
  wall: number;
  rssMiB: number;
}

/** Runs `argv` under /usr/bin/time; its figures, or a failure with its output's last lines. */
async function measure(argv: string[], dir: string): Promise<Sample> {
  const out = `${dir}/time.txt`;
  const r = await run(["/usr/bin/time", "-o", out, "-f", "%U %S %e %M", ...argv]);
  if (r.code !== 0) {
    throw new Error(
      `${argv.join(" ")}: exit ${r.code}\n${r.stderr.split("\n").slice(-5).join("\n")}`,
    );
  }
  const [user, sys, wall, rss] = (await Deno.readTextFile(out)).trim().split("\n").at(-1)!
    .split(" ").map(Number);
  return { cpu: user + sys, wall, rssMiB: rss / 1024 };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The launcher's V8 flags (scripts/v8-flags), for the floors. */
async function launcherV8Flags(): Promise<string> {
  const text = await Deno.readTextFile(`${repoRoot}/scripts/v8-flags`);
  const flags = /^KUBEADM_V8_FLAGS=(\S+)$/m.exec(text)?.[1];
  if (!flags) throw new Error("scripts/v8-flags: no KUBEADM_V8_FLAGS line");
  return flags;
}

async function main(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kts-bench-join-process-" });
  try {
    const upstream = `${
      (await run([`${repoRoot}/scripts/k8s-bins`, "--print-dir"])).stdout.trim()
    }/kubeadm`;
    // The cluster's configuration as upstream defaults it.
    const defaults = await run([
      upstream,
      "config",
      "print",
      "init-defaults",
      "--component-configs",
      "KubeletConfiguration,KubeProxyConfiguration",
    ]);
    if (defaults.code !== 0) throw new Error(`${upstream} config print: ${defaults.stderr}`);
    const docs = new Map(
      defaults.stdout.split(/^---$/m).map((d) => [/^kind: (\w+)$/m.exec(d)?.[1], d.trim() + "\n"]),
    );

    const tls = await makeTlsFixtures();
    const api = new FakeKubeApi();
    const server = await startHttpsServer(tls, { requireClientCert: false }, (req, res) => {
      void api.transport(new Request(`https://127.0.0.1${req.url}`, { method: req.method }))
        .then(async (response) => {
          res.writeHead(response.status, { "Content-Type": "application/json" });
          res.end(await response.text());
        });
    });
    const kubeconfig = serializeKubeconfig(createBasicKubeconfig(server.url, "", "", tls.caCert), {
      nullEmptyLists: true,
    });
    const cm = (namespace: string, name: string, data: Record<string, string>): KubeObject =>
      ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data }) as KubeObject;
    api.put(cm("kube-public", "cluster-info", {
      kubeconfig,
      [`jws-kubeconfig-${TOKEN_ID}`]: await computeDetachedSignature(
        kubeconfig,
        TOKEN_ID,
        TOKEN_SECRET,
        webCryptoPort,
      ),
    }));
    api.put(cm("kube-system", "kubeadm-config", {
      ClusterConfiguration: docs.get("ClusterConfiguration")!,
    }));
    api.put(cm("kube-system", "kubelet-config", { kubelet: docs.get("KubeletConfiguration")! }));
    api.put(
      cm("kube-system", "kube-proxy", { "config.conf": docs.get("KubeProxyConfiguration")! }),
    );
    const pin = await certificatePin(parseCertificatesPEM(tls.caCert)[0], webCryptoPort);
    const endpoint = server.url.slice("https://".length);
    const port = new URL(server.url).port;

    console.error("bench-join-process: installing ours (scripts/install)...");
    const installed = await installKubeadm(`${dir}/prefix`);
    const deno = `${repoRoot}/scripts/deno`;
    const v8 = `--v8-flags=${await launcherV8Flags()}`;
    await Deno.writeTextFile(`${dir}/empty.ts`, "");
    await Deno.writeTextFile(`${dir}/ca.pem`, tls.caCert);
    await Deno.writeTextFile(
      `${dir}/node_https.ts`,
      `import https from "node:https";
const ca = [Deno.readTextFileSync(${JSON.stringify(`${dir}/ca.pem`)})];
const agent = new https.Agent({ keepAlive: true, ca });
for (const path of ${JSON.stringify(PATHS)}) {
  await new Promise((resolve, reject) =>
    https.get({ hostname: "127.0.0.1", port: ${port}, path, agent, ca }, (res) => {
      res.on("data", () => {});
      res.on("end", resolve);
    }).on("error", reject)
  );
}
agent.destroy();
`,
    );
    await Deno.writeTextFile(
      `${dir}/connect_tls.ts`,
      `const caCerts = [Deno.readTextFileSync(${JSON.stringify(`${dir}/ca.pem`)})];
for (const path of ${JSON.stringify(PATHS)}) {
  const conn = await Deno.connectTls({ hostname: "127.0.0.1", port: ${port}, caCerts });
  await conn.write(new TextEncoder().encode(\`GET \${path} HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n\`));
  const buf = new Uint8Array(65536);
  try {
    while ((await conn.read(buf)) !== null) { /* the whole response */ }
  } catch { /* the server closes without close_notify */ }
  conn.close();
}
`,
    );
    const target = { endpoint, token: `${TOKEN_ID}.${TOKEN_SECRET}`, pin };
    const join = (kubeadm: string) => (i: number) => joinPreflightArgv(kubeadm, target, i);
    const floor = (file: string) => () => [deno, "run", "--quiet", "-A", v8, `${dir}/${file}`];
    const cases: [string, (i: number) => string[]][] = [
      ["upstream kubeadm v1.37.2", join(upstream)],
      ["ours (scripts/kubeadm)", join(kubeadmLauncher())],
      ["ours installed (scripts/install)", join(installed)],
      ...(values.before
        ? [
          ["before (--before)", join(`${values.before}/scripts/kubeadm`)] as [
            string,
            (i: number) => string[],
          ],
        ]
        : []),
      ["floor: Deno start-up (empty module)", floor("empty.ts")],
      ["floor: Deno + node:https, the 5 GETs", floor("node_https.ts")],
      ["floor: Deno + Deno.connectTls, the 5 GETs", floor("connect_tls.ts")],
    ];
    // One warm-up run each (Deno's module and code caches), then the alternating runs.
    for (const [, argv] of cases) await measure(argv(0), dir);
    const samples = new Map(cases.map(([l]) => [l, [] as Sample[]]));
    for (let i = 1; i <= runs; i++) {
      console.error(`bench-join-process: round ${i}/${runs}`);
      for (const [label, argv] of cases) samples.get(label)!.push(await measure(argv(i), dir));
    }
    const upstreamCpu = median(samples.get(cases[0][0])!.map((s) => s.cpu));
    const lines = [
      `\`join phase preflight\` against a fake API server over HTTPS, medians of ${runs} alternating runs, load ${
        (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ")
      } at the end`,
      `${"case".padEnd(44)} ${"CPU s".padStart(7)} ${"/upstr".padStart(7)} ${
        "wall s".padStart(7)
      } ${"RSS MiB".padStart(8)}`,
      ...cases.map(([label]) => {
        const s = samples.get(label)!;
        const cpu = median(s.map((x) => x.cpu));
        return `${label.padEnd(44)} ${cpu.toFixed(3).padStart(7)} ${
          `${(cpu / upstreamCpu).toFixed(2)}x`.padStart(7)
        } ${median(s.map((x) => x.wall)).toFixed(3).padStart(7)} ${
          median(s.map((x) => x.rssMiB)).toFixed(1).padStart(8)
        }`;
      }),
    ];
    if (values.before) lines.push(`"before" is ${values.before}.`);
    console.log(lines.join("\n"));
    await server.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await main();
