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
import { BASE_INPUTS, type UpgradeData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

function manifestContext(data: UpgradeData): ManifestWriteContext {
  return {
    cfg: data.cfg,
    files: data.files,
    crypto: data.crypto,
    out: data.out,
    manifestDir: data.manifestDir,
    patchesDir: data.settings.patchesDir,
    host: data.host,
  };
}

async function readPem(data: UpgradeData, path: string): Promise<string> {
  const bytes = await data.files.read(path);
  if (bytes === undefined) throw new KubeadmError(`open ${path}: no such file or directory`);
  return utf8(bytes);
}

/** The stacked etcd cluster, reached with this node's `etcd/healthcheck-client` certificate. */
function localEtcd(data: UpgradeData): UpgradeEtcd {
  const timing = etcdTiming({
    clock: data.clock,
    sleep: data.sleep,
    timeoutMs: parseDuration(data.upgrade.timeouts.etcdAPICall),
  });
  return {
    timing,
    async connect() {
      const dir = data.cfg.cluster.certificatesDir;
      const tls = {
        caPem: await readPem(data, `${dir}/etcd/ca.crt`),
        certPem: await readPem(data, `${dir}/etcd/healthcheck-client.crt`),
        keyPem: await readPem(data, `${dir}/etcd/healthcheck-client.key`),
      };
      const endpoints = await etcdEndpointsFromCluster(
        data.client,
        parseDuration(data.upgrade.timeouts.kubernetesAPICall),
        data.out.log,
      );
      return await syncEtcdClient((e) => data.etcdClient(e, tls), endpoints, timing, data.out.log);
    },
  };
}

/**
 * Prints the new manifests as upstream's dry run does: its announcement has no newline, so the
 * next line (a `[patches]` line printed while the manifests are made, else the first file)
 * follows on the same line.
 */
async function dryRun(data: UpgradeData): Promise<void> {
  const lines: string[] = [];
  const files = await plannedControlPlaneManifests({
    ...manifestContext(data),
    out: { info: (l) => lines.push(l), warn: (l) => data.out.warn(l), log: data.out.log },
  }, data.planningOverlay);
  let prefix = `[dryrun] Would upgrade your static Pod-hosted control plane to version ${
    JSON.stringify(data.cfg.cluster.kubernetesVersion)
  }`;
  for (const line of lines) {
    data.out.info(`${prefix}${line}`);
    prefix = "";
  }
  for (const f of files) {
    printDryRunFile(data.out, f, prefix);
    prefix = "";
  }
}

async function upgrade(data: UpgradeData): Promise<void> {
  const timeoutMs = parseDuration(data.upgrade.timeouts.upgradeManifests);
  try {
    await upgradeStaticPodControlPlane({
      ctx: manifestContext(data),
      kubernetesDir: data.kubernetesDir,
      node: data.node,
      waiter: kubeWaiter(data.client, timeoutMs, data.out),
      etcd: data.cfg.cluster.etcd.external ? undefined : localEtcd(data),
      etcdUpgrade: data.settings.etcdUpgrade,
      renewCerts: data.settings.renewCerts,
      random: data.random,
      now: data.clock.now(),
    });
  } catch (e) {
    throw new KubeadmError(`couldn't complete the static pod upgrade: ${errorMessage(e)}`, {
      cause: e,
      hint: e instanceof KubeadmError ? e.hint : undefined,
    });
  }
  data.out.info(
    "[upgrade/control-plane] The control plane instance for this node was successfully upgraded!",
  );
}

/** `upgrade apply phase control-plane`. */
export async function runApplyControlPlane(data: UpgradeData): Promise<void> {
  const version = data.cfg.cluster.kubernetesVersion;
  if (data.settings.dryRun) {
    await dryRun(data);
    return;
  }
  data.out.info(
    `[upgrade/control-plane] Upgrading your static Pod-hosted control plane to version ${
      JSON.stringify(version)
    } (timeout: ${formatDuration(parseDuration(data.upgrade.timeouts.upgradeManifests))})...`,
  );
  await upgrade(data);
}

/** `upgrade node phase control-plane`. */
export async function runNodeControlPlane(data: UpgradeData): Promise<void> {
  if (!data.isControlPlaneNode) {
    data.out.info("[upgrade/control-plane] Skipping phase. Not a control plane node.");
    return;
  }
  const version = data.cfg.cluster.kubernetesVersion;
  data.out.info(
    `[upgrade/control-plane] Upgrading your Static Pod-hosted control plane instance to version ${
      JSON.stringify(version)
    }...`,
  );
  if (data.settings.dryRun) {
    await dryRun(data);
    return;
  }
  await upgrade(data);
}

const INPUTS = [...BASE_INPUTS, "certificateRenewal", "etcdUpgrade", "patchesDir"] as const;

/** `upgrade apply phase control-plane`. */
export const applyControlPlanePhase: Phase<UpgradeData> = {
  name: "control-plane",
  short: "Upgrade the control plane",
  run: runApplyControlPlane,
  inputs: INPUTS,
};

/** `upgrade node phase control-plane`. */
export const nodeControlPlanePhase: Phase<UpgradeData> = {
  name: "control-plane",
  short: "Upgrade the control plane instance deployed on this node, if any",
  run: runNodeControlPlane,
  inputs: INPUTS,
};
