/**
 * The node of a plan: there is none. A plan's workflows run in dry-run mode on the recording
 * file system and the offline cluster and never reach the machine; a step that would is a
 * clear error, and preflight (which inspects the machine) is skipped.
 *
 * @module
 */
import { KubeadmError } from "../../core/errors.ts";
import type { NodeHost } from "../../core/ports/node.ts";

function absent(what: string): Promise<never> {
  return Promise.reject(
    new KubeadmError(`a plan has no node to ${what}`, {
      hint: "plans only write files; run kubeadm on the node for this step",
    }),
  );
}

/**
 * The preflight phase of a plan's workflow: a plan has no machine to check and skips the phase,
 * so kubeadm's checks are not part of it (nor of the library bundle).
 */
export function planPreflight(): Promise<never> {
  return Promise.reject(
    new KubeadmError("a plan has no machine to inspect", {
      hint: "plans skip preflight; run kubeadm on the node for the checks",
    }),
  );
}

/**
 * The node of a plan: there is none. The workflows run in dry-run mode and never reach it; a
 * step that would is a clear error.
 */
export const planNode: NodeHost = {
  get machine(): never {
    throw new KubeadmError("a plan has no machine to inspect", {
      hint: "plans skip preflight; run kubeadm on the node for the checks",
    });
  },
  health: { get: () => absent("probe health endpoints on") },
  etcdClient() {
    throw new KubeadmError("a plan has no node to reach etcd from");
  },
  ensureDir: () => absent("create directories on"),
  removeFile: () => absent("remove files from"),
  moveFile: () => absent("move files on"),
  symlink: () => absent("link files on"),
  copyTree: () => absent("copy files on"),
  cleanDir: () => absent("clean directories on"),
  realDir: () => absent("resolve paths on"),
  mountPoints: () => absent("list mounts of"),
  unmount: () => absent("unmount"),
};
