/**
 * A scriptable {@link NodeHost} over a {@link FakeMachine}, recording what the workflows did to
 * the node (directories emptied, files removed, unmounts), with a fake etcd cluster and a
 * health probe that answers 200 unless told otherwise.
 *
 * @module
 */
import { type EtcdClient, type EtcdMember, EtcdMemberNotFound } from "../../core/ports/etcd.ts";
import type { HealthProbe, TlsClientMaterial } from "../../core/ports/http.ts";
import type { NodeHost } from "../../core/ports/node.ts";
import {
  FakeContainerRuntime,
  type FakeInitSystem,
  FakeMachine,
  type FakeNodeFiles,
} from "./fake_machine.ts";

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

/** The fake node. */
export class FakeNodeHost implements NodeHost {
  readonly machine: FakeMachine;
  /** Answers every probe with 200 (replace to script health endpoints). */
  health: HealthProbe = { get: () => Promise.resolve({ status: 200 }) };
  foreignRoot?: string;
  /** Node path → what it resolves to (default: itself when it exists). */
  readonly links = new Map<string, string>();
  /** Mount points (node paths), in mount order. */
  mounts: string[] = [];
  /** Mount points whose unmount fails → error text. */
  readonly unmountErrors = new Map<string, string>();
  /** Mount points already gone (a duplicate entry unmounted through its shared peer). */
  readonly notMounted = new Set<string>();
  /** Unmount calls. */
  readonly unmounted: { path: string; flags: readonly string[] }[] = [];
  /** Directories emptied, in order. */
  readonly cleaned: string[] = [];
  /** Directories whose emptying fails → error text. */
  readonly cleanErrors = new Map<string, string>();
  /** Files removed, in order. */
  readonly removedFiles: string[] = [];
  /** Directories created, in order. */
  readonly createdDirs: string[] = [];
  /** The mode each {@link ensureDir} asked for. */
  readonly dirModes = new Map<string, number>();
  /** The container runtime behind every socket. */
  readonly runtime = new FakeContainerRuntime("unix:///var/run/containerd/containerd.sock");
  readonly etcd = new FakeEtcd();
  /** Every mutating call, in order (`unmount /x`, `clean /d`, `remove /f`, `mkdir /d`). */
  readonly actions: string[] = [];

  constructor(machine: FakeMachine = new FakeMachine()) {
    this.machine = machine;
    this.machine.containerRuntime = () => this.runtime;
  }

  /** kubeadm's files on the node (the machine's). */
  get files(): FakeNodeFiles {
    return this.machine.files;
  }

  /** The machine's service manager (`undefined`: none). */
  get init(): FakeInitSystem | undefined {
    return this.machine.init;
  }
  set init(value: FakeInitSystem | undefined) {
    this.machine.init = value;
  }

  etcdClient(endpoints: readonly string[], tls: TlsClientMaterial): EtcdClient {
    return this.etcd.client(endpoints, tls);
  }

  ensureDir(path: string, mode: number): Promise<void> {
    this.createdDirs.push(path);
    this.dirModes.set(path, mode);
    this.actions.push(`mkdir ${path}`);
    this.files.mkdir(path);
    return Promise.resolve();
  }

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

  unmount(path: string, flags: readonly string[]): Promise<"unmounted" | "not-mounted"> {
    this.unmounted.push({ path, flags });
    this.actions.push(`unmount ${path}`);
    const err = this.unmountErrors.get(path);
    if (err) return Promise.reject(new Error(err));
    if (this.notMounted.has(path)) return Promise.resolve("not-mounted");
    this.mounts = this.mounts.filter((m) => m !== path);
    return Promise.resolve("unmounted");
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
    const prefix = `${path}/`;
    for (const p of [...this.files.files.keys()]) {
      if (p.startsWith(prefix)) this.files.files.delete(p);
    }
    for (const d of [...this.files.dirs]) {
      if (d === path || d.startsWith(prefix)) this.files.dirs.delete(d);
    }
    return Promise.resolve();
  }

  /** Failures of {@link moveFile} by source path → error text. */
  readonly moveErrors = new Map<string, string>();

  /** Symlinks made by {@link symlink}: path → target. */
  readonly symlinks = new Map<string, string>();

  symlink(target: string, path: string): Promise<void> {
    this.actions.push(`link ${path} ${target}`);
    this.symlinks.set(path, target);
    return Promise.resolve();
  }

  moveFile(from: string, to: string): Promise<void> {
    this.actions.push(`move ${from} ${to}`);
    const err = this.moveErrors.get(from);
    if (err) return Promise.reject(new Error(err));
    const data = this.files.files.get(from);
    if (data === undefined) {
      return Promise.reject(new Error(`rename ${from} ${to}: no such file or directory`));
    }
    this.files.files.delete(from);
    this.files.files.set(to, data);
    return Promise.resolve();
  }

  copyTree(from: string, to: string): Promise<void> {
    this.actions.push(`copy ${from} ${to}`);
    const single = this.files.files.get(from);
    if (single !== undefined) {
      this.files.files.set(to, single.slice());
      return Promise.resolve();
    }
    const prefix = `${from}/`;
    const found = [...this.files.files].filter(([p]) => p.startsWith(prefix));
    if (found.length === 0 && !this.files.dirs.has(from)) {
      return Promise.reject(new Error(`cp: cannot stat '${from}': No such file or directory`));
    }
    this.files.dirs.add(to);
    for (const [p, data] of found) {
      this.files.files.set(`${to}/${p.slice(prefix.length)}`, data.slice());
    }
    return Promise.resolve();
  }
}
