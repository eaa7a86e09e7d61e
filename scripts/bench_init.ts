/**
 * The `init` phase-by-phase benchmark behind `scripts/bench-init`: ours beside upstream kubeadm
 * on one real control plane (a real node, tests/support/cluster.ts: its own namespaces,
 * containerd and the real kubelet running the static Pods from the local images, as
 * tests/e2e/init_test.ts).
 *
 * 1. Build: our 14 phases run as separate processes on the node (no `--rootfs`), building the
 *    control plane (its kubelet starts the static Pods). Timed: "ours, first".
 * 2. Compare, `--runs N` times (default 3), each phase ours and upstream back to back (the order
 *    alternates between runs), medians reported:
 *    - node-local phases (preflight … kubelet-start) each in a fresh, empty scratch root of
 *      their own (`--rootfs`; upstream chroots there, so `--config /kubeadm-config.yaml`);
 *    - cluster-side phases (wait-control-plane … show-join-command) re-run on the node against
 *      the running control plane, where every object already exists.
 *
 * Every process runs inside the node. Everything (the node, temp dirs) is torn down at the end,
 * on failure and on Ctrl-C.
 *
 * Usage: scripts/deno run -A scripts/bench_init.ts [--runs N]   (as root)
 *
 * @module
 */
import { scriptArgs } from "./script_args.ts";
import {
  certificateKey,
  type ClusterNode,
  createClusterNode,
  writeInitConfig,
} from "../tests/support/cluster.ts";
import { kubeadmLauncher, waitFor } from "../tests/support/commands.ts";

const runs = scriptArgs("bench-init", { runs: { type: "string", default: "3" } }).integer("runs");

type Where = "node" | "scratch";

interface PhaseSpec {
  /** As shown in the table. */
  name: string;
  /** Arguments after `init phase`. */
  args: string[];
  where: Where;
  /** Whether the phase takes `--config` (upstream refuses it where it does not inherit it). */
  config: boolean;
  /** Why upstream's figure is missing, when upstream cannot run the phase here. */
  noUpstream?: string;
}

const PHASES: PhaseSpec[] = [
  {
    name: "preflight",
    args: ["preflight", "--ignore-preflight-errors=all"],
    where: "scratch",
    config: true,
    noUpstream: "upstream aborts: without a container runtime it cannot create its CRI client, " +
      "which --ignore-preflight-errors=all does not cover",
  },
  { name: "certs all", args: ["certs", "all"], where: "scratch", config: true },
  { name: "kubeconfig all", args: ["kubeconfig", "all"], where: "scratch", config: true },
  { name: "etcd local", args: ["etcd", "local"], where: "scratch", config: true },
  { name: "control-plane all", args: ["control-plane", "all"], where: "scratch", config: true },
  { name: "kubelet-start", args: ["kubelet-start"], where: "scratch", config: true },
  { name: "wait-control-plane", args: ["wait-control-plane"], where: "node", config: false },
  { name: "upload-config all", args: ["upload-config", "all"], where: "node", config: true },
  { name: "upload-certs", args: ["upload-certs", "--upload-certs"], where: "node", config: true },
  { name: "mark-control-plane", args: ["mark-control-plane"], where: "node", config: true },
  { name: "bootstrap-token", args: ["bootstrap-token"], where: "node", config: true },
  {
    name: "kubelet-finalize all",
    args: ["kubelet-finalize", "all"],
    where: "node",
    config: true,
  },
  { name: "addon all", args: ["addon", "all"], where: "node", config: true },
  {
    name: "show-join-command",
    args: ["show-join-command"],
    where: "node",
    config: false,
    noUpstream: "upstream refuses to run it alone (it depends on the bootstrap-token and " +
      "upload-certs phases of the same run)",
  },
];

/** How long one phase process may take before it is killed. */
const PHASE_TIMEOUT_MS = 5 * 60_000;

interface Timed {
  seconds: number;
  ok: boolean;
  detail: string;
}

let node: ClusterNode | undefined;
const scratchDirs = new Set<string>();
let cleaning: Promise<void> | undefined;

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await node?.stop();
    for (const d of scratchDirs) await Deno.remove(d, { recursive: true }).catch(() => {});
  })();
  return cleaning;
}

for (const sig of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(sig, () => {
    console.error(`\nbench-init: ${sig}, tearing down`);
    cleanup().finally(() => Deno.exit(130));
  });
}

/** Runs one command inside the node and measures its wall time. */
async function timed(argv: string[]): Promise<Timed> {
  const t0 = performance.now();
  const r = await node!.exec(argv, { timeoutMs: PHASE_TIMEOUT_MS });
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, ok: r.code === 0, detail: `${r.stdout}${r.stderr}`.trim() };
}

