/**
 * The node as the Deno runtime reaches it (the {@link NodeHost} every workflow acts on): the
 * machine ({@link DenoMachine}), health probes, the etcd gateway client, and kubeadm's file
 * tree under `--rootfs` (creating directories, removing files, emptying directories,
 * unmounting).
 *
 * Node paths resolve inside the root as `chroot` would (`runtime/fs/rooted_path.ts`): a
 * symlink never leads out of it. Removal is defensive: a directory is emptied entry by entry
 * with `lstat`, so a symlink inside it is removed as a link and never followed; a directory on
 * another file system (a mount point left behind) is not entered; a directory that is itself a
 * symlink is followed (inside the root) only when its target is itself safe to empty.
 *
 * @module
 */
import type { ContainerRuntime } from "../../core/host/container_runtime.ts";
import type { EtcdClient } from "../../core/host/etcd.ts";
import type { HealthProbe, TlsClientMaterial } from "../../core/host/http.ts";
import type { NodeHost } from "../../core/host/node.ts";
import type { InitSystem } from "../../core/host/services.ts";
import { errorMessage } from "../../core/errors.ts";
import { DenoMachine, unescapeMountPath } from "./machine.ts";
import { deferred, type MethodNames } from "./deferred.ts";
import type { RootedNodeFiles } from "./node_files.ts";
import { nodePathOf, normalizeNodePath, resolveInRoot } from "../fs/rooted_path.ts";

/** The etcd client's methods (the gateway client loads on the first call). */
const ETCD_CLIENT_METHODS: MethodNames<Omit<EtcdClient, "endpoints">> = {
  listMembers: true,
  addMember: true,
  promoteMember: true,
  removeMember: true,
  status: true,
};

/** Options of {@link DenoNodeHost}. */
export interface DenoNodeHostOptions {
  /** `--rootfs` (default `/`). */
  root?: string;
  /** Replaces init-system detection (tests: never touch the machine's services). */
  initSystem?: () => Promise<InitSystem | undefined>;
  /** Replaces the CRI runtime factory. */
  containerRuntime?: (socket: string) => ContainerRuntime;
  /** The mount table to read (default `/proc/mounts`). */
  mountsFile?: string;
  /**
   * etcd requests: per-request timeout (default upstream's 2s) and how long transient
   * failures are retried (default 0: one attempt; reset uses upstream's 2m).
   */
  etcd?: { timeoutMs?: number; retryForMs?: number };
}

const UMOUNT_ARGS: Readonly<Record<string, string | undefined>> = {
  MNT_FORCE: "--force",
  MNT_DETACH: "--lazy",
  UMOUNT_NOFOLLOW: "--no-canonicalize",
  MNT_EXPIRE: undefined,
};

function notFound(e: unknown): boolean {
  return e instanceof Deno.errors.NotFound;
}

/** The node, rooted at `--rootfs`. */
export class DenoNodeHost implements NodeHost {
  readonly machine: DenoMachine;
  readonly health: HealthProbe;
  readonly foreignRoot?: string;
  readonly #opts: DenoNodeHostOptions;
  #rootReal?: string;

  constructor(opts: DenoNodeHostOptions = {}) {
    this.#opts = opts;
    const root = opts.root ?? "/";
    this.machine = new DenoMachine({
      root,
      initSystem: opts.initSystem,
      containerRuntime: opts.containerRuntime,
    });
    if (root.replace(/\/+$/, "") !== "") this.foreignRoot = root;
    this.health = lazyHealthProbe();
  }

  /** kubeadm's files under the root (read side). */
  get files(): RootedNodeFiles {
    return this.machine.files;
  }

  /** The host path of a node path (symlinks resolved inside the root). */
  resolve(path: string): string {
    return this.files.resolve(path);
  }

