/**
 * Restarting what renewed certificates are read by (beyond upstream, whose `certs renew` leaves
 * the restarts to the user: k/kubeadm#2652, website#28875). The way `upgrade apply` swaps a
 * static Pod: one component at a time — kube-apiserver, kube-controller-manager,
 * kube-scheduler, then etcd last — each:
 *
 * 1. its renewed files written (their previous content, and its manifest, copied first to
 *    `/etc/kubernetes/tmp/kubeadm-backup-certs-<timestamp>/`);
 * 2. restarted in place: its running container stopped through the container runtime (with the
 *    Pod's termination grace period, 5 s at most for kube-apiserver, whose graceful stop holds
 *    open watches until it is killed), which the kubelet starts again in the same Pod, the new
 *    process reading the new files. The Pod stays the same (same UID), so the kubelet does not
 *    delete and create its mirror Pod through the node's API server — which, while the node's
 *    etcd member restarts, waits for that member (kubernetes/kubernetes#139502: a manifest
 *    change kept etcd down about 50 s that way). The kubelet applies no back-off to a
 *    container's first restart, but one within 10 minutes of its previous restart waits 10 s,
 *    then 20 s, 40 s, … (its CrashLoopBackOff, kept per Pod and container for twice its 5-minute
 *    maximum, forgotten when the kubelet restarts). So a step that changes the manifest itself
 *    (a CA rotation pointing a flag elsewhere), and a component other than etcd whose container
 *    the kubelet restarted less than 10 minutes ago (a CA rotation's next stage), get a new Pod
 *    instead: the manifest rewritten, atomically, with the annotation
 *    `kubeadm.kubernetes.io/restartedAt`. etcd always restarts in place: its back-off (10 s,
 *    20 s in a CA rotation) is shorter than the stall of its new Pod. A container the kubelet
 *    has not started again 30 s after its stop gets a new Pod then: one that had exited on its
 *    own just before (e.g. a controller-manager whose leader lease lapsed while the API server
 *    restarted) was restarted by the kubelet, which holds the next start in its back-off (seen
 *    once: 5 minutes);
 * 3. waited for, within the timeout: a new container of the Pod running (or the new mirror Pod
 *    Running and Ready), then its health endpoint (the manifest's readiness probe, else its
 *    liveness probe) answering 200; after etcd, also the node's kube-apiserver's (it reads
 *    through this member alone, and reconnects to it seconds later);
 * 4. when it does not come back within the timeout, its previous files (and manifest) are put
 *    back, it is restarted and waited for the same way, and the run stops with an error naming
 *    the component.
 *
 * Before anything is written every component to restart must be healthy (mirror Pod Ready,
 * health endpoint answering); etcd is restarted only when its cluster is healthy and the other
 * voting members keep quorum without this one (a cluster of one or two voters has no quorum to
 * spare: there its restart is the brief outage a single control plane always has). A Lease
 * (`restart_lease.ts`) keeps the control planes of a cluster from restarting at the same time;
 * it names the node, so two runs on one node (a timer firing during a `rotate-ca` phase) are
 * kept apart by the node's restart lock (`RestartContext.lockNode`), taken first. The backup
 * folder holds old private keys (in a CA rotation's `reissue`, the old CA's): it is removed when
 * every component came back.
 *
 * A run that stopped before that (killed, or a component that did not come back) leaves its
 * backup folder, and may have left a component on the certificates it read at its start while
 * renewed ones are on disk: a run after it that renews only what is due (`certs auto-renewal
 * run`) would not renew those again, so would not restart their readers. {@link interruptedRuns}
 * finds such folders, and {@link resumeInterrupted} adds every component (and the caller the
 * kubelet) to the restarts, removing the folders once every component came back. A plan with
 * `resumeInterrupted` set looks for them once the node's lock is held (before it, a folder may
 * be a live run's): `certs renew --restart`, `certs auto-renewal run` and every `rotate-ca`
 * stage do, so the next of them to complete removes what a killed run left, old keys included.
 * (Upstream's `upgrade` keeps the backup folders of a run that failed, `kubeadm-backup-
 * manifests-*` and `kubeadm-backup-etcd-*`, until `kubeadm reset` empties `/etc/kubernetes/tmp`;
 * they hold manifests and etcd's data, no key kubeadm wrote.)
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import type { Lease } from "kubernetes-types/coordination/v1.d.ts";
import { Component } from "../constants.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { ContainerRuntime } from "../ports/container_runtime.ts";
import type { EtcdClient } from "../ports/etcd.ts";
import type { FileSystem, PlannedFile } from "../ports/files.ts";
import type { HealthProbe } from "../ports/http.ts";
import type { Printer } from "../ports/printer.ts";
import type { KubeClient } from "../kube/client.ts";
import { poll, type PollWindow } from "../kube/retry.ts";
import {
  checkClusterHealth,
  checkQuorumWithout,
  waitForClusterAvailable,
} from "../etcd/member_join.ts";
import { ETCD_REQUEST_TIMEOUT_MS, type EtcdTiming } from "../etcd/timing.ts";
import { staticPodManifestPath, staticPodManifestYaml } from "../manifests/manifest_file.ts";
import { joinHostPort } from "../net/host_port.ts";
import { formatDuration } from "../text/duration.ts";
import { utf8 } from "../text/utf8.ts";
import { parseKubeYamlOne } from "../yaml/kube_yaml.ts";
import { timestamp, type UpgradeNodeOps } from "../upgrade/static_pods.ts";
import { acquireRestartLease, type RestartLease } from "./restart_lease.ts";

/** The manifest annotation set when a restart changes a manifest (the kubelet makes a new Pod). */
export const RESTARTED_AT_ANNOTATION = "kubeadm.kubernetes.io/restartedAt";

