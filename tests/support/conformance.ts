/**
 * The Kubernetes conformance suite on real test clusters (`scripts/conformance`, and the CI
 * slice in tests/e2e/conformance_test.ts): a cluster of one control plane and two workers on the
 * real-node harness (cluster.ts), made by our `init`/`join`, by upstream kubeadm v1.37.2's, or
 * made at v1.36.3 by ours and upgraded to v1.37.2 by our `upgrade apply`/`upgrade node`; a Pod
 * network spanning the nodes (pod_network.ts); the suite's test images imported into every
 * node, and served for pulls that must reach a registry (`imagePullPolicy: Always`) by a local
 * registry standing in for `registry.k8s.io` (oci_registry.ts); upstream's `e2e.test` v1.37.2
 * run by the `ginkgo` CLI from the host (`scripts/k8s-bins --set e2e`), its reports read back
 * into a summary.
 *
 * @module
 */
import {
  type ClusterNode,
  containerdTasks,
  CONTROL_PLANE_PODS,
  createClusterNode,
  importImages,
  initForJoin,
  kubectlJson,
  PREFLIGHT_IGNORED_CONTROL_PLANE,
  PREFLIGHT_IGNORED_WORKER,
  upgradeKubelet,
  waitNodeReady,
  workerJoinArgs,
} from "./cluster.ts";
import { kubeadmLauncher, type RunResult, waitFor } from "./commands.ts";
import { binSetDir, k8sBinDir } from "./k8s_bins.ts";
import { nodeBinDir } from "./node.ts";
import { importNodeImages, NODE_IMAGE_SET, nodeImages } from "./node_images.ts";
import { type OciRegistry, startOciRegistry, writeRegistryHosts } from "./oci_registry.ts";
import { PodNetwork } from "./pod_network.ts";

/** How the cluster is made. */
export type ClusterKind = "ours" | "upstream" | "upgrade";

/** The Kubernetes version the suite tests (its `e2e.test`), and the one `upgrade` starts from. */
export const SUITE_VERSION = "v1.37.2";
export const UPGRADE_FROM = "v1.36.3";

/**
 * The description `e2e.test` gives its suite. ginkgo matches `--focus` and `--skip` against it,
 * a space and the test's name (`Kubernetes e2e suite [sig-node] …`).
 */
export const SUITE_DESCRIPTION = "Kubernetes e2e suite";

/** A ginkgo `--focus` selecting exactly the tests named (Go's RE2 syntax, JavaScript's too). */
export function exactFocus(names: readonly string[]): string {
  const quote = (s: string) => s.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
  return `^${quote(SUITE_DESCRIPTION)} (${names.map(quote).join("|")})$`;
}

/** The image set of the suite's test images (`scripts/node-images --set e2e`). */
export const TEST_IMAGE_SET = "e2e";

/** Where the suite's binaries are: `e2e.test` and `ginkgo` (`scripts/k8s-bins --set e2e`). */
export function e2eBinDir(): Promise<string> {
  return binSetDir("e2e", "KUBEADM_TS_E2E_BIN_DIR", ["e2e.test", "ginkgo"]);
}

/**
 * Checks, before any node is made, that everything a run of `kind` needs is built, and fails
 * naming the build step that makes what is missing.
 */
export async function checkPrerequisites(kind: ClusterKind): Promise<void> {
  await e2eBinDir();
  await k8sBinDir();
  const versions = kind === "upgrade" ? [UPGRADE_FROM, SUITE_VERSION] : [SUITE_VERSION];
  for (const v of versions) await nodeBinDir(v);
  for (const set of [...versions, TEST_IMAGE_SET]) {
    for (const [ref, archive] of await nodeImages(set)) {
      if (!(await Deno.stat(archive).then((s) => s.isFile && s.size > 0, () => false))) {
        throw new Error(`${archive} (${ref}) is missing: run scripts/node-images --set ${set}`);
      }
    }
  }
}

/** A cluster the suite runs on. */
export interface ConformanceCluster {
  kind: ClusterKind;
  /** The control plane first, then the workers. */
  nodes: ClusterNode[];
  /** The host path of the cluster admin's kubeconfig (its server: the control plane's address). */
  kubeconfig: string;
  /** Each node's Pod CIDR. */
  podCidrs: ReadonlyMap<string, string>;
  /**
   * For `upgrade`: seconds from the target's images being imported to every node upgraded, its
   * kubelet replaced, kube-proxy rolled out and CoreDNS available again.
   */
  upgradeSeconds?: number;
  /** Copies every node's kubelet and containerd logs and its Pods' logs under `dir`. */
  collectLogs(dir: string): Promise<void>;
  /** Tears every node and registry down (safe to call twice). */
  close(): Promise<void>;
}

