/**
 * Upgrading a node's static Pod control plane (upstream `phases/upgrade/staticpods.go`): the new
 * manifests are written to `/etc/kubernetes/tmp/kubeadm-upgraded-manifests<random>`, then each
 * component in turn — local etcd first, then kube-apiserver, kube-controller-manager,
 * kube-scheduler — has its certificates renewed (`--certificate-renewal`), its current manifest
 * backed up to `/etc/kubernetes/tmp/kubeadm-backup-manifests-<YYYY-MM-DD-HH-MM-SS>/` and the new
 * one put in place; kubeadm then waits for the kubelet to run it (the mirror Pod's config hash
 * changes, the component's Pods are Running). When a component does not come back in time, the
 * backed-up manifests are moved back and the error names the component.
 *
 * etcd: its data directory is copied to `/etc/kubernetes/tmp/kubeadm-backup-etcd-<timestamp>/`
 * first; when the new etcd does not become available the data is restored from there and the
 * old manifest put back. Unlike upstream (`cp -r backup datadir`, which nests the backup inside
 * the data directory), the restore replaces the data directory's content with the backup.
 *
 * A changed manifest is never absent from `/etc/kubernetes/manifests`: the current one is
 * copied to the backup and the new one renamed over it (upstream moves the old one out first),
 * so a run killed at any point leaves a running control plane and a re-run converges
 * (components whose manifest is already the new one are skipped). Manifests that are
 * semantically equal are not swapped, except etcd's when kube-apiserver changes: that one is
 * removed before the new (identical) one is renamed in, as upstream moves it out and back,
 * because the kubelet restarts a static Pod only when its manifest changes or goes away — so
 * etcd restarts, on its renewed certificates.
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import { Component } from "../constants.ts";
import { targetRelease } from "../versions.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { EtcdClient } from "../ports/etcd.ts";
import {
  type FileReader,
  type FileSystem,
  type PlanningOverlay,
  writePlannedFiles,
} from "../ports/files.ts";
import type { Printer } from "../ports/printer.ts";
import type { RandomSource } from "../ports/random.ts";
import { utf8 } from "../text/utf8.ts";
import {
  checkClusterHealth,
  checkQuorumWithout,
  waitForClusterAvailable,
} from "../etcd/member_join.ts";
import { ETCD_REQUEST_TIMEOUT_MS } from "../etcd/timing.ts";
import type { EtcdTiming } from "../etcd/timing.ts";
import { planRenewal, renewalSettings } from "../certs/renewal.ts";
import { PkiDirectory } from "../certs/pki_dir.ts";
import { etcdPeerURL, etcdPod } from "../manifests/etcd.ts";
import { CONTROL_PLANE_COMPONENTS, staticPodManifestPath } from "../manifests/manifest_file.ts";
import {
  type ManifestWriteContext,
  nodeManifestInput,
  writeControlPlaneManifests,
  writeLocalEtcdManifest,
} from "../manifests/write.ts";
import { compareSemVer, formatSemVer, parseSemVer } from "../config/version.ts";
import { formatDuration } from "../text/duration.ts";
import { parseKubeYamlOne } from "../yaml/kube_yaml.ts";
import type { StaticPodWaiter } from "./pod_waiter.ts";
import { imageTagToSemver, tagFromImage } from "./version_getter.ts";

/** This module's name in verbose log lines. */
const LOG_SOURCE = "static_pods.ts";

/** What the upgrade does to the node's files besides writing them. */
export interface UpgradeNodeOps {
  /** Creates a directory (and parents) with the mode. */
  ensureDir(path: string, mode: number): Promise<void>;
  /** Removes a file or a whole tree; missing is not an error. */
  removeFile(path: string): Promise<void>;
  /** Empties a directory (keeping it). */
  cleanDir(path: string): Promise<void>;
  /** Renames a file, replacing the destination atomically. */
  moveFile(from: string, to: string): Promise<void>;
  /** Copies a file or a directory tree (modes kept), merging into an existing directory. */
  copyTree(from: string, to: string): Promise<void>;
}