/** The order of the restarts: etcd last. */
export const RESTART_ORDER: readonly string[] = [
  Component.apiServer,
  Component.controllerManager,
  Component.scheduler,
  Component.etcd,
];

/** How often waits poll. */
const POLL_INTERVAL_MS = 1_000;
/** How long the checks before the first write wait for a component to be healthy. */
const PRECHECK_MS = 30_000;
/** Bound of one health probe. */
const PROBE_TIMEOUT_MS = 5_000;
/**
 * How long the kubelet remembers a container's restart for its back-off: twice the back-off's
 * maximum (`MaxContainerBackOff`, 300 s), as `flowcontrol.Backoff` expires entries.
 */
const BACKOFF_MEMORY_MS = 2 * 300_000;
/**
 * How long after its container's stop the kubelet may take to create the next one before the
 * restart counts as held in its back-off: past the back-off's first two steps (10 s, 20 s), the
 * next ones (40 s … 5 minutes) outlast a new Pod. {@link wouldBackOff} cannot see every such
 * hold: a container may exit on its own between that check and the stop (kube-controller-manager
 * and kube-scheduler leave when the API server's restart outlasts their leader lease's renewal).
 */
const HELD_RESTART_MS = 30_000;
/** A Pod's termination grace period when its manifest sets none (the API's default). */
const DEFAULT_GRACE_PERIOD_SECONDS = 30;
/**
 * The longest kube-apiserver's graceful stop may take. Without
 * `--shutdown-watch-termination-grace-period` (kubeadm sets none) it stops accepting connections
 * at once and lets the requests in flight finish, then waits for its HTTP server's shutdown,
 * which does not end while a client holds a watch open (an HTTP/2 stream): it is killed at the
 * end of its grace period (30 s), unreachable all that time for this node's kubelet,
 * controller-manager and scheduler.
 */
const API_SERVER_STOP_SECONDS = 5;
/** Where the kubelets' heartbeats are: each Node's Lease, named after it. */
const NODE_LEASE_NAMESPACE = "kube-node-lease";
/** How often the wait for the kubelet's heartbeat reads its Lease. */
const HEARTBEAT_POLL_MS = 250;
/** The kubelet's Lease duration when its Lease says none (the kubelet's default, 40 s). */
const DEFAULT_NODE_LEASE_SECONDS = 40;
/** The longest wait for the kubelet's heartbeat. */
const HEARTBEAT_WAIT_MAX_MS = 15_000;

/** A renewed target as the restarts see it: its files and the static Pods reading them. */
export interface RenewedFiles {
  /** `apiserver`, `admin.conf`, … */
  name: string;
  files: readonly PlannedFile[];
  /** The static Pods that read them (none: nothing to restart). */
  readers: readonly string[];
}

/** One component's restart. */
export interface RestartStep {
  component: string;
  /** The renewed files it reads, written just before it restarts. */
  files: PlannedFile[];
  /** What was renewed for it. */
  renewed: string[];
  /** A change of its manifest made with the restart (a CA rotation points a flag elsewhere). */
  editManifest?: (manifest: Pod) => Pod;
}

/** The restarts of one renewal, in order. */
export interface RestartPlan {
  /** Renewed files no static Pod reads (`admin.conf`, …): written first. */
  unread: PlannedFile[];
  steps: RestartStep[];
  /** Backup folders of interrupted runs ({@link interruptedRuns}), removed with this run's. */
  leftovers?: string[];
  /**
   * Look for interrupted runs once the node's restart lock is held, and resume them
   * ({@link resumeInterrupted}): every component restarted, their folders removed.
   */
  resumeInterrupted?: boolean;
}

/** The name of a run's backup folder in `<kubernetesDir>/tmp` begins so. */
const BACKUP_PREFIX = "kubeadm-backup-certs-";

/** What a step restarting a component after an interrupted run says it is for. */
export const INTERRUPTED_RUN = "an interrupted run";

/**
 * The backup folders earlier runs left (see the module documentation): each a run that began
 * writing renewed files and did not see every component back. Sorted; none when there is none.
 */
