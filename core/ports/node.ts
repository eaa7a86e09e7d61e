/**
 * The node a workflow acts on: one set of ports for `init`, `join` and `reset` (and later
 * `upgrade`). Files kubeadm plans to write go through the workflow's {@link FileSystem} (a
 * recording overlay in dry-run); everything else the node offers is here.
 *
 * Paths are node paths; the runtime resolves them under `--rootfs`, never follows a symlink
 * out of a directory it cleans, and refuses to resolve anything outside the root. A test
 * supplies a fake; the Deno CLI supplies `adapters/deno/node.ts`.
 *
 * @module
 */
import type { EtcdClient } from "./etcd.ts";
import type { HealthProbe, TlsClientMaterial } from "./http.ts";
import type { Machine } from "./machine.ts";

/** The node's ports. */
export interface NodeHost {
  /** The machine: facts, kubeadm's files (read), the service manager, the container runtime. */
  readonly machine: Machine;
  /** Health endpoints of the kubelet and the control-plane components. */
  readonly health: HealthProbe;
  /** An etcd client for endpoints and client TLS material (a join adds its member, reset removes it). */
  etcdClient(endpoints: readonly string[], tls: TlsClientMaterial): EtcdClient;
  /**
   * The root when this node is not the running machine (a `--rootfs` tree prepared for
   * another machine): kubeadm then leaves the running machine's kubelet service alone.
   */
  readonly foreignRoot?: string;
  /** Creates a directory (and parents) with the mode. */
  ensureDir(path: string, mode: number): Promise<void>;
  /** Removes a file (or a symlink, or a whole directory tree); missing is not an error. */
  removeFile(path: string): Promise<void>;
  /** Renames a file, atomically replacing the destination (`upgrade` swaps manifests). */
  moveFile(from: string, to: string): Promise<void>;
  /**
   * Points the symlink `path` at `target` (a name in the same directory),
   * atomically replacing what is there (the kubelet's `kubelet-client-current.pem`).
   */
  symlink(target: string, path: string): Promise<void>;
  /**
   * Copies a file or a directory tree, modes kept, symlinks inside it copied as links (a source
   * or destination that is itself a link is followed inside the root); into an existing
   * directory the tree is merged (`upgrade` backs up manifests and etcd's data).
   */
  copyTree(from: string, to: string): Promise<void>;
  /**
   * Removes everything inside a directory but not the directory itself; a missing directory is
   * not an error. Never follows symlinks inside it and never crosses into another file system.
   */
  cleanDir(path: string): Promise<void>;
  /**
   * The directory a node path really is after resolving symlinks (Go's `filepath.EvalSymlinks`),
   * as a node path. Rejects when it does not exist or resolves outside the root.
   */
  realDir(path: string): Promise<string>;
  /** Mount points currently mounted at or under the root, as node paths, in mount order. */
  mountPoints(): Promise<string[]>;
  /**
   * Unmounts one mount point with upstream's unmount flags (`MNT_FORCE`, `MNT_DETACH`, ...).
   * Resolves to `"not-mounted"` when the path is no longer a mount point (the kernel's EINVAL:
   * a duplicate entry already unmounted through its shared peer); rejects on other failures.
   */
  unmount(path: string, flags: readonly string[]): Promise<"unmounted" | "not-mounted">;
}