/** Options of {@link createConformanceCluster}. */
export interface ClusterOptions {
  /** Progress lines. */
  log?: (line: string) => void;
  /** Number of workers (default 2: the suite needs two schedulable nodes). */
  workers?: number;
  /** Where the nodes' logs go when the cluster does not come up. */
  logsDir?: string;
  /** Aborting tears the nodes down at once (the step under way then fails). */
  signal?: AbortSignal;
}

/** Fails with `what`'s output unless it succeeded. */
function ok(what: string, r: RunResult): RunResult {
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

/**
 * Makes a cluster of `kind`: the control plane by `init`, the workers by `join` (ours or
 * upstream kubeadm v1.37.2's), each node on the Pod network once registered, the test images
 * in every node, every node Ready and CoreDNS available; for `upgrade`, made at v1.36.3 and then
 * upgraded to v1.37.2 by our `upgrade apply` and `upgrade node`, each kubelet replaced by the
 * v1.37.2 one after it as an admin does. On failure every node's logs are in the error's
 * `logsDir` (when `logsDir` was given) and the nodes are torn down.
 */
export async function createConformanceCluster(
  kind: ClusterKind,
  opts: ClusterOptions = {},
): Promise<ConformanceCluster> {
  const log = opts.log ?? (() => {});
  await checkPrerequisites(kind);
  const version = kind === "upgrade" ? UPGRADE_FROM : SUITE_VERSION;
  const binDir = await k8sBinDir();
  const kubeadm = kind === "upstream" ? `${binDir}/kubeadm` : kubeadmLauncher();
  const nodes: ClusterNode[] = [];
  const registries: OciRegistry[] = [];
  const hostsDirs: string[] = [];
  const mirrored = await mirroredRepositories();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    const errors: string[] = [];
    for (const n of nodes.toReversed()) {
      await n.stop().catch((e) => errors.push(String(e)));
    }
    for (const r of registries) await r.close().catch(() => {});
    for (const d of hostsDirs) await Deno.remove(d, { recursive: true }).catch(() => {});
    if (errors.length > 0) throw new Error(`tear-down: ${errors.join("; ")}`);
  };
  const cluster: ConformanceCluster = {
    kind,
    nodes,
    kubeconfig: "",
    podCidrs: new Map(),
    collectLogs: (dir) => collectLogs(nodes, dir),
    close,
  };

  /** A node whose containerd pulls registry.k8s.io from a registry on its host address. */
  const boot = async (name: string, extra: Parameters<typeof createClusterNode>[1]) => {
    const hosts = await Deno.makeTempDir({ prefix: "kts-conformance-hosts-" });
    hostsDirs.push(hosts);
    log(`booting ${name}`);
    const node = await createClusterNode(name, {
      ...extra,
      version,
      cni: false,
      registryConfigDir: hosts,
    });
    if (closed) {
      await node.stop();
      throw new Error("aborted");
    }
    nodes.push(node);
    const registry = await startOciRegistry(node.hostAddress, mirrored);
    registries.push(registry);
    await writeRegistryHosts(hosts, "registry.k8s.io", registry.host);
    return node;
  };

  const onAbort = () => close().catch((e) => log(String(e)));
  opts.signal?.addEventListener("abort", onAbort);
  try {
    const cp1 = await boot("cp1", {});
    log(`init on cp1 (${kind === "upstream" ? "upstream kubeadm v1.37.2" : "kubeadm-ts"})`);
    const { endpoint, pin } = await initForJoin(
      cp1,
      `kubernetesVersion: ${version}\n`,
      undefined, // its own address
      kubeadm,
    );
    cluster.kubeconfig = cp1.path("/etc/kubernetes/admin.conf");
    const network = new PodNetwork(cp1);
    await network.add(cp1);

    for (let i = 1; i <= (opts.workers ?? 2); i++) {
      const name = `worker${i}`;
      const worker = await boot(name, { linkTo: [...nodes], role: "worker" });
      log(`join ${name}`);
      ok(
        `join ${name}`,
        await worker.exec([kubeadm, ...workerJoinArgs(endpoint, pin, name)], {
          timeoutMs: 10 * 60_000,
        }),
      );
      await network.add(worker);
    }
    cluster.podCidrs = network.podCidrs;
    log(`Pod network: ${[...network.podCidrs].map(([n, c]) => `${n} ${c}`).join(", ")}`);
    for (const node of nodes) await waitNodeReady(cp1, node.name, 180_000);
    await waitCoreDnsAvailable(cp1);

    if (kind === "upgrade") {
      const upgradeStarted = performance.now();
      log(`upgrade to ${SUITE_VERSION}: the admin pre-pulls its images`);
      for (const node of nodes) {
        await importImages(node, SUITE_VERSION, node === cp1 ? "control-plane" : "worker");
      }
      log(`upgrade apply ${SUITE_VERSION} on cp1`);
      ok(
        "upgrade apply",
        await cp1.kubeadm([
          "upgrade",
          "apply",
          SUITE_VERSION,
          "--yes",
          "--etcd-upgrade=true",
          `--ignore-preflight-errors=${PREFLIGHT_IGNORED_CONTROL_PLANE}`,
        ]),
      );
      // The v1.37 kubelet starts every static Pod again, under new Pod UIDs, seconds after the
      // Node reports it (tests/e2e/upgrade_test.ts): the control plane, etcd too, is away
      // meanwhile. An admin waits for it before upgrading the next node.
      const before = await staticPodContainers(cp1);
      await upgradeKubelet(cp1, cp1, SUITE_VERSION);
      await waitStaticPodsRestarted(cp1, before, log);
      for (const worker of nodes.slice(1)) {
        log(`upgrade node on ${worker.name}`);
        ok(
          `upgrade node on ${worker.name}`,
          await worker.kubeadm([
            "upgrade",
            "node",
            `--ignore-preflight-errors=${PREFLIGHT_IGNORED_WORKER}`,
          ]),
        );
        await upgradeKubelet(cp1, worker, SUITE_VERSION);
      }
      const v = JSON.parse(
        ok("kubectl version", await cp1.kubectl(["version", "-o", "json"])).stdout,
      );
      if (v.serverVersion?.gitVersion !== SUITE_VERSION) {
        throw new Error(`the API server reports ${v.serverVersion?.gitVersion} after the upgrade`);
      }
      await waitKubeProxyRolledOut(cp1, SUITE_VERSION);
      await waitCoreDnsAvailable(cp1);
      cluster.upgradeSeconds = (performance.now() - upgradeStarted) / 1000;
      log(`upgraded in ${formatDuration(cluster.upgradeSeconds)}`);
    }

    log("importing the test images into every node");
    for (const node of nodes) {
      await importNodeImages(
        node.machine,
        `unix://${node.machine.criSocketOnHost}`,
        undefined,
        TEST_IMAGE_SET,
      );
    }
    if (closed) throw new Error("aborted");
    return cluster;
  } catch (e) {
    if (opts.logsDir && !opts.signal?.aborted) {
      await collectLogs(nodes, opts.logsDir).catch((c) => log(`collecting logs: ${c}`));
    }
    await close().catch((c) => log(String(c)));
    throw new ClusterError(e instanceof Error ? e.message : String(e), opts.logsDir);
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
  }
}