export async function interruptedRuns(
  ctx: Pick<RestartContext, "files" | "kubernetesDir">,
): Promise<string[]> {
  const dir = `${ctx.kubernetesDir}/tmp`;
  return ((await ctx.files.list(dir)) ?? []).filter((n) => n.startsWith(BACKUP_PREFIX)).sort()
    .map((n) => `${dir}/${n}`);
}

/**
 * The plan with every component that has a manifest restarted (one that the plan does not
 * restart already gets a step without files, in {@link RESTART_ORDER}), and `leftovers` removed
 * once every component came back.
 */
export async function resumeInterrupted(
  ctx: Pick<RestartContext, "files" | "manifestDir">,
  plan: RestartPlan,
  leftovers: readonly string[],
): Promise<RestartPlan> {
  const steps: RestartStep[] = [];
  for (const component of RESTART_ORDER) {
    const step = plan.steps.find((s) => s.component === component);
    if (step) steps.push(step);
    else if (await ctx.files.read(staticPodManifestPath(ctx.manifestDir, component))) {
      steps.push({ component, files: [], renewed: [INTERRUPTED_RUN] });
    }
  }
  return { ...plan, steps, leftovers: [...(plan.leftovers ?? []), ...leftovers] };
}

/** Groups renewed files by the component that reads them, in {@link RESTART_ORDER}. */
export function planRestarts(renewed: readonly RenewedFiles[]): RestartPlan {
  const steps = new Map<string, RestartStep>();
  const unread: PlannedFile[] = [];
  for (const r of renewed) {
    const readers = RESTART_ORDER.filter((c) => r.readers.includes(c));
    if (readers.length === 0) {
      unread.push(...r.files);
      continue;
    }
    readers.forEach((component, i) => {
      const step = steps.get(component) ?? { component, files: [], renewed: [] };
      steps.set(component, step);
      if (i === 0) step.files.push(...r.files);
      step.renewed.push(r.name);
    });
  }
  return { unread, steps: RESTART_ORDER.flatMap((c) => steps.get(c) ?? []) };
}

/** The local etcd member, for the checks around its restart. */
export interface RestartEtcd {
  /** A client of the cluster (its members' client URLs). */
  connect(): Promise<EtcdClient>;
  timing: EtcdTiming;
}

/** What the restarts need of the node and the cluster. */
export interface RestartContext {
  files: FileSystem;
  node: Pick<UpgradeNodeOps, "ensureDir" | "copyTree" | "removeFile">;
  /** `/etc/kubernetes`. */
  kubernetesDir: string;
  manifestDir: string;
  /** This node's name: its mirror Pods are `<component>-<nodeName>`. */
  nodeName: string;
  /** Reads the mirror Pods and holds the Lease. */
  client: KubeClient;
  /** The node's container runtime: the static Pods' containers, stopped to restart them. */
  runtime: Pick<ContainerRuntime, "listPodContainers" | "stopContainer">;
  health: HealthProbe;
  /** The local etcd member (absent with external etcd). */
  etcd?: RestartEtcd;
  /** How long each component may take to come back (`timeouts.upgradeManifests`). */
  timeoutMs: number;
  out: Printer;
  /** The run's time: the annotation's value and the backup folder's name. */
  now: Date;
  /**
   * Takes this node's restart lock (released by the returned function), waiting up to `waitMs`
   * while another process on this node holds it (`onWait` called once), else throwing. The
   * Lease keeps control planes apart, not two runs on one node: a node finding its own name in
   * it takes it over, as after a run killed. A dead process's lock is free (an `flock`).
   * Absent: nothing else restarts this node's components.
   */
  lockNode?: (waitMs: number, onWait: () => void) => Promise<() => Promise<void>>;
}

/** A component's static Pod and where to reach it. */
interface StaticPod {
  name: string;
  manifestPath: string;
  manifest: Pod;
  text: string;
  healthURL: string;
  /** Its container's name in the Pod. */
  container: string;
  /** Its termination grace period: how long a stop waits before killing it. */
  graceSeconds: number;
}

/** The health URL of a static Pod: its readiness probe, else its liveness probe. */
function healthURL(pod: Pod, name: string): string {
  const c = pod.spec?.containers?.[0];
  const get = c?.readinessProbe?.httpGet ?? c?.livenessProbe?.httpGet;
  if (!get) {
    throw new KubeadmError(
      `the static Pod of ${name} has no HTTP readiness or liveness probe to check it with`,
    );
  }
  // kubeadm's probes name their port (`probe-port`): the container's port of that name.
  const port = typeof get.port === "number" || /^\d+$/.test(get.port)
    ? String(get.port)
    : String(c?.ports?.find((p) => p.name === get.port)?.containerPort ?? "");
  if (!port) throw new KubeadmError(`the static Pod of ${name} probes an unknown port ${get.port}`);
  const scheme = (get.scheme ?? "HTTP").toLowerCase();
  return `${scheme}://${joinHostPort(get.host || "127.0.0.1", port)}${get.path ?? "/"}`;
}