/** The local etcd cluster, as the upgrade reaches it. */
export interface UpgradeEtcd {
  /** A client of the cluster found through the API server (upstream `NewFromCluster`). */
  connect(): Promise<EtcdClient>;
  timing: EtcdTiming;
  /** Retries and interval of the waits for the cluster (upstream: 10 × 15 s). */
  retries?: number;
  intervalMs?: number;
}

/** Input of {@link upgradeStaticPodControlPlane}. */
export interface StaticPodUpgradeInput {
  /**
   * This node as the manifest writers see it, with the target configuration
   * (`kubernetesVersion` = the new version); its `manifestDir` is the real manifest folder.
   */
  ctx: ManifestWriteContext;
  /** `/etc/kubernetes`. */
  kubernetesDir: string;
  node: UpgradeNodeOps;
  waiter: StaticPodWaiter;
  /** The local etcd cluster (absent with external etcd). */
  etcd?: UpgradeEtcd;
  /** `--etcd-upgrade`. */
  etcdUpgrade: boolean;
  /** `--certificate-renewal`. */
  renewCerts: boolean;
  random: RandomSource;
  /** Now (backup directory names, certificate validity). */
  now: Date;
}

/** The directories of one upgrade (upstream `StaticPodPathManager`). */
interface UpgradeDirs {
  /** Where the new manifests are written first. */
  temp: string;
  /** Where the replaced manifests are kept. */
  backupManifests: string;
  /** Where the etcd data is copied. */
  backupEtcd: string;
}

function two(n: number): string {
  return String(n).padStart(2, "0");
}

/** Go's `2006-01-02-15-04-05` in local time. */
export function timestamp(d: Date): string {
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}-${two(d.getHours())}-${
    two(d.getMinutes())
  }-${two(d.getSeconds())}`;
}

/** `<kubernetesDir>/tmp/<name>-<timestamp>` (upstream `CreateTimestampDir`). */
export async function createTimestampDir(
  node: UpgradeNodeOps,
  kubernetesDir: string,
  name: string,
  now: Date,
): Promise<string> {
  const dir = `${kubernetesDir}/tmp/${name}-${timestamp(now)}`;
  await node.ensureDir(dir, 0o700);
  return dir;
}

/** `<kubernetesDir>/tmp/<name><random digits>` (upstream `CreateTempDir`, `os.MkdirTemp`). */
export async function createTempDir(
  node: UpgradeNodeOps,
  kubernetesDir: string,
  name: string,
  random: RandomSource,
): Promise<string> {
  const n = new DataView(random.bytes(4).buffer).getUint32(0);
  const dir = `${kubernetesDir}/tmp/${name}${n}`;
  await node.ensureDir(dir, 0o700);
  return dir;
}

/** Creates the upgrade's three directories. */
async function createUpgradeDirs(input: StaticPodUpgradeInput): Promise<UpgradeDirs> {
  const { node, kubernetesDir } = input;
  return {
    temp: await createTempDir(node, kubernetesDir, "kubeadm-upgraded-manifests", input.random),
    backupManifests: await createTimestampDir(
      node,
      kubernetesDir,
      "kubeadm-backup-manifests",
      input.now,
    ),
    backupEtcd: await createTimestampDir(node, kubernetesDir, "kubeadm-backup-etcd", input.now),
  };
}

/** Sorted-key JSON: two manifests are equal when their decoded objects are. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, v) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]))
        : v,
  );
}

async function readPod(files: FileSystem, path: string): Promise<Pod> {
  const data = await files.read(path);
  if (data === undefined) throw new KubeadmError(`open ${path}: no such file or directory`);
  try {
    return parseKubeYamlOne(utf8(data), path) as Pod;
  } catch (e) {
    throw new KubeadmError(
      `failed to unmarshal manifest for ${JSON.stringify(path)}: ${errorMessage(e)}`,
      {
        cause: e,
      },
    );
  }
}

/** Whether two manifest files decode to the same Pod (upstream `ManifestFilesAreEqual`). */
async function manifestFilesAreEqual(
  files: FileSystem,
  a: string,
  b: string,
): Promise<boolean> {
  return canonical(await readPod(files, a)) === canonical(await readPod(files, b));
}

/** The certificates (and kubeconfigs) renewed before a component's manifest changes. */
function certificatesOfComponent(component: string, localEtcd: boolean): string[] {
  switch (component) {
    case Component.etcd:
      return localEtcd ? ["etcd-server", "etcd-peer", "etcd-healthcheck-client"] : [];
    case Component.apiServer:
      return [
        "apiserver",
        "apiserver-kubelet-client",
        "front-proxy-client",
        ...(localEtcd ? ["apiserver-etcd-client"] : []),
      ];
    case Component.controllerManager:
      return ["controller-manager.conf"];
    case Component.scheduler:
      return ["scheduler.conf"];
  }
  return [];
}

/**
 * Renews one certificate with the local CA (upstream `RenewUsingLocalCA`); returns false when
 * its CA is external (the certificate cannot be renewed).
 */
async function renewUsingLocalCA(
  input: StaticPodUpgradeInput,
  name: string,
): Promise<boolean> {
  const plan = await planRenewal({
    pki: PkiDirectory.of(input.ctx),
    kubeconfigDir: input.kubernetesDir,
    settings: renewalSettings(input.ctx.cfg.cluster),
    names: [name],
    startTime: input.now,
    now: input.now,
    random: input.random,
  });
  const outcome = plan.outcomes[0];
  if (outcome.status === "external") return false;
  if (outcome.status === "missing") {
    throw new KubeadmError(
      `failed to load existing certificate ${name}: the file does not exist`,
      { hint: "restore it from a backup, or run 'kubeadm init phase certs' for it" },
    );
  }
  await writePlannedFiles(input.ctx.files, plan.files);
  return true;
}

async function renewCertsOfComponent(input: StaticPodUpgradeInput, component: string) {
  const localEtcd = input.ctx.cfg.cluster.etcd.external === undefined;
  for (const name of certificatesOfComponent(component, localEtcd)) {
    input.ctx.out.info(`[upgrade/staticpods] Renewing ${name} certificate`);
    if (!(await renewUsingLocalCA(input, name))) {
      input.ctx.out.info(
        `[upgrade/staticpods] External CA detected, ${name} certificate can't be renewed`,
      );
    }
  }
}

