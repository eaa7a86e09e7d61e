/**
 * The fault matrix's harness (tests/e2e/faults_*): faults done to real nodes while kubeadm
 * runs, and what must hold afterwards.
 *
 * - Cells: an operation × a fault. The CI slice (`ci: true`) runs in every `scripts/test`;
 *   `scripts/test --faults` sets `KUBEADM_TS_FAULTS=all` and runs every cell, and
 *   `KUBEADM_TS_FAULTS_REPORT=<file>` makes each cell append its outcome there (one JSON line),
 *   which `scripts/faults_matrix.ts` turns into README's table.
 * - Faults: kubeadm SIGKILLed or stopped at a named point (the CLI's test-only fault
 *   injection, `adapters/deno/fault_injection.ts`); the node's kube-apiserver crashed (its
 *   container SIGKILLed, the kubelet starts it again); its etcd member stopped (its manifest
 *   taken out); its packets to the cluster dropped (iptables in its network namespace); its disk
 *   full (a tmpfs filled); its clock behind (`faketime`).
 * - Afterwards: the node's files and the cluster's objects as an undisturbed run left them
 *   ({@link nodeFiles}, {@link clusterObjects}), and nothing lost ({@link assertNothingLost}).
 *
 * @module
 */
import assert from "node:assert/strict";
import { type ClusterNode, CONTROL_PLANE_PODS, etcdMembers, kubectlJson } from "./cluster.ts";
import { kubeadmLauncher, type RunResult, waitFor } from "./commands.ts";
import { checkKubeconfigClients, checkPkiDir } from "./pki_checks.ts";
import { FAULT_INJECT_ENV } from "../../adapters/deno/fault_injection.ts";
import { CriClient } from "../../adapters/deno/cri/client.ts";
import { openssl } from "./openssl.ts";

/**
 * `all`: every cell runs (`scripts/test --faults`); a regular expression: the cells whose
 * `<operation> × <fault>` it matches (to run the matrix in parts); unset: the CI slice only.
 */
export const FAULTS_ENV = "KUBEADM_TS_FAULTS";
/** A file each cell appends its outcome to (JSON lines), when set. */
export const FAULTS_REPORT_ENV = "KUBEADM_TS_FAULTS_REPORT";

/** One cell of the matrix. */
export interface Cell {
  /** The operation, as README's matrix names it (`init`, `join (worker)`, …). */
  operation: string;
  /** The fault (`kill at phase:certs/ca`, `API server restart`, …). */
  fault: string;
  /** In the CI slice. */
  ci?: boolean;
}

/** What a cell found. */
export interface CellOutcome extends Cell {
  /** E.g. `converged on re-run`, `refused (reset advised); converged after reset`. */
  outcome: string;
  seconds: number;
}

/** Whether the matrix (all or part of it) runs rather than the CI slice. */
export function allFaults(): boolean {
  return Boolean(Deno.env.get(FAULTS_ENV));
}

/** A cell's name: `<operation> × <fault>`. */
export function cellName(cell: Cell): string {
  return `${cell.operation} × ${cell.fault}`;
}

/** The cells to run now: those {@link FAULTS_ENV} selects, else the CI slice. */
export function selectCells<T extends Cell>(cells: readonly T[]): T[] {
  const chosen = Deno.env.get(FAULTS_ENV);
  if (!chosen) return cells.filter((c) => c.ci);
  if (chosen === "all") return [...cells];
  const re = new RegExp(chosen);
  return cells.filter((c) => re.test(cellName(c)));
}

/** Appends a cell's outcome to the report file, when one is set. */
export async function recordOutcome(outcome: CellOutcome): Promise<void> {
  const file = Deno.env.get(FAULTS_REPORT_ENV);
  if (!file) return;
  await Deno.writeTextFile(file, `${JSON.stringify(outcome)}\n`, { append: true });
}

/**
 * Runs `cell` as a test step: `fn` returns the outcome's words; the time and outcome are
 * recorded.
 */