async function readComponent(ctx: RestartContext, name: string): Promise<StaticPod> {
  const manifestPath = staticPodManifestPath(ctx.manifestDir, name);
  const data = await ctx.files.read(manifestPath);
  if (data === undefined) {
    throw new KubeadmError(`cannot restart ${name}: ${manifestPath} does not exist`, {
      field: manifestPath,
      hint: "this is not a control-plane node, or its manifests are not where kubeadm writes them",
    });
  }
  const text = utf8(data);
  let manifest: Pod;
  try {
    manifest = parseKubeYamlOne(text, manifestPath) as Pod;
  } catch (e) {
    throw new KubeadmError(`cannot restart ${name}: ${errorMessage(e)}`, {
      field: manifestPath,
      cause: e,
    });
  }
  return {
    name,
    manifestPath,
    manifest,
    text,
    healthURL: healthURL(manifest, name),
    container: manifest.spec?.containers?.[0]?.name ?? name,
    graceSeconds: manifest.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS,
  };
}

/** The manifest (edited by the step, when it edits it) with the restart annotation set to `value`. */
function annotated(c: StaticPod, value: string, edit?: (manifest: Pod) => Pod): string {
  const pod = edit ? edit(structuredClone(c.manifest)) : structuredClone(c.manifest);
  pod.metadata = {
    ...pod.metadata,
    annotations: { ...pod.metadata?.annotations, [RESTARTED_AT_ANNOTATION]: value },
  };
  return staticPodManifestYaml(pod);
}

/** What a mirror Pod shows, for messages. */
function describePod(pod: Pod | undefined): string {
  if (!pod) return "it does not exist";
  const ready = pod.status?.conditions?.find((c) => c.type === "Ready")?.status ?? "Unknown";
  const waiting =
    pod.status?.containerStatuses?.flatMap((s) =>
      s.state?.waiting?.reason ? [`${s.name} ${s.state.waiting.reason}`] : []
    ) ?? [];
  return `phase ${pod.status?.phase ?? "Unknown"}, Ready ${ready}${
    waiting.length > 0 ? `, waiting: ${waiting.join(", ")}` : ""
  }`;
}

function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === "Running" &&
    pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
}

/** What a wait checks before the health endpoint: `undefined` when ready, else what it saw. */
type ReadyCheck = (window: PollWindow) => Promise<string | undefined>;

/** The mirror Pod satisfies `matches` and is Running and Ready. */
function mirrorPodReady(
  ctx: RestartContext,
  c: StaticPod,
  matches: (pod: Pod) => boolean,
): ReadyCheck {
  const podName = `${c.name}-${ctx.nodeName}`;
  const once = ctx.client.withRetry({ timeoutMs: 0 });
  return async (window) => {
    let pod: Pod | undefined;
    try {
      pod = await once.tryGet<Pod>(
        { kind: "Pod", namespace: "kube-system", name: podName },
        window.limits(),
      );
    } catch (e) {
      return `the API server did not answer: ${errorMessage(e)}`;
    }
    if (!pod || !matches(pod) || !isRunningAndReady(pod)) {
      return `mirror Pod ${podName}: ${
        pod && !matches(pod) ? "not the new one yet" : describePod(pod)
      }`;
    }
    return undefined;
  };
}

/** The component's containers in its static Pod, as the runtime lists them. */
async function containersOf(ctx: RestartContext, c: StaticPod) {
  const all = await ctx.runtime.listPodContainers("kube-system", `${c.name}-${ctx.nodeName}`);
  return all.filter((x) => x.name === c.container);
}

/** The kubelet created no container in the Pod within {@link HELD_RESTART_MS} of the stop. */
class RestartHeld extends Error {}

/**
 * A container of the Pod other than the `previous` ones is running. With `heldAfter`, throws
 * {@link RestartHeld} when the kubelet has created none that long after `stopped`.
 */
function newContainerRunning(
  ctx: RestartContext,
  c: StaticPod,
  previous: ReadonlySet<string>,
  held?: { stopped: number; afterMs: number },
): ReadyCheck {
  return async () => {
    let containers;
    try {
      containers = await containersOf(ctx, c);
    } catch (e) {
      return `the container runtime did not answer: ${errorMessage(e)}`;
    }
    const fresh = containers.filter((x) => !previous.has(x.id));
    if (fresh.some((x) => x.state === "running")) return undefined;
    const since = held && fresh.length === 0
      ? ctx.client.timing.clock.now().getTime() - held.stopped
      : undefined;
    if (since !== undefined && since >= held!.afterMs) {
      throw new RestartHeld(
        `The kubelet has not started ${c.name}'s container again ${
          formatDuration(since)
        } after its stop: it holds the restart in its back-off`,
      );
    }
    const latest = fresh.at(-1);
    return `container ${c.container} of Pod ${c.name}-${ctx.nodeName}: ${
      latest ? `attempt ${latest.attempt} ${latest.state}` : "not started again yet"
    }`;
  };
}