/** Aggregates errors as upstream's `utilerrors.NewAggregate` prints them. */
function aggregate(errors: unknown[]): string {
  const msgs = errors.map(errorMessage);
  return msgs.length === 1 ? msgs[0] : `[${msgs.join(", ")}]`;
}

/** The state of one run: the backups that can be moved back. */
interface Swap {
  input: StaticPodUpgradeInput;
  dirs: UpgradeDirs;
  /** Component → its backup (only manifests that were really backed up). */
  recover: Map<string, string>;
}

/**
 * Moves the backed-up manifests back (etcd's only when asked) and returns the error to fail
 * with, which keeps the original error first (upstream `rollbackOldManifests`).
 */
async function rollbackOldManifests(
  swap: Swap,
  cause: unknown,
  restoreEtcd: boolean,
): Promise<KubeadmError> {
  const errors: unknown[] = [cause];
  for (const [component, backup] of swap.recover) {
    if (component === Component.etcd && !restoreEtcd) continue;
    try {
      await swap.input.node.moveFile(
        backup,
        staticPodManifestPath(swap.input.ctx.manifestDir, component),
      );
    } catch (e) {
      errors.push(e);
    }
  }
  return new KubeadmError(
    `couldn't upgrade control plane. kubeadm has tried to recover everything into the earlier state. Errors faced: ${
      aggregate(errors)
    }`,
    { cause, hint: cause instanceof KubeadmError ? cause.hint : undefined },
  );
}