export async function runCell(
  t: Deno.TestContext,
  cell: Cell,
  fn: () => Promise<string>,
): Promise<void> {
  await t.step(cellName(cell), async () => {
    const t0 = performance.now();
    const outcome = await fn();
    const seconds = Math.round((performance.now() - t0) / 1000);
    console.log(`  ${cellName(cell)} → ${outcome} (${seconds} s)`);
    await recordOutcome({ ...cell, outcome, seconds });
  });
}

/**
 * Runs our kubeadm in `node` with fault injection armed to SIGKILL it at `point`; asserts that
 * it died there (not before, not after).
 */
export async function killedAt(
  node: ClusterNode,
  args: string[],
  point: string,
  env: Record<string, string> = {},
): Promise<RunResult> {
  const r = await node.kubeadm(args, { env: { ...env, [FAULT_INJECT_ENV]: `kill@${point}` } });
  assert.notEqual(r.code, 0, `not killed at ${point}: it finished:\n${r.stdout}\n${r.stderr}`);
  assert.ok(
    r.stderr.endsWith(`kubeadm-ts: fault injection: kill at ${point}\n`),
    `not killed at ${point}:\n${r.stdout}\n${r.stderr}`,
  );
  return r;
}

/** Host PIDs of the stopped (`T`) processes of process group `pgid`. */
async function stoppedInGroup(pgid: number): Promise<number[]> {
  const out: number[] = [];
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const stat = await Deno.readTextFile(`/proc/${e.name}/stat`).catch(() => "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "T" && Number(fields[2]) === pgid) out.push(Number(e.name));
  }
  return out;
}

/**
 * Runs our kubeadm in `node` with fault injection armed to stop it at `point`; once it stands
 * there, runs `fault`, then lets it go on; returns its result. Fails if it ends without
 * reaching the point.
 */
export async function stoppedAt(
  node: ClusterNode,
  args: string[],
  point: string,
  fault: () => Promise<void>,
  env: Record<string, string> = {},
): Promise<RunResult> {
  const p = node.machine.spawn([kubeadmLauncher(), ...args], {
    env: { ...env, [FAULT_INJECT_ENV]: `stop@${point}` },
  });
  const ended = p.output.then(() => true);
  try {
    for (;;) {
      if ((await stoppedInGroup(p.pgid)).length > 0) break;
      if (await Promise.race([ended, new Promise((r) => setTimeout(() => r(false), 200))])) {
        const o = await p.output;
        const dec = new TextDecoder();
        assert.fail(
          `ended (${o.code}) before reaching ${point}:\n${dec.decode(o.stdout)}\n${
            dec.decode(o.stderr)
          }`,
        );
      }
    }
    await fault();
  } catch (e) {
    p.killGroup();
    throw e;
  } finally {
    p.signalGroup("SIGCONT");
  }
  const o = await p.output;
  const dec = new TextDecoder();
  return { code: o.code, stdout: dec.decode(o.stdout), stderr: dec.decode(o.stderr) };
}

/** The IDs of the node's containers (any state) of a Kubernetes container name. */
async function containersNamed(node: ClusterNode, name: string): Promise<string[]> {
  const out = await node.machine.ctr([
    "containers",
    "ls",
    "-q",
    `labels."io.kubernetes.container.name"==${name}`,
  ]);
  return out.split("\n").filter(Boolean);
}

/**
 * Crashes the node's kube-apiserver: its running container's task SIGKILLed, as the OOM
 * killer or a crash would; the kubelet starts it again (the mirror Pod's restart count goes up).
 * Returns once the old process is gone.
 */
export async function crashApiServer(node: ClusterNode): Promise<void> {
  const ids = await containersNamed(node, "kube-apiserver");
  const tasks = await node.machine.ctr(["tasks", "ls"]);
  const running = ids.filter((id) =>
    tasks.split("\n").some((l) => l.startsWith(`${id} `) && /\sRUNNING\s*$/.test(l))
  );
  assert.equal(running.length, 1, `running kube-apiserver containers: ${running.join(", ")}`);
  await node.machine.ctr(["tasks", "kill", "--signal", "SIGKILL", running[0]]);
  await waitFor(`${node.name}'s kube-apiserver killed`, async () => {
    const now = await node.machine.ctr(["tasks", "ls"]);
    return !now.split("\n").some((l) => l.startsWith(`${running[0]} `) && /RUNNING/.test(l));
  }, 30_000);
}