  async #root(): Promise<string> {
    this.#rootReal ??= await Deno.realPath(this.files.root);
    return this.#rootReal;
  }

  etcdClient(endpoints: readonly string[], tls: TlsClientMaterial): EtcdClient {
    const { timeoutMs, retryForMs } = this.#opts.etcd ?? {};
    return deferred(
      () =>
        import("../etcd/client.ts").then((m) =>
          new m.EtcdGatewayClient(endpoints, tls, timeoutMs, retryForMs)
        ),
      ETCD_CLIENT_METHODS,
      { endpoints: [...endpoints] },
    );
  }

  /** Creates a directory and its missing parents inside the root (mode `mode` for new ones). */
  ensureDir(path: string, mode: number): Promise<void> {
    return this.files.ensureDir(path, mode);
  }

  /** The node path of a mount table entry (a real path), or `undefined` outside the root. */
  async #toNode(hostPath: string): Promise<string | undefined> {
    const root = await this.#root();
    if (root === "/") return hostPath;
    if (hostPath === root) return "/";
    return hostPath.startsWith(`${root}/`) ? hostPath.slice(root.length) : undefined;
  }

  async realDir(path: string): Promise<string> {
    const host = await resolveInRoot(this.files.root, path);
    try {
      await Deno.stat(host);
    } catch (e) {
      if (notFound(e)) throw new Error(`lstat ${path}: no such file or directory`);
      throw e;
    }
    return nodePathOf(this.files.root, host);
  }

  async mountPoints(): Promise<string[]> {
    const text = await Deno.readTextFile(this.#opts.mountsFile ?? "/proc/mounts");
    const out: string[] = [];
    for (const line of text.split("\n")) {
      const fields = line.split(" ");
      if (fields.length < 2) continue;
      const node = await this.#toNode(unescapeMountPath(fields[1]));
      if (node !== undefined) out.push(node);
    }
    return out;
  }

  async unmount(path: string, flags: readonly string[]): Promise<"unmounted" | "not-mounted"> {
    const args: string[] = [];
    for (const f of flags) {
      const arg = UMOUNT_ARGS[f];
      if (arg === undefined) throw new Error(`unmount flag ${f} is not supported by kubeadm-ts`);
      args.push(arg);
    }
    const { runCommand } = await import("./exec.ts");
    const r = await runCommand("umount", [...args, this.resolve(path)]);
    if (r.code === 0) return "unmounted";
    const text = (r.stderr || r.stdout).trim();
    // umount(8) reports the kernel's EINVAL for a path that is no longer mounted this way.
    if (/\bnot mounted\b/.test(text)) return "not-mounted";
    throw new Error(text || `exit status ${r.code}`);
  }

  /**
   * The host directory to empty for a node path. Symlinks anywhere on the path are resolved;
   * the result must stay inside the root, and when it differs from the plain mapping it must
   * itself be safe to empty.
   */
  async #dirToClean(path: string): Promise<{ dir: string; dev: number } | undefined> {
    const host = await resolveInRoot(this.files.root, path);
    let st: Deno.FileInfo;
    try {
      st = await Deno.stat(host);
    } catch (e) {
      if (notFound(e)) return undefined; // missing (or a dangling link): nothing to empty
      throw e;
    }
    const node = nodePathOf(this.files.root, host);
    if (node !== normalizeNodePath(path)) {
      const { cleanupDirProblem } = await import("../../core/phases/reset/safety.ts");
      const problem = cleanupDirProblem(node);
      if (problem !== undefined) throw new Error(`${path} resolves to ${node}: ${problem}`);
    }
    if (!st.isDirectory) throw new Error(`${path} is not a directory`);
    return { dir: host, dev: st.dev };
  }

  async #removeTree(path: string, dev: number, errors: string[]): Promise<void> {
    let st: Deno.FileInfo;
    try {
      st = await Deno.lstat(path);
    } catch (e) {
      if (!notFound(e)) errors.push(`${path}: ${errorMessage(e)}`);
      return;
    }
    if (!st.isDirectory) {
      // Files and symlinks (whatever they point to) are unlinked, never followed.
      try {
        await Deno.remove(path);
      } catch (e) {
        if (!notFound(e)) errors.push(`${path}: ${errorMessage(e)}`);
      }
      return;
    }
    if (st.dev !== dev) {
      errors.push(`${path} is on another file system (still mounted?); not removing it`);
      return;
    }
    const names: string[] = [];
    for await (const entry of Deno.readDir(path)) names.push(entry.name);
    for (const name of names) await this.#removeTree(`${path}/${name}`, dev, errors);
    try {
      await Deno.remove(path);
    } catch (e) {
      if (!notFound(e)) errors.push(`${path}: ${errorMessage(e)}`);
    }
  }

  async cleanDir(path: string): Promise<void> {
    const target = await this.#dirToClean(path);
    if (!target) return;
    const errors: string[] = [];
    const names: string[] = [];
    for await (const entry of Deno.readDir(target.dir)) names.push(entry.name);
    for (const name of names) await this.#removeTree(`${target.dir}/${name}`, target.dev, errors);
    if (errors.length > 0) throw new Error(errors.join("; "));
  }

  async moveFile(from: string, to: string): Promise<void> {
    const src = await resolveInRoot(this.files.root, from, { followFinal: false });
    const dst = await resolveInRoot(this.files.root, to, { followFinal: false });
    try {
      await Deno.rename(src, dst);
    } catch (e) {
      // Another file system: copy, then remove the source (upstream's MoveFile fallback).
      if (!(e instanceof Error) || !/cross-device|EXDEV/i.test(e.message)) throw e;
      await copyHostTree(src, dst);
      await Deno.remove(src, { recursive: true });
    }
  }

  async copyTree(from: string, to: string): Promise<void> {
    const src = await resolveInRoot(this.files.root, from, { followFinal: false });
    const dst = await resolveInRoot(this.files.root, to, { followFinal: false });
    await copyHostTree(src, dst);
  }

  async removeFile(path: string): Promise<void> {
    // The last component is not followed: a symlinked file goes as a link.
    const host = await resolveInRoot(this.files.root, path, { followFinal: false });
    let st: Deno.FileInfo;
    try {
      st = await Deno.lstat(host);
    } catch (e) {
      if (notFound(e)) return;
      throw e;
    }
    const errors: string[] = [];
    await this.#removeTree(host, st.dev, errors);
    if (errors.length > 0) throw new Error(errors.join("; "));
  }
}

/**
 * Copies a host file or directory tree: files with their modes (through a temp file renamed
 * into place), directories created with the source's mode, symlinks recreated as links (never
 * followed).
 */
async function copyHostTree(src: string, dst: string): Promise<void> {
  const st = await Deno.lstat(src);
  if (st.isSymlink) {
    await Deno.remove(dst).catch(() => {});
    await Deno.symlink(await Deno.readLink(src), dst);
    return;
  }
  if (st.isDirectory) {
    await Deno.mkdir(dst, { recursive: true, mode: (st.mode ?? 0o700) & 0o7777 });
    for await (const entry of Deno.readDir(src)) {
      await copyHostTree(`${src}/${entry.name}`, `${dst}/${entry.name}`);
    }
    return;
  }
  const tmp = `${dst}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.copyFile(src, tmp);
    await Deno.chmod(tmp, (st.mode ?? 0o600) & 0o7777);
    await Deno.rename(tmp, dst);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}

// The network stack (node:https for self-signed health endpoints) costs tens of milliseconds
// to load: only runs that probe health pay for it.
function lazyHealthProbe(): HealthProbe {
  return deferred(
    () => import("../kube/health.ts").then((m) => m.createHealthProbe()),
    { get: true },
    {},
  );
}
