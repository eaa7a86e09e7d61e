/**
 * `scripts/conformance`: the Kubernetes v1.37.2 conformance suite on a real cluster of one
 * control plane and two workers made by kubeadm-ts (default), by upstream kubeadm v1.37.2
 * (`--upstream`), or made at v1.36.3 by kubeadm-ts and upgraded to v1.37.2 by it (`--upgrade`);
 * see tests/support/conformance.ts. Builds what is missing first (cached; `--no-build` refuses
 * instead, naming the build step), holds the machine's real-node lock while the cluster lives,
 * writes the reports and prints the one-screen summary.
 *
 * Usage: scripts/conformance [--upstream | --upgrade] [--focus REGEX] [--skip REGEX]
 *          [--phases parallel,serial] [--procs N] [--report DIR] [--record] [--no-build]
 *
 * @module
 */
import { scriptArgs } from "./script_args.ts";
import {
  checkPrerequisites,
  ClusterError,
  type ClusterKind,
  counts,
  createConformanceCluster,
  type Phase,
  recordDir,
  resultsTable,
  runSuite,
  summary,
} from "../tests/support/conformance.ts";
import { takeRealNodeLock } from "../tests/support/realnode_lock.ts";
import { repoRoot } from "../tests/support/repo.ts";

const USAGE =
  `usage: scripts/conformance [--upstream | --upgrade] [--focus REGEX] [--skip REGEX] [--phases parallel,serial] [--procs N] [--report DIR] [--record] [--no-build]`;

const cli = scriptArgs("conformance", {
  upstream: { type: "boolean", default: false },
  upgrade: { type: "boolean", default: false },
  focus: { type: "string" },
  skip: { type: "string" },
  phases: { type: "string", default: "parallel,serial" },
  procs: { type: "string", default: "5" },
  report: { type: "string" },
  record: { type: "boolean", default: false },
  "no-build": { type: "boolean", default: false },
}, { usage: USAGE });
const args = cli.values;
/** Bad input: the message, the usage line, exit status 2, nothing made. */
const refuse = cli.refuse;
if (args.upstream && args.upgrade) {
  refuse("--upstream and --upgrade do not go together (upgrade runs kubeadm-ts' upgrade)");
}
const kind: ClusterKind = args.upstream ? "upstream" : args.upgrade ? "upgrade" : "ours";
for (const flag of ["focus", "skip"] as const) {
  const re = args[flag];
  if (re === undefined) continue;
  if (re === "") refuse(`--${flag}: an empty regular expression`);
  try {
    new RegExp(re);
  } catch (e) {
    refuse(`--${flag} ${JSON.stringify(re)}: not a regular expression (${(e as Error).message})`);
  }
}
const phases = args.phases.split(",") as Phase[];
if (
  phases.length === 0 || phases.some((p) => p !== "parallel" && p !== "serial") ||
  new Set(phases).size !== phases.length
) {
  refuse(`--phases ${JSON.stringify(args.phases)}: a list of parallel and serial, each once`);
}
const procs = Number(args.procs);
if (!/^[0-9]+$/.test(args.procs) || procs < 1 || procs > 32) {
  refuse(`--procs ${JSON.stringify(args.procs)}: a whole number from 1 to 32`);
}
if (Deno.uid() !== 0) refuse("needs root (namespaces, mounts, cgroups of the real nodes)");

const started = new Date();
const stamp = started.toISOString().replace(/[:.]/g, "-").slice(0, 19);
const cacheRoot = Deno.env.get("KUBEADM_TS_CACHE") ?? `${Deno.env.get("HOME")}/.cache/kubeadm-ts`;
const reportDir = args.report ?? `${cacheRoot}/conformance/${kind}-${stamp}`;