/**
 * Stops the node's etcd member as an admin (or a failing disk) would: its manifest taken out
 * of `/etc/kubernetes/manifests`, the kubelet stops the Pod. {@link startEtcd} puts it back.
 */
export async function stopEtcd(node: ClusterNode): Promise<void> {
  await Deno.rename(
    node.path("/etc/kubernetes/manifests/etcd.yaml"),
    node.path("/etc/kubernetes/etcd.yaml.stopped"),
  );
  await waitFor(`${node.name}'s etcd stopped`, async () => {
    const r = await node.exec(["bash", "-c", `exec 3<>/dev/tcp/${node.ip}/2379`]);
    return r.code !== 0;
  }, 120_000);
}

/** Starts an etcd member {@link stopEtcd} stopped and waits until it answers again. */
export async function startEtcd(node: ClusterNode): Promise<void> {
  await Deno.rename(
    node.path("/etc/kubernetes/etcd.yaml.stopped"),
    node.path("/etc/kubernetes/manifests/etcd.yaml"),
  );
  await waitFor(`${node.name}'s etcd serving`, async () => {
    const r = await node.exec(["bash", "-c", `exec 3<>/dev/tcp/${node.ip}/2379`]);
    return r.code === 0;
  }, 180_000);
}

/** A partition made by {@link partition}. */
export interface Partition {
  /** Removes the rules. */
  heal(): Promise<void>;
}

/**
 * Cuts the node off from `addresses`: its packets to them dropped (iptables in its network
 * namespace, ahead of anything kube-proxy programs), as a broken link would.
 */
export async function partition(node: ClusterNode, addresses: string[]): Promise<Partition> {
  const rule = (op: "-I" | "-D", a: string) => ["iptables", op, "OUTPUT", "-d", a, "-j", "DROP"];
  for (const a of addresses) {
    const r = await node.exec(rule("-I", a));
    assert.equal(r.code, 0, r.stderr);
  }
  return {
    async heal() {
      for (const a of addresses) {
        const r = await node.exec(rule("-D", a));
        assert.equal(r.code, 0, r.stderr);
      }
    },
  };
}

/**
 * Fills the tmpfs behind node directory `nodePath` (see `ClusterNodeOptions.tmpfs`) so that
 * only `leaveBytes` stay free; returns what frees the space again.
 */
export async function fillDisk(
  node: ClusterNode,
  nodePath: string,
  leaveBytes: number,
): Promise<() => Promise<void>> {
  const dir = node.path(nodePath);
  const filler = `${dir}/.filler`;
  const df = await node.exec(["df", "-B1", "--output=avail", nodePath]);
  assert.equal(df.code, 0, df.stderr);
  const avail = Number(df.stdout.trim().split("\n").pop());
  const bytes = Math.max(0, avail - leaveBytes);
  const f = await Deno.open(filler, { write: true, create: true });
  try {
    const chunk = new Uint8Array(1 << 20);
    for (let left = bytes; left > 0;) {
      try {
        left -= await f.write(chunk.subarray(0, Math.min(chunk.length, left)));
      } catch (e) {
        if (leaveBytes === 0 && /No space left/.test(String(e))) break; // full, as asked
        throw e;
      }
    }
  } finally {
    f.close();
  }
  return () => Deno.remove(filler);
}

/** Paths that change on every run whoever runs it (the kubelet's, kubeadm's backups). */
function transient(path: string): boolean {
  return /^\/etc\/kubernetes\/tmp\//.test(path) ||
    /^\/var\/lib\/etcd\/member\//.test(path) ||
    (/^\/var\/lib\/kubelet\//.test(path) &&
      !/^\/var\/lib\/kubelet\/(config\.yaml|kubeadm-flags\.env|instance-config\.yaml|pki\/)/
        .test(path));
}

