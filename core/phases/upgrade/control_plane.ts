/**
 * The `control-plane` phase of `upgrade apply` and `upgrade node` (upstream
 * `cmd/phases/upgrade/{apply,node}/controlplane.go`): upgrades this node's static Pod control
 * plane (`upgrade/static_pods.ts`), or in `--dry-run` prints the new manifests as if they were
 * written to `/etc/kubernetes/manifests`. A worker has nothing to upgrade here.
 *
 * @module
 */
import { formatDuration, parseDuration } from "../../text/duration.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import { utf8 } from "../../text/utf8.ts";
import { etcdEndpointsFromCluster, syncEtcdClient } from "../../etcd/endpoints.ts";
import { etcdTiming } from "../../etcd/timing.ts";
import type { ManifestWriteContext } from "../../manifests/write.ts";
import { kubeWaiter } from "../../upgrade/pod_waiter.ts";
import { printDryRunFile } from "../../upgrade/post_upgrade.ts";
import {
  plannedControlPlaneManifests,
  type UpgradeEtcd,
  upgradeStaticPodControlPlane,
} from "../../upgrade/static_pods.ts";
import type { UpgradeData } from "./data.ts";

function manifestContext(d: UpgradeData): ManifestWriteContext {
  return {
    cfg: d.cfg,
    files: d.files,
    out: d.out,
    manifestDir: d.manifestDir,
    patchesDir: d.settings.patchesDir,
    host: d.host,
  };
}

async function readPem(d: UpgradeData, path: string): Promise<string> {
  const data = await d.files.read(path);
  if (data === undefined) throw new KubeadmError(`open ${path}: no such file or directory`);
  return utf8(data);
}

/** The stacked etcd cluster, reached with this node's `etcd/healthcheck-client` certificate. */
function localEtcd(d: UpgradeData): UpgradeEtcd {
  const timing = etcdTiming({
    clock: d.clock,
    sleep: d.sleep,
    timeoutMs: parseDuration(d.upgrade.timeouts.etcdAPICall),
  });
  return {
    timing,
    async connect() {
      const dir = d.cfg.cluster.certificatesDir;
      const tls = {
        caPem: await readPem(d, `${dir}/etcd/ca.crt`),
        certPem: await readPem(d, `${dir}/etcd/healthcheck-client.crt`),
        keyPem: await readPem(d, `${dir}/etcd/healthcheck-client.key`),
      };
      const endpoints = await etcdEndpointsFromCluster(
        d.client,
        parseDuration(d.upgrade.timeouts.kubernetesAPICall),
        d.out.log,
      );
      return await syncEtcdClient((e) => d.etcdClient(e, tls), endpoints, timing, d.out.log);
    },
  };
}

/**
 * Prints the new manifests as upstream's dry run does: its announcement has no newline, so the
 * next line (a `[patches]` line printed while the manifests are made, else the first file)
 * follows on the same line.
 */
async function dryRun(d: UpgradeData): Promise<void> {
  const lines: string[] = [];
  const files = await plannedControlPlaneManifests({
    ...manifestContext(d),
    out: { info: (l) => lines.push(l), warn: (l) => d.out.warn(l), log: d.out.log },
  }, d.planningOverlay);
  let prefix = `[dryrun] Would upgrade your static Pod-hosted control plane to version ${
    JSON.stringify(d.cfg.cluster.kubernetesVersion)
  }`;
  for (const line of lines) {
    d.out.info(`${prefix}${line}`);
    prefix = "";
  }
  for (const f of files) {
    printDryRunFile(d.out, f, prefix);
    prefix = "";
  }
}

async function upgrade(d: UpgradeData): Promise<void> {
  const timeoutMs = parseDuration(d.upgrade.timeouts.upgradeManifests);
  try {
    await upgradeStaticPodControlPlane({
      ctx: manifestContext(d),
      kubernetesDir: d.kubernetesDir,
      node: d.node,
      waiter: kubeWaiter(d.client, timeoutMs, d.out),
      etcd: d.cfg.cluster.etcd.external ? undefined : localEtcd(d),
      etcdUpgrade: d.settings.etcdUpgrade,
      renewCerts: d.settings.renewCerts,
      random: d.random,
      crypto: d.crypto,
      now: d.clock.now(),
    });
  } catch (e) {
    throw new KubeadmError(`couldn't complete the static pod upgrade: ${errorMessage(e)}`, {
      cause: e,
      hint: e instanceof KubeadmError ? e.hint : undefined,
    });
  }
  d.out.info(
    "[upgrade/control-plane] The control plane instance for this node was successfully upgraded!",
  );
}

/** `upgrade apply phase control-plane`. */
export async function runApplyControlPlane(d: UpgradeData): Promise<void> {
  const version = d.cfg.cluster.kubernetesVersion;
  if (d.settings.dryRun) {
    await dryRun(d);
    return;
  }
  d.out.info(
    `[upgrade/control-plane] Upgrading your static Pod-hosted control plane to version ${
      JSON.stringify(version)
    } (timeout: ${formatDuration(parseDuration(d.upgrade.timeouts.upgradeManifests))})...`,
  );
  await upgrade(d);
}

/** `upgrade node phase control-plane`. */
export async function runNodeControlPlane(d: UpgradeData): Promise<void> {
  if (!d.isControlPlaneNode) {
    d.out.info("[upgrade/control-plane] Skipping phase. Not a control plane node.");
    return;
  }
  const version = d.cfg.cluster.kubernetesVersion;
  d.out.info(
    `[upgrade/control-plane] Upgrading your Static Pod-hosted control plane instance to version ${
      JSON.stringify(version)
    }...`,
  );
  if (d.settings.dryRun) {
    await dryRun(d);
    return;
  }
  await upgrade(d);
}