/** `--rootfs <root>` for a scratch root, nothing for the node's own (`/`). */
const rootfs = (root: string) => root === "/" ? [] : ["--rootfs", root];

/** `init phase …` of our kubeadm on `root`: the node's own (`/`) or a scratch root. */
function ours(p: PhaseSpec, root: string): Promise<Timed> {
  const config = p.config
    ? ["--config", `${root === "/" ? nodeConfigDir : root}/kubeadm-config.yaml`]
    : [];
  return timed([kubeadmLauncher(), "init", "phase", ...p.args, ...config, ...rootfs(root)]);
}

/** `init phase …` of upstream kubeadm on `root` (chrooted into a scratch root). */
function upstream(p: PhaseSpec, root: string): Promise<Timed> {
  const config = p.config
    ? ["--config", root === "/" ? `${nodeConfigDir}/kubeadm-config.yaml` : "/kubeadm-config.yaml"]
    : [];
  return timed([`${node!.binDir}/kubeadm`, "init", "phase", ...p.args, ...config, ...rootfs(root)]);
}

/** Where the node's config is (the node's directory, which the node sees as is). */
let nodeConfigDir = "";

async function scratchRoot(config: string): Promise<string> {
  // In the node's TMPDIR: a host directory the node sees at the same path.
  const dir = await Deno.makeTempDir({ dir: `${node!.machine.dir}/tmp`, prefix: "scratch-" });
  scratchDirs.add(dir);
  await Deno.copyFile(config, `${dir}/kubeadm-config.yaml`);
  return dir;
}