/**
 * The node's kubeadm files as comparable lines: every file under `/etc/kubernetes`,
 * `/var/lib/kubelet`'s kubeadm files and PKI, whether etcd has data, each with its mode; the
 * kubelet's timestamped certificate files by pattern; kubeadm's backups and the kubelet's Pod
 * state left out (they differ between any two runs).
 */
export async function nodeFiles(node: ClusterNode): Promise<string[]> {
  const out = new Set<string>();
  for (const path of (await node.machine.files()).keys()) {
    if (!/^\/(etc\/kubernetes|var\/lib\/(kubelet|etcd))\//.test(path)) continue;
    if (path.startsWith("/var/lib/etcd/")) {
      out.add("/var/lib/etcd/member (etcd data)");
      continue;
    }
    if (transient(path)) continue;
    const st = await Deno.lstat(node.path(path));
    const mode = st.isSymlink ? "link" : ((st.mode ?? 0) & 0o7777).toString(8);
    out.add(
      `${
        path.replace(/kubelet-(client|server)-\d{4}(-\d\d){5}\.pem$/, "kubelet-$1-<time>.pem")
      } ${mode}`,
    );
  }
  return [...out].sort();
}

/** Kinds (and namespaces) whose object names {@link clusterObjects} lists. */
const LISTED: readonly [string, string | undefined][] = [
  ["configmaps", "kube-system"],
  ["configmaps", "kube-public"],
  ["secrets", "kube-system"],
  ["roles", "kube-system"],
  ["roles", "kube-public"],
  ["rolebindings", "kube-system"],
  ["rolebindings", "kube-public"],
  ["clusterroles", undefined],
  ["clusterrolebindings", undefined],
  ["deployments", "kube-system"],
  ["daemonsets", "kube-system"],
  ["services", "kube-system"],
  ["serviceaccounts", "kube-system"],
  ["serviceaccounts", "kube-public"],
];

/**
 * The cluster's objects kubeadm made (those kubeadm manages a field of), as comparable lines:
 * kind, namespace and name; every Node with its kubeadm labels and taints; the etcd members
 * (name, learner or voter).
 */
export async function clusterObjects(
  apiNode: ClusterNode,
  etcdNode?: ClusterNode,
): Promise<string[]> {
  const out: string[] = [];
  for (const [kind, ns] of LISTED) {
    const list = await kubectlJson(apiNode, [
      "get",
      kind,
      ...(ns ? ["-n", ns] : []),
      "--show-managed-fields",
    ]);
    for (
      const o of list.items as {
        metadata: { name: string; managedFields?: { manager: string }[] };
      }[]
    ) {
      if (!o.metadata.managedFields?.some((f) => f.manager === "kubeadm")) continue;
      out.push(`${kind} ${ns ?? ""}/${o.metadata.name}`);
    }
  }
  const nodes = await kubectlJson(apiNode, ["get", "nodes"]);
  for (
    const n of nodes.items as {
      metadata: { name: string; labels?: Record<string, string> };
      spec: { taints?: { key: string; effect: string }[] };
    }[]
  ) {
    const labels = Object.keys(n.metadata.labels ?? {}).filter((k) =>
      k.startsWith("node-role.kubernetes.io/") || k.startsWith("node.kubernetes.io/exclude")
    ).sort();
    const taints = (n.spec.taints ?? []).filter((t) => !t.key.startsWith("node.kubernetes.io/"))
      .map((t) => `${t.key}:${t.effect}`).sort();
    out.push(`node ${n.metadata.name} labels=${labels.join(",")} taints=${taints.join(",")}`);
  }
  if (etcdNode) {
    for (const m of await etcdMembers(etcdNode)) {
      out.push(`etcd member ${m.name || "(unstarted)"} ${m.isLearner ? "learner" : "voter"}`);
    }
  }
  return out.sort();
}

/** What {@link assertNothingLost} checks. */
export interface ClusterShape {
  /** A node whose admin.conf reaches the cluster. */
  apiNode: ClusterNode;
  /** The control planes that must be etcd voters (and nothing else). */
  controlPlanes: ClusterNode[];
  /** The workers. */
  workers?: ClusterNode[];
  /** A ConfigMap (`default` namespace) written before the fault, with data `{ k: "v" }`. */
  marker?: string;
}

/**
 * Nothing was lost: the marker ConfigMap written before the fault reads back; on every control
 * plane every certificate pairs with its key and chains to its CA, `sa.pub` is `sa.key`'s, and
 * the client certificates of its kubeconfigs chain to the CA; every node's kubeconfigs work
 * (kubectl through each authenticates as who it names); etcd has exactly the control planes
 * as voting members, started, no learner and no stale member.
 */
export async function assertNothingLost(shape: ClusterShape): Promise<void> {
  const { apiNode, controlPlanes, workers = [], marker } = shape;
  if (marker) {
    const cm = await kubectlJson(apiNode, ["-n", "default", "get", "cm", marker]);
    assert.deepEqual(cm.data, { k: "v" }, `marker ConfigMap ${marker}`);
  }
  for (const cp of controlPlanes) {
    const pki = cp.path("/etc/kubernetes/pki");
    await checkPkiDir(pki);
    const kubeconfigs = ["admin.conf", "controller-manager.conf", "scheduler.conf"];
    if (await Deno.lstat(cp.path("/etc/kubernetes/super-admin.conf")).catch(() => undefined)) {
      kubeconfigs.push("super-admin.conf");
    }
    await checkKubeconfigClients(
      kubeconfigs.map((f) => cp.path(`/etc/kubernetes/${f}`)),
      `${pki}/ca.crt`,
    );
    for (const f of kubeconfigs) {
      const who = await cp.kubectl(
        ["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"],
        f,
      );
      assert.equal(who.code, 0, `${cp.name}: kubectl with ${f}: ${who.stderr}`);
    }
  }
  for (const n of [...controlPlanes, ...workers]) {
    const who = await n.kubectlNode(
      ["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"],
      "/etc/kubernetes/kubelet.conf",
    );
    assert.equal(who.code, 0, `${n.name}: kubectl with kubelet.conf: ${who.stderr}`);
    assert.equal(who.stdout, `system:node:${n.name}`);
  }
  if (controlPlanes.length > 0) {
    const members = await etcdMembers(controlPlanes[0]);
    assert.deepEqual(
      members.map((m) => [m.name, m.isLearner ?? false, m.peerURLs[0]]).sort(),
      controlPlanes.map((cp) => [cp.name, false, `https://${cp.ip}:2380`]).sort(),
      "etcd members: every control plane a started voter, no learner, no stale member",
    );
  }
}

/** The control-plane static Pods' manifests of a node, present and complete. */
export async function assertManifestsComplete(node: ClusterNode): Promise<void> {
  for (const c of CONTROL_PLANE_PODS) {
    const text = await Deno.readTextFile(node.path(`/etc/kubernetes/manifests/${c}.yaml`));
    assert.match(text, /^kind: Pod$/m, c);
    assert.match(text, /^status: \{\}\n$/m, `${c}.yaml complete`);
  }
}

/** How {@link rerun} ended. */
export interface Rerun {
  /** The outcome's words for the matrix. */
  outcome: string;
  /** The re-run that succeeded. */
  result: RunResult;
}

/**
 * Runs the same command again. It must succeed ("converged on re-run"), or refuse with a message
 * that says what to do (`advice`), after which `recover` (what the message says) and the
 * command once more must succeed.
 */
export async function rerun(
  node: ClusterNode,
  args: string[],
  opts: { advice: RegExp; recover: () => Promise<void>; recoverWords?: string },
): Promise<Rerun> {
  const again = await node.kubeadm(args);
  if (again.code === 0) return { outcome: "converged on re-run", result: again };
  const said = `${again.stdout}\n${again.stderr}`;
  assert.match(said, opts.advice, `the refusal does not say what to do:\n${said}`);
  const errors = [...again.stderr.matchAll(/\[ERROR ([^\]]+)\]/g)].map((m) => m[1]);
  const why = errors.length > 0
    ? `preflight: ${errors.length} leftover${errors.length > 1 ? "s" : ""}`
    : (again.stderr.match(/^error: (.{0,80})/m)?.[1] ?? "error");
  await opts.recover();
  const last = await node.kubeadm(args);
  assert.equal(
    last.code,
    0,
    `after ${opts.recoverWords ?? "recovery"}:\n${last.stdout}\n${last.stderr}`,
  );
  return {
    outcome: `refused (${why}), says ${opts.recoverWords ?? "what to do"}; converged after it`,
    result: last,
  };
}

