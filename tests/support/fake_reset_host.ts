/**
 * A scriptable {@link ResetHost} over {@link FakeNodeFiles}, recording what reset did, and a
 * fake etcd cluster.
 *
 * @module
 */
import { type EtcdClient, type EtcdMember, EtcdMemberNotFound } from "../../core/host/etcd.ts";
import { type ResetHost } from "../../core/phases/reset/host.ts";
import type { ContainerRuntime } from "../../core/host/containers.ts";
import type { InitSystem } from "../../core/host/services.ts";
import type { TlsClientMaterial } from "../../core/host/http.ts";
import { FakeContainerRuntime, FakeInitSystem, FakeNodeFiles } from "./fake_machine.ts";

/** An in-memory etcd cluster. */
export class FakeEtcd {
  members: EtcdMember[] = [];
  /** Error thrown by every call, if set. */
  failure?: Error;
  /** Clients created: endpoints and TLS material. */
  readonly clients: { endpoints: readonly string[]; tls: TlsClientMaterial }[] = [];
  /** IDs removed. */
  readonly removed: string[] = [];

  client(endpoints: readonly string[], tls: TlsClientMaterial): EtcdClient {
    this.clients.push({ endpoints, tls });
    return {
      endpoints,
      listMembers: () =>
        this.failure ? Promise.reject(this.failure) : Promise.resolve([...this.members]),
      removeMember: (id: string) => {
        if (this.failure) return Promise.reject(this.failure);
        if (!this.members.some((m) => m.id === id)) {
          return Promise.reject(new EtcdMemberNotFound(id));
        }
        this.removed.push(id);
        this.members = this.members.filter((m) => m.id !== id);
        return Promise.resolve([...this.members]);
      },
      addMember: () => Promise.reject(new Error("reset adds no member")),
      promoteMember: () => Promise.reject(new Error("reset promotes no member")),
      status: () => Promise.resolve(),
    };
  }
}

/** The fake host. */
export class FakeResetHost implements ResetHost {
  readonly files = new FakeNodeFiles();
  /** Node path → what it resolves to (default: itself when it exists). */
  readonly links = new Map<string, string>();
  /** Mount points (node paths), in mount order. */
  mounts: string[] = [];
  /** Mount points whose unmount fails → error text. */
  readonly unmountErrors = new Map<string, string>();
  /** Unmount calls. */
  readonly unmounted: { path: string; flags: readonly string[] }[] = [];
  /** Directories emptied, in order. */
  readonly cleaned: string[] = [];
  /** Directories whose emptying fails → error text. */
  readonly cleanErrors = new Map<string, string>();
  /** Files removed, in order. */
  readonly removedFiles: string[] = [];
  init: FakeInitSystem | undefined = new FakeInitSystem();
  readonly runtime = new FakeContainerRuntime("unix:///var/run/containerd/containerd.sock");
  readonly etcd = new FakeEtcd();
  /** Every mutating call, in order (`unmount /x`, `clean /d`, `remove /f`). */
  readonly actions: string[] = [];

  async realDir(path: string): Promise<string> {
    const target = this.links.get(path) ?? path;
    if (!(await this.files.exists(target))) {
      throw new Error(`lstat ${path}: no such file or directory`);
    }
    return target;
  }

  mountPoints(): Promise<string[]> {
    return Promise.resolve([...this.mounts]);
  }

  unmount(path: string, flags: readonly string[]): Promise<void> {
    this.unmounted.push({ path, flags });
    this.actions.push(`unmount ${path}`);
    const err = this.unmountErrors.get(path);
    if (err) return Promise.reject(new Error(err));
    this.mounts = this.mounts.filter((m) => m !== path);
    return Promise.resolve();
  }

  cleanDir(path: string): Promise<void> {
    this.cleaned.push(path);
    this.actions.push(`clean ${path}`);
    const err = this.cleanErrors.get(path);
    if (err) return Promise.reject(new Error(err));
    const prefix = `${path}/`;
    for (const p of [...this.files.files.keys()]) {
      if (p.startsWith(prefix)) this.files.files.delete(p);
    }
    for (const d of [...this.files.dirs]) if (d.startsWith(prefix)) this.files.dirs.delete(d);
    return Promise.resolve();
  }

  removeFile(path: string): Promise<void> {
    this.removedFiles.push(path);
    this.actions.push(`remove ${path}`);
    this.files.files.delete(path);
    return Promise.resolve();
  }

  initSystem(): Promise<InitSystem | undefined> {
    return Promise.resolve(this.init);
  }

  containerRuntime(_socket: string): ContainerRuntime {
    return this.runtime;
  }

  etcdClient(endpoints: readonly string[], tls: TlsClientMaterial): EtcdClient {
    return this.etcd.client(endpoints, tls);
  }
}
