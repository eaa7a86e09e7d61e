/**
 * The node as the Deno runtime reaches it (the {@link NodeHost} every workflow acts on): the
 * machine ({@link DenoMachine}), health probes, the etcd gateway client, and kubeadm's file
 * tree under `--rootfs` (creating directories, removing files, emptying directories,
 * unmounting).
 *
 * Node paths resolve inside the root as `chroot` would (`adapters/deno/fs/rooted_path.ts`): a
 * symlink never leads out of it. Removal never walks a tree path by path (checking a
 * directory, then listing it and removing `dir/name` by path could be raced: a directory
 * swapped for a symlink in between leads the removal out of the root). A tree is removed by
 * the runtime's recursive removal (Rust's `remove_dir_all`: `openat`/`unlinkat` relative to
 * directory descriptors opened with `O_NOFOLLOW`, so a swapped-in symlink is unlinked, never
 * followed). That removal crosses mount points, so the mount table is read first: an entry
 * with a mount point at or below it (a volume left mounted under `/var/lib/kubelet`, a bind
 * mount of the same file system included) is not removed, whole: reset unmounts what is
 * under the kubelet directory first and stops when it cannot, so this is a backstop. A
 * directory to empty that is itself a symlink is followed (inside the root) only when its
 * target is itself safe to empty. What stays open: the directory being emptied and its parents
 * are still found by path, so whoever can swap one of those (write access above it, e.g. to
 * `<root>/var/lib`) can still lead a removal elsewhere; what a pod or a container can write
 * below them cannot.
 *
 * @module
 */
import type { ContainerRuntime } from "../../core/ports/container_runtime.ts";
import type { EtcdClient } from "../../core/ports/etcd.ts";
import type { HealthProbe, TlsClientMaterial } from "../../core/ports/http.ts";
import type { NodeHost } from "../../core/ports/node.ts";
import type { InitSystem } from "../../core/ports/services.ts";
import { errorMessage } from "../../core/errors.ts";
import { DenoMachine, unescapeMountPath } from "./machine.ts";
import { deferred, type MethodNames } from "./host/deferred.ts";
import type { RootedNodeFiles } from "./files.ts";
import {
  ensureDirInRootSync,
  nodePathOf,
  normalizeNodePath,
  resolveInRoot,
} from "./fs/rooted_path.ts";
import { openRegularFileSync } from "./fs/regular_file.ts";
import { faultPoint } from "./fault_injection.ts";

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
  /** The mount table to read (default `/proc/mounts`); removals consult it too. */
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

/** Why an entry holding mount points (a volume left mounted) is kept. */
function stillMounted(mounts: readonly string[], entry: string): string {
  const are = mounts.length === 1 ? "is" : "are";
  const kept = mounts.length === 1 && mounts[0] === entry ? "it" : entry;
  return `${
    mounts.join(", ")
  } ${are} on another file system (still mounted?); not removing ${kept}`;
}

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
        import("./etcd.ts").then((m) =>
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

  /** The mount points of the mount table, as host paths (the kernel's, unescaped). */
  async #hostMountPoints(): Promise<string[]> {
    const text = await Deno.readTextFile(this.#opts.mountsFile ?? "/proc/mounts");
    const out: string[] = [];
    for (const line of text.split("\n")) {
      const fields = line.split(" ");
      if (fields.length >= 2) out.push(unescapeMountPath(fields[1]));
    }
    return out;
  }

  async mountPoints(): Promise<string[]> {
    const out: string[] = [];
    for (const mount of await this.#hostMountPoints()) {
      const node = await this.#toNode(mount);
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
    const { runCommand } = await import("./host/exec.ts");
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
  async #dirToClean(path: string): Promise<string | undefined> {
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
    return host;
  }

  /**
   * Removes the tree at host path `entry` in directory `dir` (resolved inside the root, no
   * symlink left in it), without following links and without touching a mount point:
   * `mounts` are the mount table's, `realDir` the real path of `dir` to compare them with.
   * Problems are collected in `errors`.
   */
  async #removeTree(
    dir: string,
    realDir: string,
    name: string,
    mounts: readonly string[],
    errors: string[],
  ): Promise<void> {
    const entry = `${dir}/${name}`;
    const real = `${realDir === "/" ? "" : realDir}/${name}`;
    const below = mounts.filter((m) => m === real || m.startsWith(`${real}/`));
    if (below.length > 0) {
      errors.push(stillMounted(below, real));
      return;
    }
    try {
      await Deno.remove(entry, { recursive: true });
    } catch (e) {
      if (!notFound(e)) errors.push(`${entry}: ${errorMessage(e)}`);
    }
  }

  async cleanDir(path: string): Promise<void> {
    const dir = await this.#dirToClean(path);
    if (dir === undefined) return;
    const realDir = await Deno.realPath(dir);
    const mounts = await this.#hostMountPoints();
    const errors: string[] = [];
    const names: string[] = [];
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    for (const name of names) await this.#removeTree(dir, realDir, name, mounts, errors);
    if (errors.length > 0) throw new Error(errors.join("; "));
  }

  /**
   * Renames as `rename(2)` does (upstream's `os.Rename`): a symlink at the destination is
   * replaced, never written through. Across file systems the source is copied beside the
   * destination and renamed over it the same way, then removed (upstream's fallback).
   */
  async moveFile(from: string, to: string): Promise<void> {
    const src = await resolveInRoot(this.files.root, from, { followFinal: false });
    const dst = await resolveInRoot(this.files.root, to, { followFinal: false });
    try {
      await Deno.rename(src, dst);
    } catch (e) {
      if (!(e instanceof Error) || !/cross-device|EXDEV/i.test(e.message)) throw e;
      await copyHostTree(src, dst);
      await this.removeFile(from);
    }
    faultPoint(`moved:${to}`);
  }

  async symlink(target: string, path: string): Promise<void> {
    const host = await resolveInRoot(this.files.root, path, { followFinal: false });
    const temp = `${host}.kubeadm-tmp`;
    await Deno.remove(temp).catch(() => {});
    await Deno.symlink(target, temp);
    await Deno.rename(temp, host);
    faultPoint(`linked:${path}`);
  }

  /**
   * Copies as `cp -rH` would under `chroot`: a source that is a symlink is followed inside the
   * root, so its tree is copied (a backup of a symlinked `/var/lib/etcd` holds etcd's data, not
   * a link that the rollback, which empties the data directory first, would restore as the only
   * copy), and a destination that is a symlink names the directory copied into, resolved inside
   * the root. Links inside the tree are copied as links.
   */
  async copyTree(from: string, to: string): Promise<void> {
    const root = this.files.root;
    // With root `/` a path is taken as given (nothing to contain), so links named as the
    // source or the destination are followed here; a foreign root's walk has followed them.
    const followed = async (host: string) =>
      this.foreignRoot === undefined &&
        (await Deno.lstat(host).catch(() => undefined))?.isSymlink
        ? await Deno.realPath(host)
        : host;
    const src = await followed(await resolveInRoot(root, from));
    const st = await Deno.lstat(src);
    let dst = await followed(await resolveInRoot(root, to));
    if (st.isDirectory) {
      // The directory a link names may be missing: created level by level, inside the root.
      dst = ensureDirInRootSync(root, nodePathOf(root, dst), (st.mode ?? 0o700) & 0o7777);
    }
    await copyHostTree(src, dst);
  }

  async removeFile(path: string): Promise<void> {
    // The last component is not followed: a symlinked file goes as a link.
    const host = await resolveInRoot(this.files.root, path, { followFinal: false });
    const cut = host.lastIndexOf("/");
    const dir = cut === 0 ? "/" : host.slice(0, cut);
    let realDir: string;
    try {
      await Deno.lstat(host);
      realDir = await Deno.realPath(dir);
    } catch (e) {
      if (notFound(e)) return;
      throw e;
    }
    const errors: string[] = [];
    await this.#removeTree(
      dir,
      realDir,
      host.slice(cut + 1),
      await this.#hostMountPoints(),
      errors,
    );
    if (errors.length > 0) throw new Error(errors.join("; "));
    faultPoint(`removed:${path}`);
  }
}