async function upgradeComponent(swap: Swap, component: string, beforeHash: string) {
  const { input, dirs } = swap;
  const { ctx, waiter } = input;
  const out = ctx.out;
  const restoreEtcd = component === Component.etcd;
  const current = staticPodManifestPath(ctx.manifestDir, component);
  const next = staticPodManifestPath(dirs.temp, component);
  const backup = staticPodManifestPath(dirs.backupManifests, component);
  let apiServerUpgrade = false;
  if (component === Component.etcd) {
    apiServerUpgrade = !(await manifestFilesAreEqual(
      ctx.files,
      staticPodManifestPath(ctx.manifestDir, Component.apiServer),
      staticPodManifestPath(dirs.temp, Component.apiServer),
    ));
  }
  out.info(`[upgrade/staticpods] Preparing for ${JSON.stringify(component)} upgrade`);
  const equal = await manifestFilesAreEqual(ctx.files, current, next);
  if (equal && !apiServerUpgrade) {
    out.info(
      `[upgrade/staticpods] Current and new manifests of ${component} are equal, skipping upgrade`,
    );
    return;
  }
  // Upstream logs the manifests' differences at -v=4 too, as a Go structure diff (not kept).
  if (equal) {
    out.log?.(
      4,
      LOG_SOURCE,
      `[upgrade/staticpods] Current and new manifests of ${component} are equal, but ${Component.apiServer} will be upgraded`,
    );
  }
  const rollback = async (e: unknown) => {
    throw await rollbackOldManifests(swap, e, restoreEtcd);
  };
  if (input.renewCerts) {
    try {
      await renewCertsOfComponent(input, component);
    } catch (e) {
      await rollback(
        new KubeadmError(
          `failed to renew certificates for component ${JSON.stringify(component)}: ${
            errorMessage(e)
          }`,
          { cause: e, hint: e instanceof KubeadmError ? e.hint : undefined },
        ),
      );
    }
  }
  if (equal && input.renewCerts) {
    out.info(
      `[upgrade/staticpods] Restarting the ${component} static pod and backing up its manifest to ${
        JSON.stringify(backup)
      }`,
    );
  } else {
    out.info(
      `[upgrade/staticpods] Moving new manifest to ${
        JSON.stringify(current)
      } and backing up old manifest to ${JSON.stringify(backup)}`,
    );
  }
  try {
    await input.node.copyTree(current, backup);
    swap.recover.set(component, backup);
    // An identical manifest renamed over the old one is no change to the kubelet: take it out
    // first (upstream moves it out), so that the kubelet stops the Pod and starts it again.
    if (equal) await input.node.removeFile(current);
    await input.node.moveFile(next, current);
  } catch (e) {
    await rollback(e);
  }
  out.info("[upgrade/staticpods] Waiting for the kubelet to restart the component");
  out.info(`[upgrade/staticpods] This can take up to ${formatDuration(waiter.timeoutMs)}`);
  const nodeName = ctx.cfg.init.nodeRegistration.name;
  try {
    if (!equal) await waiter.staticPodHashChange(nodeName, component, beforeHash);
    await waiter.podsWithLabel(`component=${component}`);
  } catch (e) {
    await rollback(e);
  }
  out.info(`[upgrade/staticpods] Component ${JSON.stringify(component)} upgraded successfully!`);
}

/** An etcd upgrade's outcome: fatal errors stop the upgrade, others are printed. */
class EtcdUpgradeError extends KubeadmError {
  constructor(message: string, readonly fatal: boolean, cause?: unknown) {
    super(cause === undefined ? message : `${message}: ${errorMessage(cause)}`, {
      cause,
      hint: cause instanceof KubeadmError ? cause.hint : undefined,
    });
  }
}

/** The etcd version a local etcd should run: `etcd.local.imageTag`, else kubeadm's. */
function desiredEtcdVersion(input: StaticPodUpgradeInput): string {
  const cluster = input.ctx.cfg.cluster;
  const tag = cluster.etcd.local?.imageTag;
  if (tag) return imageTagToSemver(tag);
  const { etcd, etcdWarning } = targetRelease(cluster.kubernetesVersion);
  if (etcdWarning) {
    input.ctx.out.log?.(1, LOG_SOURCE, `[upgrade/etcd] WARNING: ${etcdWarning}`);
  }
  return etcd;
}

async function rollbackEtcdData(swap: Swap, dataDir: string): Promise<void> {
  const backup = `${swap.dirs.backupEtcd}/${baseName(dataDir)}`;
  try {
    await swap.input.node.cleanDir(dataDir);
    await swap.input.node.copyTree(backup, dataDir);
  } catch (e) {
    throw new KubeadmError(
      `couldn't recover etcd database with error, the location of etcd backup: ${swap.dirs.backupEtcd}, output: ${
        JSON.stringify(errorMessage(e))
      }`,
      { cause: e },
    );
  }
}

function baseName(path: string): string {
  return path.replace(/\/+$/, "").split("/").pop() ?? path;
}