/**
 * Waits until `ready` holds and the component's health endpoint answers 200, within
 * `timeoutMs`.
 */
async function waitForComponent(
  ctx: RestartContext,
  c: StaticPod,
  ready: ReadyCheck,
  timeoutMs: number,
): Promise<void> {
  let last = "nothing read yet";
  try {
    await poll<true>(async (window) => {
      const notReady = await ready(window);
      if (notReady !== undefined) {
        last = notReady;
        return { done: false };
      }
      const limit = window.limits()?.timeoutMs ?? PROBE_TIMEOUT_MS;
      const r = await ctx.health.get(c.healthURL, {
        insecureSkipTLSVerify: true,
        timeoutMs: Math.min(PROBE_TIMEOUT_MS, limit),
      });
      if ("status" in r && r.status === 200) return { done: true, value: true };
      last = `${c.healthURL}: ${"status" in r ? `HTTP ${r.status}` : r.error}`;
      return { done: false };
    }, {
      ...ctx.client.timing,
      intervalMs: POLL_INTERVAL_MS,
      timeoutMs,
      timeoutError: () =>
        new KubeadmError(
          `${c.name} did not come back within ${formatDuration(timeoutMs)}: ${last}`,
        ),
    });
  } finally {
    await ctx.health.close?.();
  }
}

/**
 * How long a stop of the component's container may take before it is killed: its Pod's grace
 * period, at most {@link API_SERVER_STOP_SECONDS} for kube-apiserver.
 */
export function stopTimeoutSeconds(component: string, graceSeconds: number): number {
  return component === Component.apiServer
    ? Math.min(graceSeconds, API_SERVER_STOP_SECONDS)
    : graceSeconds;
}

/**
 * Stops the component's running containers; returns every container the Pod had. A stop the
 * runtime did not confirm in time is said and waited past: what follows waits for the kubelet's
 * next container (or the new Pod) anyway, within its own timeout.
 */
async function stopRunning(ctx: RestartContext, c: StaticPod) {
  const containers = await containersOf(ctx, c);
  for (const x of containers) {
    if (x.state !== "running") continue;
    try {
      await ctx.runtime.stopContainer(x.id, stopTimeoutSeconds(c.name, c.graceSeconds));
    } catch (e) {
      ctx.out.warn(
        `[restart] The stop of ${c.name}'s container was not confirmed (${
          errorMessage(e)
        }); waiting for it to run again`,
      );
    }
  }
  return containers;
}

/**
 * Restarts the component in place: stops its running container (the kubelet starts it again in
 * the same Pod) and waits for a new one and its health endpoint, all within `timeoutMs`. With no
 * container running (one crash-looping after a bad renewal) it only waits for the kubelet's
 * next attempt. With `heldAfterMs`, throws {@link RestartHeld} when the kubelet has created no
 * container that long after the stop.
 */
async function restartContainer(
  ctx: RestartContext,
  c: StaticPod,
  timeoutMs: number,
  heldAfterMs?: number,
): Promise<{ stopMs: number }> {
  const { clock } = ctx.client.timing;
  const started = clock.now().getTime();
  const containers = await stopRunning(ctx, c);
  const stopped = clock.now().getTime();
  const stopMs = stopped - started;
  const left = Math.max(0, timeoutMs - stopMs);
  const held = heldAfterMs === undefined ? undefined : { stopped, afterMs: heldAfterMs };
  await waitForComponent(
    ctx,
    c,
    newContainerRunning(ctx, c, new Set(containers.map((x) => x.id)), held),
    left,
  );
  return { stopMs };
}

/**
 * Before this node's API server stops (or its new Pod replaces it): waits for the kubelet to
 * renew its Node Lease, at most one renewal interval (a quarter of the Lease's duration, as the
 * kubelet renews it) and a little more. A control plane's kubelet reaches the API only through
 * this API server (kubelet.conf names the local endpoint), so it cannot heartbeat until that is
 * back, and the node-lifecycle controller marks the Node `Unknown` once nothing was renewed for
 * its grace period (`--node-monitor-grace-period`, 50 s): stopping right after a renewal leaves
 * the API server's restart that whole period instead of what was left of it. Reads only; returns
 * how long it waited, or `undefined` when there was no heartbeat to wait for (no Lease, the API
 * not answering, none within the interval).
 */