/** Runs a build script, its progress on stderr; fails the run when it fails. */
async function build(argv: string[]): Promise<void> {
  console.error(`scripts/conformance: ${argv.join(" ")}`);
  const r = await new Deno.Command(`${repoRoot}/${argv[0]}`, {
    args: argv.slice(1),
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!r.success) {
    console.error(`scripts/conformance: ${argv.join(" ")} failed`);
    Deno.exit(1);
  }
}

const sets = kind === "upgrade" ? ["v1.36.3", "v1.37.2"] : ["v1.37.2"];
if (!args["no-build"]) {
  for (const set of ["containerd", "coredns", ...sets, "e2e"]) {
    await build(["scripts/k8s-bins", "--set", set]);
  }
  for (const set of [...sets, "e2e"]) await build(["scripts/node-images", "--set", set]);
}
try {
  await checkPrerequisites(kind);
} catch (e) {
  console.error(`scripts/conformance: ${(e as Error).message}`);
  Deno.exit(2);
}

const commit = await gitDescribe();
await Deno.mkdir(reportDir, { recursive: true });

// The machine runs one real-node cluster at a time (HELPERS.md): take its lock for as long as
// the cluster lives (or go on under it when started by `flock <lock> scripts/conformance …`).
const lockPath = Deno.env.get("KUBEADM_TS_REALNODE_LOCK") ?? "/tmp/kts-realnode.lock";
const lock = await takeRealNodeLock(
  lockPath,
  (line) => console.error(`scripts/conformance: ${line}`),
);

const abort = new AbortController();
const onSignal = () => {
  console.error("\nscripts/conformance: interrupted, tearing the cluster down");
  abort.abort();
};
for (const s of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(s, onSignal);

const log = (line: string) =>
  console.error(`[${((performance.now() - t0) / 1000).toFixed(0).padStart(5)}s] ${line}`);
const t0 = performance.now();
let status = 1;
try {
  log(`cluster: ${kind}; reports in ${reportDir}`);
  const cluster = await createConformanceCluster(kind, {
    log,
    logsDir: `${reportDir}/logs`,
    signal: abort.signal,
  });
  const clusterSeconds = (performance.now() - t0) / 1000;
  try {
    log(`cluster ready; running the suite (${phases.join(", ")})`);
    const result = await runSuite(cluster, {
      phases,
      focus: args.focus,
      skip: args.skip,
      procs,
      reportDir,
      output: (line) => console.log(line),
      signal: abort.signal,
    });
    const text = summary({
      kind,
      date: started.toISOString().slice(0, 19) + "Z",
      commit,
      clusterSeconds,
      upgradeSeconds: cluster.upgradeSeconds,
      totalSeconds: (performance.now() - t0) / 1000,
      procs,
      focus: args.focus,
    }, result);
    await Deno.writeTextFile(`${reportDir}/summary.txt`, text);
    await Deno.writeTextFile(`${reportDir}/results.tsv`, resultsTable(result.tests));
    const c = counts(result.tests);
    if (c.failed > 0 || result.suiteErrors.length > 0) {
      await cluster.collectLogs(`${reportDir}/logs`);
    }
    if (args.record) {
      const dir = `${repoRoot}/${recordDir(kind, phases, { focus: args.focus, skip: args.skip })}`;
      await Deno.mkdir(dir, { recursive: true });
      await Deno.copyFile(`${reportDir}/summary.txt`, `${dir}/summary.txt`);
      await Deno.copyFile(`${reportDir}/results.tsv`, `${dir}/results.tsv`);
    }
    console.log(`\n${text}reports: ${reportDir}`);
    status = !abort.signal.aborted && result.tests.length > 0 && c.failed === 0 &&
        result.suiteErrors.length === 0
      ? 0
      : 1;
  } finally {
    await cluster.close();
  }
} catch (e) {
  console.error(`scripts/conformance: ${e instanceof ClusterError ? e.message : e}`);
} finally {
  lock.close();
}
Deno.exit(abort.signal.aborted ? 130 : status);

/** kubeadm-ts' commit, `+changes` when the tree differs from it. */
async function gitDescribe(): Promise<string> {
  const git = async (...a: string[]) =>
    new TextDecoder().decode(
      (await new Deno.Command("git", { args: ["-C", repoRoot, ...a], stdout: "piped" }).output())
        .stdout,
    ).trim();
  const head = await git("rev-parse", "--short=12", "HEAD");
  const dirty = (await git("status", "--porcelain", "--untracked-files=no")) !== "";
  return `${head}${dirty ? "+changes" : ""}`;
}