/** kubeadm's advice to reset (preflight's hint on an earlier run's files). */
export const RESET_ADVICE = /run 'kubeadm reset' to remove them, then run this command again/;

/**
 * The files a static Pod's manifest names (`--flag=/etc/kubernetes/…`, files only), by node
 * path.
 */
async function filesRead(node: ClusterNode, component: string): Promise<string[]> {
  const text = await Deno.readTextFile(node.path(`/etc/kubernetes/manifests/${component}.yaml`));
  const out: string[] = [];
  for (const m of text.matchAll(/--[a-z-]+=(\/etc\/kubernetes\/[^\s",]+)/g)) {
    const st = await Deno.stat(node.path(m[1])).catch(() => undefined);
    if (st?.isFile && !out.includes(m[1])) out.push(m[1]);
  }
  return out;
}

/**
 * Every control-plane component runs on the files on disk: its running container was created
 * after the last write of every file its manifest names (a component whose files were renewed
 * and that was never restarted still runs on the certificates it read at its start). Waits up to
 * a minute for the kubelet's new containers.
 */
export async function assertComponentsOnTheirFiles(node: ClusterNode): Promise<void> {
  let stale: string[] = [];
  await waitFor("every component running on the files on disk", async () => {
    const containers = await CriClient.with(
      `unix://${node.machine.criSocketOnHost}`,
      (c) => c.listContainers({ "io.kubernetes.pod.namespace": "kube-system" }),
    );
    stale = [];
    for (const component of CONTROL_PLANE_PODS) {
      const running = containers.filter((c) =>
        c.labels["io.kubernetes.pod.name"] === `${component}-${node.name}` &&
        c.metadata.name === component && c.state === "CONTAINER_RUNNING"
      );
      if (running.length !== 1) {
        stale.push(`${component}: ${running.length} running containers`);
        continue;
      }
      const created = Number(running[0].createdAt / 1_000_000n);
      for (const f of await filesRead(node, component)) {
        const written = (await Deno.stat(node.path(f))).mtime!.getTime();
        // The kubelet's container is created after kubeadm's last write (whole seconds of slack
        // for the clocks' resolution; a component left on its old files is minutes older).
        if (created + 1_000 < written) {
          stale.push(
            `${component}: container created ${new Date(created).toISOString()}, ${f} written ${
              new Date(written).toISOString()
            }`,
          );
        }
      }
    }
    return stale.length === 0;
  }, 60_000).catch((e) => assert.fail(`${e}: ${stale.join("; ")}`));
}

/** The certificate a TLS server of the node presents, as PEM (openssl inside the node). */
export async function servedCert(
  node: ClusterNode,
  port: number,
  clientArgs: string[] = [],
): Promise<string> {
  const r = await node.exec([
    "sh",
    "-c",
    `openssl s_client -connect ${node.ip}:${port} ${
      clientArgs.join(" ")
    } </dev/null 2>/dev/null | openssl x509`,
  ]);
  return r.stdout;
}

/** The API server serves the certificate on disk (`/etc/kubernetes/pki/apiserver.crt`). */
export async function assertServesOnDisk(node: ClusterNode): Promise<void> {
  const fingerprint = (pem: string) => openssl(["x509", "-noout", "-fingerprint", "-sha256"], pem);
  const onDisk = await fingerprint(
    await Deno.readTextFile(node.path("/etc/kubernetes/pki/apiserver.crt")),
  );
  let served = "";
  await waitFor("the API server serving the certificate on disk", async () => {
    served = await fingerprint(await servedCert(node, 6443)).catch(() => "");
    return served === onDisk;
  }, 60_000).catch(() => assert.equal(served, onDisk, "the API server's served certificate"));
}