async function afterKubeletHeartbeat(ctx: RestartContext): Promise<number | undefined> {
  const { clock, sleep } = ctx.client.timing;
  const once = ctx.client.withRetry({ timeoutMs: 0 });
  const ref = { kind: "Lease", namespace: NODE_LEASE_NAMESPACE, name: ctx.nodeName };
  const read = async () => {
    try {
      return (await once.tryGet<Lease>(ref, { timeoutMs: PROBE_TIMEOUT_MS }))?.spec;
    } catch {
      return undefined;
    }
  };
  const first = await read();
  if (!first?.renewTime) return undefined;
  const started = clock.now().getTime();
  const limit = Math.min(
    ((first.leaseDurationSeconds ?? DEFAULT_NODE_LEASE_SECONDS) * 1_000) / 4 + 2_000,
    HEARTBEAT_WAIT_MAX_MS,
  );
  while (clock.now().getTime() - started < limit) {
    await sleep(HEARTBEAT_POLL_MS);
    const now = await read();
    if (!now?.renewTime) return undefined;
    if (now.renewTime !== first.renewTime) return clock.now().getTime() - started;
  }
  return undefined;
}

/** The backup path of a node file. */
function backupPath(dir: string, path: string): string {
  return `${dir}${path}`;
}

/** This member's peer URL: its manifest's `--initial-advertise-peer-urls` (the first). */
function peerURLOf(etcd: StaticPod): string {
  const c = etcd.manifest.spec?.containers?.[0];
  for (const arg of [...(c?.command ?? []), ...(c?.args ?? [])]) {
    const m = /^--initial-advertise-peer-urls=([^,]+)/.exec(arg);
    if (m) return m[1];
  }
  throw new KubeadmError(`${etcd.manifestPath} has no --initial-advertise-peer-urls`, {
    field: etcd.manifestPath,
  });
}

/** The local etcd member's checks: cluster healthy, quorum kept without this member. */
async function checkEtcd(ctx: RestartContext, etcdPod: StaticPod): Promise<void> {
  const etcd = ctx.etcd;
  if (!etcd) return;
  try {
    const client = await etcd.connect();
    await checkClusterHealth(client, etcd.timing, ctx.out.log);
    await checkQuorumWithout(client, peerURLOf(etcdPod), etcd.timing, ETCD_REQUEST_TIMEOUT_MS);
  } catch (e) {
    throw new KubeadmError(`etcd cannot be restarted now: ${errorMessage(e)}`, {
      cause: e,
      hint:
        "bring the etcd members back to health (or remove the ones gone for good with 'etcdctl member remove'), then run again; nothing was written",
    });
  }
}

/** Lines saying what the restarts would do (`--dry-run`). */
export function restartPlanLines(plan: RestartPlan, kubernetesDir: string): string[] {
  const lines: string[] = [];
  if (plan.steps.length === 0) {
    return ["[dryrun] No static Pod reads what would be renewed: nothing to restart"];
  }
  lines.push(
    `[dryrun] Would copy the files about to change and the manifests below to ${kubernetesDir}/tmp/kubeadm-backup-certs-<timestamp>, then restart one component at a time:`,
  );
  plan.steps.forEach((s, i) => {
    lines.push(
      `[dryrun]   ${i + 1}. ${s.component} (for ${
        s.renewed.join(", ")
      }): write its renewed files, ${
        s.editManifest
          ? `rewrite its manifest (with ${RESTARTED_AT_ANNOTATION}), wait for its new mirror Pod to be Ready`
          : `stop its container (the kubelet starts it again in the same Pod${
            s.component === Component.etcd
              ? ""
              : "; a new Pod instead if it restarted less than 10 minutes ago"
          }), wait for the new container to run`
      } and its health endpoint to answer${
        s.component === Component.etcd
          ? ", then this node's kube-apiserver to read through it again; only while the other etcd members keep quorum"
          : ""
      }`,
    );
  });
  lines.push(
    "[dryrun] A component that does not come back gets its previous files (and manifest) back and is restarted again, and the run stops",
  );
  return lines;
}

/** The state of one run. */
interface Run {
  ctx: RestartContext;
  backupDir: string;
  stamp: string;
  lease?: RestartLease;
}

/** Copies a file's current content (when it has one) into the backup folder. */
async function backUp(run: Run, path: string): Promise<void> {
  if ((await run.ctx.files.read(path)) === undefined) return;
  const to = backupPath(run.backupDir, path);
  await run.ctx.node.ensureDir(to.slice(0, to.lastIndexOf("/")), 0o700);
  await run.ctx.node.copyTree(path, to);
}

async function restore(run: Run, paths: readonly string[]): Promise<string[]> {
  const errors: string[] = [];
  for (const path of paths) {
    try {
      await run.ctx.node.copyTree(backupPath(run.backupDir, path), path);
    } catch (e) {
      errors.push(`${path}: ${errorMessage(e)}`);
    }
  }
  return errors;
}

/**
 * Whether the kubelet would hold a restart of the component's container in its back-off: the
 * running container is itself a restart (attempt > 0) created less than
 * {@link BACKOFF_MEMORY_MS} ago. etcd never counts (see the module documentation).
 */
async function wouldBackOff(ctx: RestartContext, c: StaticPod): Promise<boolean> {
  if (c.name === Component.etcd) return false;
  const now = ctx.client.timing.clock.now().getTime();
  return (await containersOf(ctx, c)).some((x) =>
    x.state === "running" && x.attempt > 0 && now - x.createdAt < BACKOFF_MEMORY_MS
  );
}