/** A cluster that did not come up; its nodes' logs are in `logsDir` when one was given. */
export class ClusterError extends Error {
  constructor(message: string, readonly logsDir?: string) {
    super(`the cluster did not come up: ${message}${logsDir ? `\n(node logs in ${logsDir})` : ""}`);
    this.name = "ClusterError";
  }
}

/** Waits for the CoreDNS Deployment kubeadm created to be Available. */
async function waitCoreDnsAvailable(cp1: ClusterNode): Promise<void> {
  await waitFor("CoreDNS Available", async () => {
    const d = await kubectlJson(cp1, ["-n", "kube-system", "get", "deployment", "coredns"]);
    const status = d.status as
      | { conditions?: { type: string; status: string }[]; availableReplicas?: number }
      | undefined;
    return status?.conditions?.some((c) => c.type === "Available" && c.status === "True") &&
      (status.availableReplicas ?? 0) > 0;
  }, 240_000);
}

/**
 * The container of each control-plane static Pod of `node` whose mirror Pod reports it ready
 * (component → containerd ID).
 */
async function staticPodContainers(node: ClusterNode): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const c of CONTROL_PLANE_PODS) {
    const pod = await kubectlJson(node, ["-n", "kube-system", "get", "pod", `${c}-${node.name}`])
      .catch(() => undefined) as
        | { status?: { containerStatuses?: { ready?: boolean; containerID?: string }[] } }
        | undefined;
    const status = pod?.status?.containerStatuses?.[0];
    if (status?.ready && status.containerID) {
      out.set(c, status.containerID.replace(/^containerd:\/\//, ""));
    }
  }
  return out;
}

/**
 * Waits for `node`'s control-plane static Pods to run again in containers other than `before`'s
 * (their tasks running in its containerd, their mirror Pods ready). Should the new kubelet keep
 * the old containers, it says so and waits only for every one to be ready.
 */
async function waitStaticPodsRestarted(
  node: ClusterNode,
  before: ReadonlyMap<string, string>,
  log: (line: string) => void,
): Promise<void> {
  const running = async (fresh: boolean) => {
    const now = await staticPodContainers(node);
    const tasks = await containerdTasks(node);
    return CONTROL_PLANE_PODS.every((c) => {
      const id = now.get(c);
      return id !== undefined && tasks.get(id) === "RUNNING" && (!fresh || id !== before.get(c));
    });
  };
  const what = `${node.name}'s static Pods running again, in new containers`;
  const restarted = await waitFor(what, () => running(true), 240_000).then(
    () => true,
    (e) => {
      log(`${e instanceof Error ? e.message : e}; waiting for them to be ready as they are`);
      return false;
    },
  );
  if (!restarted) {
    await waitFor(`${node.name}'s static Pods running, ready`, () => running(false), 120_000);
  }
}

/**
 * Waits for the kube-proxy DaemonSet `upgrade apply` updated to run `version` on every node,
 * each Pod available (no old kube-proxy left programming Services when the suite starts).
 */
async function waitKubeProxyRolledOut(cp1: ClusterNode, version: string): Promise<void> {
  await waitFor(`kube-proxy ${version} rolled out`, async () => {
    const ds = await kubectlJson(cp1, ["-n", "kube-system", "get", "daemonset", "kube-proxy"]);
    return daemonSetRolledOut(ds, `registry.k8s.io/kube-proxy:${version}`);
  }, 300_000);
}

/**
 * Whether a DaemonSet (its JSON) runs `image` and its controller has rolled it out: the spec
 * observed, every scheduled Pod updated and available.
 */
export function daemonSetRolledOut(ds: Record<string, unknown>, image: string): boolean {
  const d = ds as {
    metadata?: { generation?: number };
    spec?: { template?: { spec?: { containers?: { image?: string }[] } } };
    status?: {
      observedGeneration?: number;
      desiredNumberScheduled?: number;
      updatedNumberScheduled?: number;
      numberAvailable?: number;
    };
  };
  const st = d.status ?? {};
  const want = st.desiredNumberScheduled ?? 0;
  return (d.spec?.template?.spec?.containers ?? []).some((c) => c.image === image) &&
    st.observedGeneration === d.metadata?.generation && want > 0 &&
    st.updatedNumberScheduled === want && st.numberAvailable === want;
}

/**
 * The repositories the nodes' registry serves (`registry.k8s.io/<repository>` → archive): the
 * test images and the v1.37.2 node images the suite names (pause, etcd: the aggregator's).
 */
async function mirroredRepositories(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const set of [TEST_IMAGE_SET, NODE_IMAGE_SET]) {
    for (const [ref, archive] of await nodeImages(set)) {
      const repo = ref.replace(/^registry\.k8s\.io\//, "").replace(/:[^:/]+$/, "");
      if (!out.has(repo)) out.set(repo, archive);
    }
  }
  return out;
}

/**
 * Copies each node's unit logs (kubelet, containerd) and its Pods' logs (`/var/log/pods`: the
 * control-plane components, kube-proxy, CoreDNS, …) to `<dir>/<node>/`.
 */
async function collectLogs(nodes: readonly ClusterNode[], dir: string): Promise<void> {
  for (const node of nodes) {
    const out = `${dir}/${node.name}`;
    await Deno.mkdir(`${out}/pods`, { recursive: true });
    for (const unit of ["kubelet", "containerd"]) {
      await Deno.writeTextFile(`${out}/${unit}.log`, await node.machine.log(unit));
    }
    const pods = node.path("/var/log/pods");
    const entries = await Array.fromAsync(Deno.readDir(pods)).catch(() => []);
    for (const pod of entries) {
      for await (const c of Deno.readDir(`${pods}/${pod.name}`)) {
        for await (const f of Deno.readDir(`${pods}/${pod.name}/${c.name}`)) {
          if (!f.isFile) continue;
          await Deno.copyFile(
            `${pods}/${pod.name}/${c.name}/${f.name}`,
            `${out}/pods/${pod.name}_${c.name}_${f.name}`,
          );
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------

/** The two phases of a conformance run: non-`[Serial]` tests in parallel, then `[Serial]` alone. */
export type Phase = "parallel" | "serial";

/** Options of {@link runSuite}. */
export interface SuiteOptions {
  /** Which phases to run, in order (default both). */
  phases?: readonly Phase[];
  /** A regular expression the tests' full names must match (ginkgo `--focus`). */
  focus?: string;
  /** A regular expression of tests not to run (ginkgo `--skip`). */
  skip?: string;
  /** ginkgo processes of the parallel phase (default 5). */
  procs?: number;
  /** Where ginkgo's JSON and JUnit reports, its output and the e2e artifacts go. */
  reportDir: string;
  /** ginkgo's own deadline for each phase, in minutes (default 180). */
  timeoutMinutes?: number;
  /** Lines of ginkgo's output, as they come. */
  output?: (line: string) => void;
  /** Aborting kills ginkgo and its test processes. */
  signal?: AbortSignal;
}

/** What happened to one test. */
export type TestState =
  | "passed"
  | "failed"
  | "skipped"
  | "panicked"
  | "interrupted"
  | "aborted"
  | "timedout"
  | "pending";

/** One test of the run. */
export interface TestResult {
  /** Its full name (`[sig-…] … [Conformance]`, as conformance.yaml's codename). */
  name: string;
  phase: Phase;
  state: TestState;
  seconds: number;
  /** The first line of its failure (or skip) message, if any. */
  message?: string;
}

/** A run of the suite. */
export interface SuiteResult {
  tests: TestResult[];
  /** Wall time of each phase run, in seconds. */
  phaseSeconds: Partial<Record<Phase, number>>;
  /** Failures outside any test (the suite's set-up or tear-down), first lines. */
  suiteErrors: string[];
}

/** ginkgo's label filter selecting each phase's tests. */
const PHASE_LABELS: Record<Phase, string> = {
  parallel: "Conformance && !Serial",
  serial: "Conformance && Serial",
};

/**
 * Runs the conformance suite against `cluster` from the host: per phase, `ginkgo` running
 * `e2e.test` (the parallel phase with `procs` processes, the serial one with one), with the
 * cluster admin's kubeconfig, provider `skeleton`, kubectl v1.37.2 on PATH; writes
 * `<reportDir>/<phase>/{report.json,junit.xml,ginkgo.log}` and returns the tests it selected.
 */
export async function runSuite(
  cluster: Pick<ConformanceCluster, "kubeconfig">,
  opts: SuiteOptions,
): Promise<SuiteResult> {
  const bin = await e2eBinDir();
  const k8s = await k8sBinDir();
  const result: SuiteResult = { tests: [], phaseSeconds: {}, suiteErrors: [] };
  for (const phase of opts.phases ?? ["parallel", "serial"]) {
    if (opts.signal?.aborted) break;
    const dir = `${opts.reportDir}/${phase}`;
    await Deno.mkdir(`${dir}/artifacts`, { recursive: true });
    const procs = phase === "parallel" ? opts.procs ?? 5 : 1;
    const argv = [
      `${bin}/ginkgo`,
      `--procs=${procs}`,
      `--timeout=${opts.timeoutMinutes ?? 180}m`,
      `--label-filter=${PHASE_LABELS[phase]}`,
      ...(opts.focus ? [`--focus=${opts.focus}`] : []),
      ...(opts.skip ? [`--skip=${opts.skip}`] : []),
      "--no-color",
      `--output-dir=${dir}`,
      "--json-report=report.json",
      "--junit-report=junit.xml",
      `${bin}/e2e.test`,
      "--",
      `--kubeconfig=${cluster.kubeconfig}`,
      "--provider=skeleton",
      `--report-dir=${dir}/artifacts`,
      `--e2e-output-dir=${dir}/artifacts`,
    ];
    const started = performance.now();
    const code = await runLogged(argv, {
      env: {
        PATH: `${k8s}:${Deno.env.get("PATH") ?? "/usr/sbin:/usr/bin:/sbin:/bin"}`,
        KUBECONFIG: cluster.kubeconfig,
        HOME: Deno.env.get("HOME") ?? "/root",
        TMPDIR: Deno.env.get("TMPDIR") ?? "/tmp",
      },
      logPath: `${dir}/ginkgo.log`,
      output: opts.output,
      signal: opts.signal,
    });
    result.phaseSeconds[phase] = (performance.now() - started) / 1000;
    const report = await Deno.readTextFile(`${dir}/report.json`).catch(() => undefined);
    if (report === undefined) {
      result.suiteErrors.push(
        `${phase}: ginkgo exited ${code} and wrote no report (see ${dir}/ginkgo.log)`,
      );
      continue;
    }
    const read = readGinkgoReport(JSON.parse(report), phase, opts.focus, opts.skip);
    result.tests.push(...read.tests);
    result.suiteErrors.push(...read.suiteErrors);
  }
  return result;
}

/**
 * Runs a command in a process group of its own, its output (stdout and stderr, by lines) to
 * `output` and to `logPath`; aborting kills the group. Returns its exit status.
 */
async function runLogged(
  argv: string[],
  o: {
    env: Record<string, string>;
    logPath: string;
    output?: (line: string) => void;
    signal?: AbortSignal;
  },
): Promise<number> {
  const child = new Deno.Command("setsid", {
    args: argv,
    env: o.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const kill = () => {
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch {
      // gone
    }
  };
  o.signal?.addEventListener("abort", kill);
  const log = await Deno.open(o.logPath, { create: true, write: true, truncate: true });
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    let rest = "";
    for await (const bytes of stream) {
      const lines = (rest + decoder.decode(bytes, { stream: true })).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        o.output?.(line);
        await log.write(new TextEncoder().encode(`${line}\n`));
      }
    }
    if (rest) {
      o.output?.(rest);
      await log.write(new TextEncoder().encode(`${rest}\n`));
    }
  };
  try {
    await Promise.all([pump(child.stdout), pump(child.stderr)]);
    return (await child.status).code;
  } finally {
    o.signal?.removeEventListener("abort", kill);
    log.close();
  }
}

/** The parts of a ginkgo v2 JSON report read here. */
interface GinkgoSpecReport {
  ContainerHierarchyTexts?: string[] | null;
  ContainerHierarchyLabels?: (string[] | null)[] | null;
  LeafNodeType: string;
  LeafNodeText: string;
  LeafNodeLabels?: string[] | null;
  State: TestState;
  RunTime: number;
  Failure?: { Message?: string };
}

/**
 * The tests of a ginkgo JSON report that `phase` selected — labelled `Conformance`, `Serial` as
 * the phase wants, matching `focus` and not `skip` as ginkgo matches them (the suite's
 * description, a space, the name) — and the failures of its suite nodes. (Specs the filters
 * left out are in the report as `skipped` too; they are not the run's.)
 */
export function readGinkgoReport(
  reports: { SuiteDescription?: string; SpecReports?: GinkgoSpecReport[] | null }[],
  phase: Phase,
  focus?: string,
  skip?: string,
): { tests: TestResult[]; suiteErrors: string[] } {
  const tests: TestResult[] = [];
  const suiteErrors: string[] = [];
  const focusRe = focus ? new RegExp(focus) : undefined;
  const skipRe = skip ? new RegExp(skip) : undefined;
  for (const report of reports) {
    for (const s of report.SpecReports ?? []) {
      const message = s.Failure?.Message?.trim().split("\n")[0];
      if (s.LeafNodeType !== "It") {
        if (s.State !== "passed" && s.State !== "skipped") {
          suiteErrors.push(`${phase}: ${s.LeafNodeType} ${s.State}: ${message ?? ""}`);
        }
        continue;
      }
      const labels = new Set([
        ...(s.LeafNodeLabels ?? []),
        ...(s.ContainerHierarchyLabels ?? []).flatMap((l) => l ?? []),
      ]);
      const name = [...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText].join(" ");
      if (!labels.has("Conformance") || labels.has("Serial") !== (phase === "serial")) continue;
      const matched = `${report.SuiteDescription ?? ""} ${name}`;
      if ((focusRe && !focusRe.test(matched)) || skipRe?.test(matched)) continue;
      tests.push({
        name,
        phase,
        state: s.State,
        seconds: s.RunTime / 1e9,
        ...(message && s.State !== "passed" ? { message } : {}),
      });
    }
  }
  return { tests, suiteErrors };
}

/** Counts of a run by state: passed, failed (every state but passed and skipped), skipped. */
export function counts(tests: readonly TestResult[]): {
  passed: number;
  failed: number;
  skipped: number;
} {
  const passed = tests.filter((t) => t.state === "passed").length;
  const skipped = tests.filter((t) => t.state === "skipped").length;
  return { passed, failed: tests.length - passed - skipped, skipped };
}

/** One line per test, sorted by name: `state<TAB>seconds<TAB>phase<TAB>name`. */
export function resultsTable(tests: readonly TestResult[]): string {
  return tests.toSorted((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
    .map((t) => `${t.state}\t${t.seconds.toFixed(1)}\t${t.phase}\t${t.name}\n`).join("");
}

/**
 * Where `--record` copies a run's summary and results, under the repository: `conformance/<kind>`
 * (`ours`, `upstream`, `upgrade`) for a run of the whole suite or of its parallel phase,
 * `<kind>/serial` for the serial phase alone, `<kind>/subset` for a `--focus` or `--skip` run,
 * so a partial run never overwrites a full one's, nor one kind's another's.
 */
export function recordDir(
  kind: ClusterKind,
  phases: readonly Phase[],
  filters: { focus?: string; skip?: string } = {},
): string {
  const base = `conformance/${kind}`;
  if (filters.focus !== undefined || filters.skip !== undefined) return `${base}/subset`;
  return phases.length === 1 && phases[0] === "serial" ? `${base}/serial` : base;
}

/** `1h02m03s` */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}h${pad(m)}m${pad(s % 60)}s` : `${m}m${pad(s % 60)}s`;
}

/** What a summary says about the run besides its results. */
export interface SummaryContext {
  kind: ClusterKind;
  /** ISO date of the run's start. */
  date: string;
  /** kubeadm-ts' commit (and whether the tree had changes). */
  commit: string;
  /** Seconds from the first node's boot to the cluster being ready for the suite. */
  clusterSeconds: number;
  /** For `upgrade`: the part of `clusterSeconds` the upgrade took. */
  upgradeSeconds?: number;
  /** Seconds of the whole run. */
  totalSeconds: number;
  procs: number;
  focus?: string;
}

const KIND_TEXT: Record<ClusterKind, string> = {
  ours: "made by kubeadm-ts (init, join)",
  upstream: "made by upstream kubeadm v1.37.2 (init, join)",
  upgrade: "made at v1.36.3 by kubeadm-ts, upgraded to v1.37.2 by kubeadm-ts (upgrade apply, node)",
};

/** The one-screen summary of a run. */
export function summary(ctx: SummaryContext, result: SuiteResult): string {
  const c = counts(result.tests);
  const failed = result.tests.filter((t) => t.state !== "passed" && t.state !== "skipped");
  const phases = (Object.entries(result.phaseSeconds) as [Phase, number][])
    .map(([p, s]) =>
      `${p} ${formatDuration(s)}${p === "parallel" ? ` (${ctx.procs} ginkgo processes)` : ""}`
    );
  const lines = [
    `Kubernetes ${SUITE_VERSION} conformance, cluster ${KIND_TEXT[ctx.kind]}`,
    `1 control plane + 2 workers on real nodes (containerd v2.4.2, kubelet ${
      ctx.kind === "upgrade" ? `${UPGRADE_FROM} → ${SUITE_VERSION}` : SUITE_VERSION
    }), Pod network: bridge + host routes`,
    `date ${ctx.date}  kubeadm-ts ${ctx.commit}${ctx.focus ? `  focus ${ctx.focus}` : ""}`,
    `wall time ${formatDuration(ctx.totalSeconds)}: cluster ${formatDuration(ctx.clusterSeconds)}${
      ctx.upgradeSeconds === undefined ? "" : ` (upgrade ${formatDuration(ctx.upgradeSeconds)})`
    }, ${phases.join(", ")}`,
    `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped (${result.tests.length} tests)`,
    ...result.suiteErrors.map((e) => `suite error: ${e}`),
    ...(failed.length > 0 ? ["failed:"] : []),
    ...failed.map((t) => `  [${t.state}] ${t.name}\n      ${t.message ?? ""}`),
  ];
  return `${lines.join("\n")}\n`;
}