async function upgradeEtcd(swap: Swap, oldEtcd: EtcdClient): Promise<void> {
  const { input, dirs } = swap;
  const { ctx } = input;
  const out = ctx.out;
  const etcd = input.etcd!;
  const retries = etcd.retries ?? 10;
  const intervalMs = etcd.intervalMs ?? 15_000;
  const available = (client: EtcdClient) =>
    waitForClusterAvailable(client, etcd.timing, retries, intervalMs, out.log);
  try {
    await checkClusterHealth(oldEtcd, etcd.timing, out.log);
  } catch (e) {
    throw new EtcdUpgradeError("etcd cluster is not healthy", true, e);
  }
  // Restarting this member must not stop the cluster (beyond upstream).
  const peerURL = etcdPeerURL(ctx.cfg.init.localAPIEndpoint.advertiseAddress);
  try {
    await checkQuorumWithout(oldEtcd, peerURL, etcd.timing, ETCD_REQUEST_TIMEOUT_MS);
  } catch (e) {
    throw new EtcdUpgradeError("etcd cluster is not healthy", true, e);
  }
  const dataDir = ctx.cfg.cluster.etcd.local?.dataDir ?? "/var/lib/etcd";
  try {
    await input.node.copyTree(dataDir, `${dirs.backupEtcd}/${baseName(dataDir)}`);
  } catch (e) {
    throw new EtcdUpgradeError(
      `failed to back up etcd data, output: ${JSON.stringify(errorMessage(e))}`,
      true,
      e,
    );
  }
  const desiredStr = desiredEtcdVersion(input);
  const desired = parseSemVer(desiredStr);
  if (!desired) {
    throw new EtcdUpgradeError(
      `failed to parse tag ${JSON.stringify(desiredStr)} as a semantic version`,
      true,
    );
  }
  let currentStr: string;
  try {
    const pod = await readPod(ctx.files, staticPodManifestPath(ctx.manifestDir, Component.etcd));
    currentStr = imageTagToSemver(tagFromImage(pod.spec?.containers?.[0]?.image ?? ""));
  } catch (e) {
    throw new EtcdUpgradeError("failed to retrieve the current etcd version", true, e);
  }
  const current = parseSemVer(currentStr);
  if (!current) {
    throw new EtcdUpgradeError(
      `failed comparing the current etcd version ${JSON.stringify(currentStr)} to the desired one ${
        JSON.stringify(formatSemVer(desired))
      }`,
      true,
    );
  }
  if (compareSemVer(desired, current) < 0) {
    throw new EtcdUpgradeError(
      `the desired etcd version ${
        JSON.stringify(formatSemVer(desired))
      } is older than the currently installed ${JSON.stringify(currentStr)}. Skipping etcd upgrade`,
      false,
    );
  }
  const nodeName = ctx.cfg.init.nodeRegistration.name;
  let beforeHash: string;
  try {
    beforeHash = await input.waiter.staticPodHash(nodeName, Component.etcd);
  } catch (e) {
    throw new EtcdUpgradeError(errorMessage(e), true, undefined);
  }
  try {
    const tempCtx = { ...ctx, manifestDir: dirs.temp };
    await writeLocalEtcdManifest(tempCtx, etcdPod(await nodeManifestInput(ctx), []));
  } catch (e) {
    throw new EtcdUpgradeError("error creating local etcd static pod manifest file", true, e);
  }
  const backupNote = `the backup of etcd database is stored here:(${dirs.backupEtcd})`;
  /** Copies the backup over the data directory; `fatal` words the failure. */
  const restoreData = async (fatal: (e: unknown) => EtcdUpgradeError) => {
    out.info("[upgrade/etcd] Rolling back etcd data");
    try {
      await rollbackEtcdData(swap, dataDir);
    } catch (e) {
      throw fatal(e);
    }
    out.info("[upgrade/etcd] Etcd data rollback successful");
  };
  /** Waits for the etcd that ran before; nothing is left to try when it does not come. */
  const waitForPrevious = async () => {
    out.info("[upgrade/etcd] Waiting for previous etcd to become available");
    try {
      await available(oldEtcd);
    } catch (e) {
      out.info(`[upgrade/etcd] Failed to healthcheck previous etcd: ${errorMessage(e)}`);
      throw new EtcdUpgradeError(
        `fatal error rolling back local etcd cluster manifest, ${backupNote}`,
        true,
        e,
      );
    }
  };
  try {
    await upgradeComponent(swap, Component.etcd, beforeHash);
  } catch (e) {
    out.info(`[upgrade/etcd] Failed to upgrade etcd: ${errorMessage(e)}`);
    out.info("[upgrade/etcd] Waiting for previous etcd to become available");
    try {
      await available(oldEtcd);
    } catch (e2) {
      out.info(`[upgrade/etcd] Failed to healthcheck previous etcd: ${errorMessage(e2)}`);
      await restoreData((e3) =>
        new EtcdUpgradeError(
          `fatal error rolling back local etcd cluster datadir: ${errorMessage(e3)}, ${backupNote}`,
          true,
        )
      );
      await waitForPrevious();
    }
    out.info("[upgrade/etcd] Etcd was rolled back and is now available");
    throw new EtcdUpgradeError(
      "fatal error when trying to upgrade the etcd cluster, rolled the state back to pre-upgrade state",
      true,
      e,
    );
  }
  let newEtcd: EtcdClient;
  try {
    newEtcd = await etcd.connect();
  } catch (e) {
    throw new EtcdUpgradeError("fatal error creating etcd client", true, e);
  }
  out.info("[upgrade/etcd] Waiting for etcd to become available");
  try {
    await available(newEtcd);
  } catch (e) {
    out.info(`[upgrade/etcd] Failed to healthcheck etcd: ${errorMessage(e)}`);
    await restoreData((e3) =>
      new EtcdUpgradeError(
        `fatal error rolling back local etcd cluster datadir, ${backupNote}`,
        true,
        e3,
      )
    );
    out.info("[upgrade/etcd] Rolling back etcd manifest");
    await rollbackOldManifests(swap, e, true);
    await waitForPrevious();
    out.info("[upgrade/etcd] Etcd was rolled back and is now available");
    throw new EtcdUpgradeError(
      "fatal error upgrading local etcd cluster, rolled the state back to pre-upgrade state",
      true,
      e,
    );
  }
}

