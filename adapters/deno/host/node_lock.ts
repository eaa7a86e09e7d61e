/**
 * This node's restart lock (`RestartContext.lockNode` in `core/controlplane/restart.ts`): an
 * exclusive `flock` on `<root>/run/kubeadm-restart.lock`, tried once a second, so that two
 * kubeadm processes on one node (a renewal timer firing during a `rotate-ca` phase) do not
 * restart its components together; the restart Lease names the node, so it cannot tell them
 * apart. The kernel drops the lock of a process that dies; the empty file stays, on `/run` (a
 * tmpfs: gone at boot).
 *
 * @module
 */
import { KubeadmError } from "../../../core/errors.ts";
import { ensureDirInRootSync, resolveInRootSync } from "../fs/rooted_path.ts";

/** The lock file, under the node's root. */
export const NODE_RESTART_LOCK = "/run/kubeadm-restart.lock";

/** How often a waiting process tries the lock again. */
const RETRY_MS = 1_000;

/**
 * The lock under `root` (`/`, or `--rootfs`): a function taking it, waiting up to `waitMs`
 * while another process holds it (`onWait` called once), that returns its release.
 */
export function nodeRestartLock(
  root: string,
  path = NODE_RESTART_LOCK,
): (waitMs: number, onWait: () => void) => Promise<() => Promise<void>> {
  return async (waitMs, onWait) => {
    // Inside the root, symlinks included (an absolute link under `--rootfs` starts at it).
    ensureDirInRootSync(root, path.slice(0, path.lastIndexOf("/")) || "/", 0o755);
    const full = resolveInRootSync(root, path);
    const file = await Deno.open(full, { read: true, write: true, create: true, mode: 0o600 });
    try {
      const deadline = Date.now() + waitMs;
      let told = false;
      while (!(await file.tryLock(true))) {
        if (Date.now() >= deadline) {
          throw new KubeadmError(
            `another kubeadm process on this node has been restarting its control-plane components for over ${
              Math.round(waitMs / 1000)
            } s (it holds ${full})`,
            {
              field: full,
              hint: "wait for it to finish ('ps -ef | grep kubeadm'), then run again",
            },
          );
        }
        if (!told) {
          told = true;
          onWait();
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    } catch (e) {
      file.close();
      throw e;
    }
    return () => {
      file.close(); // closing the only descriptor drops the lock
      return Promise.resolve();
    };
  };
}
