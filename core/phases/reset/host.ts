/**
 * The ports `reset` acts through: removing kubeadm's files, unmounting, stopping the kubelet,
 * removing containers, talking to etcd.
 *
 * Paths are node paths; the runtime resolves them under `--rootfs`, never follows a symlink
 * out of a directory it cleans, and refuses to resolve anything outside the root.
 *
 * @module
 */
import type { EtcdClient } from "../../host/etcd.ts";
import type { ContainerRuntime } from "../../host/containers.ts";
import type { InitSystem } from "../../host/services.ts";
import type { NodeFiles } from "../../host/ports.ts";
import type { TlsClientMaterial } from "../../host/http.ts";

/** Everything `reset` changes the node through. */
export interface ResetHost {
  /** kubeadm's files (read side). */
  readonly files: NodeFiles;
  /**
   * The directory a node path really is after resolving symlinks (Go's `filepath.EvalSymlinks`),
   * as a node path. Rejects when it does not exist or resolves outside the root.
   */
  realDir(path: string): Promise<string>;
  /** Mount points currently mounted at or under the root, as node paths, in mount order. */
  mountPoints(): Promise<string[]>;
  /** Unmounts one mount point with upstream's unmount flags (`MNT_FORCE`, `MNT_DETACH`, ...). */
  unmount(path: string, flags: readonly string[]): Promise<void>;
  /**
   * Removes everything inside a directory but not the directory itself; a missing directory is
   * not an error. Never follows symlinks inside it and never crosses into another file system.
   */
  cleanDir(path: string): Promise<void>;
  /** Removes a file (or a symlink, or a whole directory tree); missing is not an error. */
  removeFile(path: string): Promise<void>;
  /** The service manager, or `undefined` when none is supported. */
  initSystem(): Promise<InitSystem | undefined>;
  /** The container runtime behind a CRI endpoint. */
  containerRuntime(socket: string): ContainerRuntime;
  /** An etcd client for the given endpoints and client TLS material. */
  etcdClient(endpoints: readonly string[], tls: TlsClientMaterial): EtcdClient;
}
