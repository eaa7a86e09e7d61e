/**
 * The reset `cleanup-node` phase: stop the kubelet, unmount what is mounted under
 * `/var/lib/kubelet`, remove the Kubernetes containers, then delete the contents of kubeadm's
 * directories and kubeadm's kubeconfig files.
 *
 * Only these are touched: the contents of `/etc/kubernetes/manifests`, of `/var/lib/kubelet`
 * (after symlink resolution), of the certificates directory and, with `--cleanup-tmp-dir`, of
 * `/etc/kubernetes/tmp`; and the six kubeconfig files in `/etc/kubernetes`. CNI configuration,
 * network rules and `$HOME/.kube` are left alone, as upstream. Beyond upstream, the certificate
 * auto-renewal schedule (`certs auto-renewal install`) is removed first.
 *
 * @module
 */
import {
  KUBEADM_TMP_DIR,
  KubeconfigFile,
  KUBELET_RUN_DIR,
  KUBERNETES_DIR,
  MANIFESTS_DIR,
} from "../../constants.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import { certificatesDirOrDefault } from "../../config/defaults.ts";
import { removeAutoRenewal } from "../../certs/auto_renewal.ts";
import type { ResetData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";
import { cleanupDirProblem } from "./safety.ts";
import { cleanDataDir } from "./remove_etcd_member.ts";

/** The kubeconfig files reset deletes, in upstream's order. */
const RESET_KUBECONFIG_FILES: readonly string[] = [
  KubeconfigFile.admin,
  KubeconfigFile.superAdmin,
  KubeconfigFile.kubelet,
  KubeconfigFile.bootstrapKubelet,
  KubeconfigFile.controllerManager,
  KubeconfigFile.scheduler,
].map((f) => `${KUBERNETES_DIR}/${f}`);

async function stopKubelet(data: ResetData): Promise<void> {
  if (data.node.foreignRoot !== undefined) {
    // The running machine's kubelet serves the running machine, not a root prepared elsewhere
    // (upstream, chrooted, would run the root's own systemctl).
    data.out.warn(
      `[reset] The node's root is ${data.node.foreignRoot}; kubeadm does not stop the running machine's kubelet service for it`,
    );
    data.out.warn("[reset] Please ensure kubelet is stopped manually");
    return;
  }
  data.out.log?.(1, "cleanup_node.ts", "[reset] Getting init system");
  const init = await data.node.machine.initSystem();
  if (!init) {
    data.out.warn(
      "[reset] The kubelet service could not be stopped by kubeadm. Unable to detect a supported init system!",
    );
    data.out.warn("[reset] Please ensure kubelet is stopped manually");
    return;
  }
  if (data.dryRun) {
    data.out.info("[dryrun] Would stop the kubelet service");
    return;
  }
  data.out.info("[reset] Stopping the kubelet service");
  try {
    await init.serviceStop("kubelet");
  } catch (e) {
    data.out.warn(
      `[reset] The kubelet service could not be stopped by kubeadm: [${errorMessage(e)}]`,
    );
    data.out.warn("[reset] Please ensure kubelet is stopped manually");
  }
}

/**
 * Removes the certificate auto-renewal schedule (beyond upstream: kubeadm-ts installs it), so
 * that no timer renews the certificates of a node that no longer has any.
 */
async function removeCertificateAutoRenewal(data: ResetData): Promise<void> {
  if (data.node.foreignRoot !== undefined) return;
  const init = await data.node.machine.initSystem();
  try {
    await removeAutoRenewal({
      files: data.node.machine.files,
      removeFile: (p) => data.node.removeFile(p),
      init,
      out: data.out,
      dryRun: data.dryRun,
    });
  } catch (e) {
    data.out.warn(`[reset] Failed to remove the certificate auto-renewal: ${errorMessage(e)}`);
  }
}

/** Unmounts everything under the kubelet directory; returns the resolved directory to clean. */
async function unmountKubeletDir(data: ResetData): Promise<string | undefined> {
  if (data.dryRun) {
    data.out.info(
      `[dryrun] Would unmount mounted directories in ${JSON.stringify(KUBELET_RUN_DIR)}`,
    );
    return undefined;
  }
  let dir: string;
  try {
    dir = await data.node.realDir(KUBELET_RUN_DIR);
  } catch (e) {
    data.out.warn(
      `[reset] Skipping unmount of directories in ${JSON.stringify(KUBELET_RUN_DIR)}: ${
        errorMessage(e)
      }`,
    );
    return undefined;
  }
  const problem = cleanupDirProblem(dir);
  if (problem !== undefined) {
    data.out.warn(
      `[reset] Skipping unmount and cleanup of ${JSON.stringify(KUBELET_RUN_DIR)} (resolved to ${
        JSON.stringify(dir)
      }): ${problem}`,
    );
    return undefined;
  }
  data.out.info(`[reset] Unmounting mounted directories in ${JSON.stringify(KUBELET_RUN_DIR)}`);
  const prefix = `${dir}/`;
  // Innermost (most recently mounted) first, so nested mounts come off cleanly.
  const mounts = (await data.node.mountPoints()).filter((m) => m.startsWith(prefix)).reverse();
  const errors: string[] = [];
  for (const m of mounts) {
    try {
      if ((await data.node.unmount(m, data.unmountFlags)) === "not-mounted") {
        // v1.35+: expected when a duplicate entry went away with its shared peer.
        data.out.warn(`[reset] Ignoring EINVAL error while unmounting ${JSON.stringify(m)}`);
      }
    } catch (e) {
      errors.push(`failed to unmount ${JSON.stringify(m)}: ${errorMessage(e)}`);
    }
  }
  if (errors.length > 0) {
    throw new KubeadmError(
      `encountered the following errors while unmounting directories in ${
        JSON.stringify(prefix)
      }: ${errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`}`,
      { hint: "unmount them by hand (or set unmountFlags in a ResetConfiguration) and retry" },
    );
  }
  return dir;
}

async function removeContainers(data: ResetData): Promise<void> {
  if (data.dryRun) {
    data.out.info("[dryrun] Would remove Kubernetes-managed containers");
    return;
  }
  data.out.log?.(1, "cleanup_node.ts", "[reset] Removing Kubernetes-managed containers");
  try {
    const rt = data.node.machine.containerRuntime(data.criSocket);
    await rt.connect();
    await rt.removePods(await rt.listKubePods());
  } catch (e) {
    data.out.warn(`[reset] Failed to remove containers: ${errorMessage(e)}`);
  }
}

async function resetConfigDir(data: ResetData, dirs: readonly string[]): Promise<void> {
  const shown = `[${dirs.join(" ")}]`;
  if (data.dryRun) {
    data.out.info(`[dryrun] Would delete contents of directories: ${shown}`);
  } else {
    data.out.info(`[reset] Deleting contents of directories: ${shown}`);
    for (const dir of dirs) {
      const problem = cleanupDirProblem(dir);
      try {
        if (problem !== undefined) throw new KubeadmError(problem);
        await data.node.cleanDir(dir);
      } catch (e) {
        data.out.warn(
          `[reset] Failed to delete contents of ${JSON.stringify(dir)} directory: ${
            errorMessage(e)
          }`,
        );
      }
    }
  }
  const files = `[${RESET_KUBECONFIG_FILES.join(" ")}]`;
  if (data.dryRun) {
    data.out.info(`[dryrun] Would delete files: ${files}`);
    return;
  }
  data.out.info(`[reset] Deleting files: ${files}`);
  for (const file of RESET_KUBECONFIG_FILES) {
    try {
      await data.node.removeFile(file);
    } catch (e) {
      data.out.warn(`[reset] Failed to remove file: ${JSON.stringify(file)} [${errorMessage(e)}]`);
    }
  }
}

/**
 * Empties the etcd data directory once more when `remove-etcd-member` emptied it and the etcd
 * container, running until {@link removeContainers}, wrote to it since (etcd removed from its
 * cluster exits, and the kubelet restarts it on the empty directory): its new files would fail
 * the next init's or join's preflight (`DirAvailable--var-lib-etcd`). Upstream leaves them.
 */
async function emptyEtcdDataDirAgain(data: ResetData): Promise<void> {
  const dir = data.etcdDataDirEmptied;
  if (dir === undefined || data.dryRun) return;
  const entries = await data.node.machine.files.list(dir);
  if (entries !== undefined && entries.length > 0) await cleanDataDir(data, dir);
}

/** Runs the phase. */
export async function runCleanupNode(data: ResetData): Promise<void> {
  const dirs = [MANIFESTS_DIR];
  await removeCertificateAutoRenewal(data);
  await stopKubelet(data);
  const kubeletDir = await unmountKubeletDir(data);
  if (kubeletDir !== undefined) dirs.push(kubeletDir);
  await removeContainers(data);
  await emptyEtcdDataDirAgain(data);
  if (data.certificatesDir !== certificatesDirOrDefault()) {
    data.out.warn(
      `[reset] WARNING: Cleaning a non-default certificates directory: ${
        JSON.stringify(data.certificatesDir)
      }`,
    );
  }
  dirs.push(data.certificatesDir);
  if (data.cleanupTmpDir) dirs.push(KUBEADM_TMP_DIR);
  await resetConfigDir(data, dirs);
}

/** `reset phase cleanup-node`. */
export const cleanupNodePhase: Phase<ResetData> = {
  name: "cleanup-node",
  aliases: ["cleanupnode"],
  short: "Run cleanup node.",
  run: runCleanupNode,
  inputs: ["certificatesDir", "criSocket", "cleanupTmpDir", "dryRun"],
};