/** Writes the new control-plane manifests (not etcd) into `dir`. */
async function writeNewManifests(ctx: ManifestWriteContext, dir: string): Promise<void> {
  await writeControlPlaneManifests({ ...ctx, manifestDir: dir });
}

/**
 * The new control-plane manifests as `upgrade apply --dry-run` prints them (upstream
 * `DryRunStaticPodUpgrade`): built and patched on a planning overlay of `ctx.files`, never
 * written; returns path and content.
 */
export async function plannedControlPlaneManifests(
  ctx: ManifestWriteContext,
  overlay: PlanningOverlay,
): Promise<{ path: string; content: string }[]> {
  const recording = overlay(ctx.files);
  await writeNewManifests({ ...ctx, files: recording }, ctx.manifestDir);
  return recording.planned.map((f) => ({
    path: f.path,
    content: typeof f.data === "string" ? f.data : utf8(f.data),
  }));
}

/**
 * Puts back the control-plane manifests an interrupted upgrade left out (beyond upstream). The
 * swap of a manifest equal to the new one (etcd's, restarted for its renewed certificates) takes
 * it out of the manifests folder before renaming the new one in, as the kubelet restarts a
 * static Pod only when its manifest changes or goes away; a run killed between the two leaves
 * the component stopped with no manifest, its copy in the backup folder and the new one in the
 * run's `kubeadm-upgraded-manifests*` folder. Such a manifest (missing, present in an upgrade's
 * leftover folder of new manifests) is copied back from the newest backup holding it, before
 * anything else runs: with a single control plane its API server cannot answer until etcd is
 * back. Returns the restored paths; in dry-run only says what it would restore.
 */