/**
 * Waits for the mirror Pod whose restart annotation is `stamp`, and its health endpoint, within
 * `timeoutMs` (default: the context's).
 */
function waitForPod(
  ctx: RestartContext,
  c: StaticPod,
  stamp: string | undefined,
  timeoutMs = ctx.timeoutMs,
) {
  return waitForComponent(
    ctx,
    c,
    mirrorPodReady(ctx, c, (pod) => pod.metadata?.annotations?.[RESTARTED_AT_ANNOTATION] === stamp),
    timeoutMs,
  );
}

async function restartOne(run: Run, step: RestartStep, c: StaticPod): Promise<void> {
  const { ctx } = run;
  const out = ctx.out;
  const { clock } = ctx.client.timing;
  const backOff = step.editManifest === undefined && await wouldBackOff(ctx, c);
  let inPlace = step.editManifest === undefined && !backOff;
  const paths = [...step.files.map((f) => f.path), ...(inPlace ? [] : [c.manifestPath])];
  for (const path of paths) await backUp(run, path);
  let stamp = run.stamp;
  if (c.manifest.metadata?.annotations?.[RESTARTED_AT_ANNOTATION] === stamp) stamp += "-1";
  out.info(
    `[restart] Restarting ${c.name} (for ${step.renewed.join(", ")})${
      backOff
        ? " as a new Pod: its container restarted less than 10 minutes ago, and the kubelet would hold another restart in its back-off"
        : ""
    }`,
  );
  const what = () => inPlace ? "files" : "files and manifest";
  let timing = "";
  try {
    if (c.name === Component.apiServer) {
      const waited = await afterKubeletHeartbeat(ctx);
      if (waited !== undefined) {
        out.info(
          `[restart] The kubelet renewed its Node Lease (after ${
            formatDuration(waited)
          }): it reaches the API through this ${c.name} only, so it has the whole node-monitor grace period for its restart`,
        );
      }
    }
    for (const f of step.files) await ctx.files.write(f);
    const stopped = clock.now().getTime();
    const newPod = async () => {
      // The kubelet would stop the old Pod's API server with the Pod's grace period, all of
      // which it takes (API_SERVER_STOP_SECONDS): stopped here first, the kubelet holding its
      // restart in its back-off, the new manifest then replaces the Pod.
      if (c.name === Component.apiServer) await stopRunning(ctx, c);
      const written = clock.now().getTime();
      await ctx.files.write({
        path: c.manifestPath,
        data: annotated(c, stamp, step.editManifest),
        mode: 0o600,
        kind: "manifest",
        keepExistingMode: true,
      });
      await waitForPod(ctx, c, stamp, Math.max(0, ctx.timeoutMs - (written - stopped)));
      timing = `its new Pod healthy ${
        formatDuration(clock.now().getTime() - written)
      } after its manifest's write`;
    };
    if (inPlace) {
      try {
        const { stopMs } = await restartContainer(ctx, c, ctx.timeoutMs, HELD_RESTART_MS);
        timing = `healthy ${
          formatDuration(clock.now().getTime() - stopped)
        } after its container's stop, which took ${formatDuration(stopMs)}`;
      } catch (e) {
        if (!(e instanceof RestartHeld)) throw e;
        out.info(`[restart] ${e.message}; restarting ${c.name} as a new Pod`);
        await backUp(run, c.manifestPath);
        paths.push(c.manifestPath);
        inPlace = false;
        await newPod();
      }
      if (c.name === Component.etcd) await apiServerReadsAgain(ctx, stopped);
    } else await newPod();
  } catch (e) {
    out.info(`[restart] ${c.name} did not come back: ${errorMessage(e)}`);
    out.info(`[restart] Putting back the previous ${what()} of ${c.name}`);
    const errors = await restore(run, paths);
    const previous = c.manifest.metadata?.annotations?.[RESTARTED_AT_ANNOTATION];
    if (errors.length === 0) {
      try {
        if (inPlace) await restartContainer(ctx, c, ctx.timeoutMs);
        else await waitForPod(ctx, c, previous);
      } catch (e2) {
        errors.push(`the previous ${c.name} did not come back either: ${errorMessage(e2)}`);
      }
    }
    throw new KubeadmError(
      `${c.name} did not come back after its restart; ${
        errors.length === 0
          ? `its previous ${what()} are back and it runs again`
          : `putting back its previous ${what()} failed: ${errors.join("; ")}`
      }. The backups are in ${run.backupDir}. Cause: ${errorMessage(e)}`,
      {
        cause: e,
        hint:
          `look at its logs ('crictl ps -a --name ${c.name}', 'crictl logs <id>'); the components restarted before it run on their renewed certificates`,
      },
    );
  }
  if (c.name === Component.etcd && ctx.etcd) {
    const client = await ctx.etcd.connect();
    await waitForClusterAvailable(client, ctx.etcd.timing, undefined, undefined, ctx.out.log);
  }
  out.info(`[restart] ${c.name} is back, on its renewed certificates (${timing})`);
  await run.lease?.renew();
}