/**
 * Copies a host file or directory tree: regular files with their modes (through a new temp
 * file renamed into place), directories created with the source's mode, symlinks recreated as
 * links (never followed); other files (FIFOs, devices, sockets) are refused. Nothing is
 * written through a symlink already in the destination: a link where a directory goes is
 * replaced by the directory, and a rename replaces a link where a file or link goes.
 */
async function copyHostTree(src: string, dst: string): Promise<void> {
  const st = await Deno.lstat(src);
  if (st.isSymlink) {
    await Deno.remove(dst).catch(() => {});
    await Deno.symlink(await Deno.readLink(src), dst);
    return;
  }
  if (st.isDirectory) {
    await makeRealDir(dst, (st.mode ?? 0o700) & 0o7777);
    for await (const entry of Deno.readDir(src)) {
      await copyHostTree(`${src}/${entry.name}`, `${dst}/${entry.name}`);
    }
    return;
  }
  const mode = (st.mode ?? 0o600) & 0o7777;
  const tmp = `${dst}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await copyFileContent(src, tmp, mode);
    await Deno.chmod(tmp, mode);
    await Deno.rename(tmp, dst);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}

/** Copies a regular file's bytes into a new file (never an existing one, nor a link). */
async function copyFileContent(src: string, dst: string, mode: number): Promise<void> {
  using from = openRegularFileSync(src);
  using to = await Deno.open(dst, { write: true, createNew: true, mode });
  const buf = new Uint8Array(1 << 20);
  for (let n = await from.read(buf); n !== null; n = await from.read(buf)) {
    for (let off = 0; off < n;) off += await to.write(buf.subarray(off, n));
  }
}

/**
 * A directory at `path` that is not a symlink: an existing one is kept, a symlink there is
 * replaced (its target is left alone), a missing one is created with `mode`.
 */
async function makeRealDir(path: string, mode: number): Promise<void> {
  const st = await Deno.lstat(path).catch((e) => {
    if (notFound(e)) return undefined;
    throw e;
  });
  if (st?.isDirectory) return;
  if (st?.isSymlink) await Deno.remove(path);
  await Deno.mkdir(path, { mode });
}

// The network stack (node:https for self-signed health endpoints) costs tens of milliseconds
// to load: only runs that probe health pay for it (closing a probe never used loads nothing).
function lazyHealthProbe(): HealthProbe {
  let probe: Promise<HealthProbe> | undefined;
  const load = () => probe ??= import("./http.ts").then((m) => m.createHealthProbe());
  return {
    get: async (url, options) => await (await load()).get(url, options),
    close: async () => await (await probe)?.close?.(),
  };
}