export async function restoreInterruptedSwap(
  files: FileReader,
  node: Pick<UpgradeNodeOps, "copyTree">,
  kubernetesDir: string,
  manifestDir: string,
  out: Printer,
  dryRun: boolean,
): Promise<string[]> {
  const tmp = `${kubernetesDir}/tmp`;
  const entries = (await files.list(tmp)) ?? [];
  const upgraded = entries.filter((e) => e.startsWith("kubeadm-upgraded-manifests"));
  const backups = entries.filter((e) => e.startsWith("kubeadm-backup-manifests-")).sort()
    .reverse();
  const restored: string[] = [];
  for (const component of [Component.etcd, ...CONTROL_PLANE_COMPONENTS]) {
    const current = staticPodManifestPath(manifestDir, component);
    if ((await files.read(current)) !== undefined) continue;
    let interrupted = false;
    for (const dir of upgraded) {
      if ((await files.read(staticPodManifestPath(`${tmp}/${dir}`, component))) !== undefined) {
        interrupted = true;
        break;
      }
    }
    if (!interrupted) continue;
    for (const dir of backups) {
      const backup = staticPodManifestPath(`${tmp}/${dir}`, component);
      if ((await files.read(backup)) === undefined) continue;
      out.info(
        `[upgrade/staticpods] ${dryRun ? "Would restore" : "Restoring"} ${
          JSON.stringify(current)
        } from ${JSON.stringify(backup)}: an earlier upgrade was interrupted while it was out`,
      );
      if (!dryRun) await node.copyTree(backup, current);
      restored.push(current);
      break;
    }
  }
  return restored;
}

/**
 * Upgrades this node's static Pod control plane (upstream `StaticPodControlPlane` with the
 * path manager of `PerformStaticPodUpgrade`). Throws, after rolling back, naming the
 * component that did not come back.
 */
export async function upgradeStaticPodControlPlane(input: StaticPodUpgradeInput): Promise<void> {
  const { ctx } = input;
  const out = ctx.out;
  const cluster = ctx.cfg.cluster;
  const externalEtcd = cluster.etcd.external !== undefined;
  const dirs = await createUpgradeDirs(input);
  const swap: Swap = { input, dirs, recover: new Map() };
  const nodeName = ctx.cfg.init.nodeRegistration.name;
  const before = await input.waiter.staticPodHashes(nodeName, CONTROL_PLANE_COMPONENTS);
  let oldEtcd: EtcdClient | undefined;
  if (!externalEtcd && input.etcd) {
    try {
      oldEtcd = await input.etcd.connect();
    } catch (e) {
      throw new KubeadmError(`failed to create etcd client: ${errorMessage(e)}`, { cause: e });
    }
  }
  out.info(`[upgrade/staticpods] Writing new Static Pod manifests to ${JSON.stringify(dirs.temp)}`);
  try {
    await writeNewManifests(ctx, dirs.temp);
  } catch (e) {
    throw new KubeadmError(`error creating init static pod manifest files: ${errorMessage(e)}`, {
      cause: e,
    });
  }
  if (!externalEtcd && input.etcdUpgrade && oldEtcd) {
    try {
      await upgradeEtcd(swap, oldEtcd);
    } catch (e) {
      if (!(e instanceof EtcdUpgradeError) || e.fatal) throw e;
      out.info(`[upgrade/etcd] Non fatal issue encountered during upgrade: ${e.message}`);
    }
  }
  for (const component of CONTROL_PLANE_COMPONENTS) {
    await upgradeComponent(swap, component, before[component]);
  }
  if (input.renewCerts) {
    for (const file of ["admin.conf", "super-admin.conf"]) {
      if (
        file === "super-admin.conf" &&
        (await ctx.files.read(`${input.kubernetesDir}/${file}`)) === undefined
      ) {
        continue;
      }
      let renewed: boolean;
      try {
        renewed = await renewUsingLocalCA(input, file);
      } catch (e) {
        throw await rollbackOldManifests(
          swap,
          new KubeadmError(`failed to upgrade the ${file} certificates: ${errorMessage(e)}`, {
            cause: e,
          }),
          false,
        );
      }
      if (!renewed) {
        out.info(`[upgrade/staticpods] External CA detected, ${file} certificate can't be renewed`);
      }
    }
  }
  // The backups stay (manifests always, etcd data when etcd was upgraded), as upstream.
  await input.node.removeFile(dirs.temp);
  if (!(input.etcdUpgrade && !externalEtcd)) await input.node.removeFile(dirs.backupEtcd);
}