/**
 * After etcd's restart: this node's kube-apiserver ready again (its readiness endpoint checks
 * etcd), within the timeout. kubeadm points it at the local member alone
 * (`--etcd-servers=https://127.0.0.1:2379`), and its etcd client reconnects with gRPC's default
 * back-off (1 s, then ×1.6 each attempt): after an outage of 30 s it may try again only some
 * 10 s after the member is healthy. Until it does, this node's kubelet cannot renew its Node
 * Lease and the load balancer keeps the API server out; the next control plane must not begin
 * its restarts before. One that never reads again (a client certificate the member's CA refuses)
 * fails etcd's restart, which puts etcd's previous files back. No API server here: nothing.
 */
async function apiServerReadsAgain(ctx: RestartContext, stopped: number): Promise<void> {
  const path = staticPodManifestPath(ctx.manifestDir, Component.apiServer);
  if ((await ctx.files.read(path)) === undefined) return;
  const api = await readComponent(ctx, Component.apiServer);
  try {
    await waitForComponent(ctx, api, () => Promise.resolve(undefined), ctx.timeoutMs);
  } catch (e) {
    throw new KubeadmError(
      `this node's ${api.name} does not read through etcd again: ${errorMessage(e)}`,
      { cause: e },
    );
  }
  ctx.out.info(
    `[restart] ${api.name} reads through etcd again (ready ${
      formatDuration(ctx.client.timing.clock.now().getTime() - stopped)
    } after etcd's container's stop)`,
  );
}

/**
 * Writes a renewal's files and restarts the components that read them (see the module
 * documentation), under this node's restart lock. Every check runs before the first write;
 * throws naming the component that did not come back (its previous files, and manifest, put
 * back). Returns the interrupted runs' folders it resumed and removed (`resumeInterrupted`).
 */
export async function renewAndRestart(ctx: RestartContext, plan: RestartPlan): Promise<string[]> {
  const release = await ctx.lockNode?.(
    2 * ctx.timeoutMs,
    () =>
      ctx.out.info(
        "[restart] Waiting for another kubeadm on this node to finish its restarts",
      ),
  );
  try {
    let resumed: string[] = [];
    if (plan.resumeInterrupted) {
      resumed = await interruptedRuns(ctx);
      if (resumed.length > 0) {
        ctx.out.info(
          `[restart] An earlier run stopped before every component was back (it left ${
            resumed.join(", ")
          }): restarting every component, so that none runs on the certificates it read before`,
        );
        plan = await resumeInterrupted(ctx, plan, resumed);
      }
    }
    await restartLocked(ctx, plan);
    return resumed;
  } finally {
    await release?.();
  }
}

async function restartLocked(ctx: RestartContext, plan: RestartPlan): Promise<void> {
  const out = ctx.out;
  const components = new Map<string, StaticPod>();
  for (const step of plan.steps) {
    components.set(step.component, await readComponent(ctx, step.component));
  }
  const backupDir = `${ctx.kubernetesDir}/tmp/kubeadm-backup-certs-${timestamp(ctx.now)}`;
  const run: Run = { ctx, backupDir, stamp: ctx.now.toISOString() };
  if (plan.steps.length > 0) {
    run.lease = await acquireRestartLease({
      client: ctx.client,
      holder: ctx.nodeName,
      durationMs: 3 * ctx.timeoutMs,
      waitMs: 2 * ctx.timeoutMs,
      onWait: (holder, until) =>
        out.info(
          `[restart] Waiting for control plane ${holder} to finish its restarts (until ${until.toISOString()} at most)`,
        ),
    });
  }
  try {
    for (const c of components.values()) {
      try {
        await waitForComponent(
          ctx,
          c,
          mirrorPodReady(ctx, c, () => true),
          Math.min(PRECHECK_MS, ctx.timeoutMs),
        );
      } catch (e) {
        throw new KubeadmError(
          `${c.name} is not healthy, so kubeadm will not restart it: ${errorMessage(e)}`,
          {
            cause: e,
            hint: "nothing was written; bring it back to health, then run again",
          },
        );
      }
    }
    const etcdPod = components.get(Component.etcd);
    if (etcdPod) await checkEtcd(ctx, etcdPod);
    await ctx.node.ensureDir(backupDir, 0o700);
    for (const f of plan.unread) {
      await ctx.files.write(f);
    }
    for (const step of plan.steps) await restartOne(run, step, components.get(step.component)!);
    await ctx.node.removeFile(backupDir);
    for (const dir of plan.leftovers ?? []) await ctx.node.removeFile(dir);
  } finally {
    await run.lease?.release().catch((e) =>
      out.warn(`[restart] could not release the Lease: ${errorMessage(e)} (it expires by itself)`)
    );
  }
}