async function dropScratch(dir: string): Promise<void> {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  scratchDirs.delete(dir);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The error line of a failed run's output. */
function errorLine(text: string): string {
  const lines = text.split("\n");
  const line = lines.find((l) => /^error/i.test(l)) ?? lines.find((l) => /error|fail/i.test(l));
  return (line ?? lines.at(-1) ?? "").slice(0, 240);
}

const first = new Map<string, Timed>();
const oursRuns = new Map<string, Timed[]>(PHASES.map((p) => [p.name, []]));
const upRuns = new Map<string, Timed[]>(PHASES.map((p) => [p.name, []]));
/** `version -o short` per run: the cost of starting each implementation's process. */
const startup = { ours: [] as Timed[], upstream: [] as Timed[] };

try {
  node = await createClusterNode("cp1");
  nodeConfigDir = node.machine.dir;
  // writeInitConfig's config with a pinned version (no "stable-1" look-up on the internet) and
  // the certificate key (upstream refuses --certificate-key beside --config).
  const config = await writeInitConfig(node, "kubernetesVersion: v1.37.2\n");
  await Deno.writeTextFile(
    config,
    (await Deno.readTextFile(config)).replace(
      "kind: InitConfiguration\n",
      `kind: InitConfiguration\ncertificateKey: ${certificateKey()}\n`,
    ),
  );
  const root = "/";

  // 1. Build the control plane with our phases (the node's kubelet runs the static Pods).
  console.error("bench-init: building the control plane with our phases …");
  for (const p of PHASES) {
    const r = await ours(p, root);
    first.set(p.name, r);
    console.error(`  ours  ${p.name.padEnd(22)} ${r.seconds.toFixed(3)}s${r.ok ? "" : "  FAILED"}`);
    if (!r.ok) throw new Error(`our ${p.name} failed while building the cluster:\n${r.detail}`);
  }
  await waitFor("kube-system/coredns", async () => {
    const r = await node!.kubectl(["-n", "kube-system", "get", "deployment", "coredns"]);
    return r.code === 0;
  });

  // 2. Ours beside upstream, same conditions.
  for (let run = 0; run < runs; run++) {
    console.error(`bench-init: run ${run + 1}/${runs} …`);
    const scratch = { ours: await scratchRoot(config), upstream: await scratchRoot(config) };
    startup.ours.push(await timed([kubeadmLauncher(), "version", "-o", "short"]));
    startup.upstream.push(await timed([`${node.binDir}/kubeadm`, "version", "-o", "short"]));
    for (const p of PHASES) {
      const o = () => ours(p, p.where === "node" ? root : scratch.ours);
      const u = async () =>
        p.noUpstream ? undefined : await upstream(p, p.where === "node" ? root : scratch.upstream);
      let ro: Timed, ru: Timed | undefined;
      if (run % 2 === 0) {
        ro = await o();
        ru = await u();
      } else {
        ru = await u();
        ro = await o();
      }
      oursRuns.get(p.name)!.push(ro);
      if (ru) upRuns.get(p.name)!.push(ru);
      const show = (t: Timed | undefined) =>
        t ? `${t.seconds.toFixed(3)}s${t.ok ? "" : " FAILED"}` : "n/a";
      console.error(`  ${p.name.padEnd(22)} ours ${show(ro)}  upstream ${show(ru)}`);
    }
    await dropScratch(scratch.ours);
    await dropScratch(scratch.upstream);
  }
} finally {
  await cleanup();
}

// 3. Report.
const fmt = (x: number | undefined) => x === undefined ? "-" : x.toFixed(3);
const med = (ts: Timed[]) =>
  ts.length > 0 && ts.every((t) => t.ok) ? median(ts.map((t) => t.seconds)) : undefined;
const rows: string[][] = [];
const totals = { first: 0, oursAll: 0, ours: 0, upstream: 0 };
const notes: string[] = [];
for (const p of PHASES) {
  const f = first.get(p.name)!;
  const o = med(oursRuns.get(p.name)!);
  const u = med(upRuns.get(p.name)!);
  totals.first += f.seconds;
  totals.oursAll += o ?? 0;
  if (o !== undefined && u !== undefined) {
    totals.ours += o;
    totals.upstream += u;
  }
  for (const [who, ts] of [["ours", oursRuns], ["upstream", upRuns]] as const) {
    const bad = ts.get(p.name)!.find((t) => !t.ok);
    if (bad) notes.push(`${who} ${p.name} FAILED: ${errorLine(bad.detail)}`);
  }
  if (p.noUpstream) notes.push(`upstream ${p.name}: n/a, ${p.noUpstream}`);
  rows.push([
    p.name,
    p.where === "node" ? "cluster" : "node-local",
    fmt(f.seconds),
    fmt(o),
    p.noUpstream ? "n/a" : fmt(u),
    o !== undefined && u !== undefined ? `${(o / u).toFixed(2)}x` : "-",
  ]);
}
const totalRows = [
  [
    "total, phases both ran",
    "",
    "",
    fmt(totals.ours),
    fmt(totals.upstream),
    `${(totals.ours / totals.upstream).toFixed(2)}x`,
  ],
  ["total, all 14 phases", "", fmt(totals.first), fmt(totals.oursAll), "", ""],
];
const so = med(startup.ours), su = med(startup.upstream);
totalRows.push([
  "(process start: version)",
  "",
  "",
  fmt(so),
  fmt(su),
  so !== undefined && su !== undefined ? `${(so / su).toFixed(2)}x` : "-",
]);
const header = ["phase", "kind", "ours first (s)", "ours (s)", "upstream (s)", "ratio"];
const all = [header, ...rows, ...totalRows];
const widths = header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
const line = (r: string[]) =>
  r.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ").trimEnd();
const rule = widths.map((w) => "-".repeat(w)).join("  ");
console.log([line(header), rule, ...rows.map(line), rule, ...totalRows.map(line)].join("\n"));
console.log(`
What the figures measure: the wall time of one \`kubeadm init phase …\` process, from spawn to
exit, run as root inside a real node (its own namespaces, containerd, a real kubelet). "ours (s)" and
"upstream (s)" are medians of ${runs} run(s), each phase ours and upstream back to back under
the same conditions (order alternating between runs); ratio = ours / upstream.
- ours first: our phase as it ran while building the control plane, with the node's kubelet
  starting the static Pods as their manifests appeared (so the node was busy); there
  wait-control-plane includes the control plane's start-up and the cluster-side phases create
  their objects.
- node-local phases (preflight … kubelet-start), ours and upstream: a fresh run in an empty
  scratch root of its own, same config (upstream chroots via --rootfs and reads
  --config /kubeadm-config.yaml): keys, certificates, kubeconfigs and manifests are generated
  anew, ECDSA-P256. kubelet-start writes the kubelet's files only: no kubelet service can be
  (re)started for a scratch root. Our preflight runs with --ignore-preflight-errors=all.
- cluster-side phases (wait-control-plane … show-join-command), ours and upstream: a re-run on
  the node's root against the running control plane that our phases built: every object
  exists, so each phase reads and updates (idempotent). wait-control-plane finds the kubelet
  and the three components healthy: one round of health checks. Upstream's re-runs
  that make more than ~10 requests (bootstrap-token: a 409 then a PUT per object) are held
  back by client-go's client-side rate limit (5 requests/s, burst 10); a first run is not.
- upstream takes no --config for wait-control-plane and show-join-command (they do not inherit
  it), so both implementations run those two on defaults; upload-certs runs with
  --upload-certs and the certificate key set in the config (upstream refuses
  --certificate-key beside --config).
- totals: "phases both ran" sums the medians of the phases with both figures;
  "all 14 phases" is our build (ours first) and the sum of our medians.
- process start: \`kubeadm version -o short\` (no phase work), the fixed cost in every row:
  our launcher script starting Deno and loading the CLI vs a static Go binary.`);
if (notes.length > 0) console.log(`\nNotes:\n${notes.map((n) => `- ${n}`).join("\n")}`);
