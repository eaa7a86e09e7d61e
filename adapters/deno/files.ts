/**
 * The node's real file system, optionally rooted under `--rootfs`.
 *
 * Every node path (`/etc/kubernetes/pki/ca.crt`) is resolved under the root directory as
 * `chroot` would resolve it (`rooted_path.ts`): symlinks are followed inside the root only,
 * so no read, write, directory creation or removal leaves it. A node's files can be prepared
 * inside an image directory and tests never touch the real `/etc`. Writes are atomic: a temp
 * file in the same directory (fsync'd when it replaces a file), then renamed, with the
 * requested mode set before the rename (or, for `keepExistingMode`, the replaced file's mode
 * and owner); directories are created one level at a time, and the directory written into is
 * checked again (still inside the root) before the rename. Reads take regular files only (a
 * FIFO is refused by name instead of waited on: `regular_file.ts`), with a size cap.
 *
 * @module
 */
import {
  directoryModeFor,
  type FileSystem,
  type NodeFiles,
  type PlannedFile,
} from "../../core/ports/files.ts";
import { toBytes } from "../../core/text/utf8.ts";
import {
  ensureDirInRootSync,
  lookupInRootSync,
  nodePathOf,
  resolveInRootSync,
  RootedPathError,
} from "./fs/rooted_path.ts";
import { NotRegularFileError, openRegularFileSync } from "./fs/regular_file.ts";
import { FileTooLargeError, readOpenFileCappedSync } from "./fs/capped_read.ts";
import { faultPoint } from "./fault_injection.ts";
import { KubeadmError } from "../../core/errors.ts";

/**
 * The host path of node path `path` under `root` (`/` = no mapping), symlinks resolved inside
 * the root (synchronous; see `rooted_path.ts`).
 */
export function underRoot(root: string, path: string): string {
  return resolveInRootSync(root, path);
}

function dirname(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

function missing(e: unknown): boolean {
  return e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory;
}

/** A {@link FileSystem} over Deno's file APIs. */
export class HostFileSystem implements FileSystem {
  /** The `--rootfs` directory (`/` for the real root). */
  readonly root: string;
  /** The root's real path, once a write has looked it up. */
  #realRoot?: string;

  constructor(root = "/") {
    this.root = root;
  }

  /** The host path a node path maps to (symlinks resolved inside the root). */
  resolve(path: string): string {
    return resolveInRootSync(this.root, path);
  }

  /**
   * File content, or `undefined` when the path does not exist or is a directory. Anything else
   * that is not a regular file (a FIFO, a device, a socket) is refused with a
   * {@link NotRegularFileError} naming it, without being opened; a file larger than the input
   * cap (`MAX_INPUT_FILE_BYTES`, 4 MiB) with a {@link FileTooLargeError}.
   */
  read(path: string): Promise<Uint8Array | undefined> {
    return later(() => {
      const { hostPath: p, exists } = lookupInRootSync(this.root, path);
      if (!exists) return undefined;
      let file: Deno.FsFile;
      try {
        // Under a root the path was resolved to one with no symlink left; on the real root
        // the node's own links are followed.
        file = openRegularFileSync(p, this.root.replace(/\/+$/, "") === "");
      } catch (e) {
        if (missing(e)) return undefined;
        if (e instanceof NotRegularFileError) {
          if (e.isDirectory) return undefined;
          throw new NotRegularFileError(path, e.kind);
        }
        throw e;
      }
      try {
        return readOpenFileCappedSync(file);
      } catch (e) {
        if (e instanceof FileTooLargeError) throw new FileTooLargeError(e.cap, path);
        throw e;
      } finally {
        file.close();
      }
    });
  }

  /** Whether anything (file, directory, resolvable symlink) exists at the path. */
  exists(path: string): Promise<boolean> {
    return later(() => {
      try {
        Deno.statSync(resolveInRootSync(this.root, path));
        return true;
      } catch {
        return false;
      }
    });
  }

  list(path: string): Promise<string[] | undefined> {
    return later(() => {
      try {
        const names: string[] = [];
        for (const entry of Deno.readDirSync(resolveInRootSync(this.root, path))) {
          names.push(entry.name);
        }
        return names.sort();
      } catch (e) {
        if (missing(e)) return undefined;
        throw e;
      }
    });
  }

  /** Creates a directory and its missing parents (mode `mode` for the new ones). */
  ensureDir(path: string, mode: number): Promise<void> {
    return later(() => {
      ensureDirInRootSync(this.root, path, mode);
    });
  }

  /**
   * Removes a file, a symlink (never what it points to) or an empty directory; a missing path
   * is not an error.
   */
  remove(path: string): Promise<void> {
    return later(() => {
      const p = resolveInRootSync(this.root, path, { followFinal: false });
      try {
        Deno.removeSync(p);
      } catch (e) {
        if (!missing(e)) throw e;
      }
    });
  }

  write(file: PlannedFile): Promise<void> {
    return later(() => this.#writeSync(file));
  }

  #writeSync(file: PlannedFile): void {
    const { hostPath: target, exists } = lookupInRootSync(this.root, file.path);
    // The target resolved without a symlink left in it, so its directory, when there, is
    // used as it is; a missing one is created level by level inside the root.
    const parent = dirname(target);
    const dir = statOrUndefined(parent)?.isDirectory
      ? parent
      : ensureDirInRootSync(this.root, nodePathOf(this.root, parent), directoryModeFor(file));
    const tmp = `${dir}/.${target.slice(dir.length + 1)}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    this.#checkStillInside(dir);
    const existing = exists ? statOrUndefined(target) : undefined;
    const keep = file.keepExistingMode && existing?.isFile;
    const mode = keep && existing.mode !== null ? existing.mode & 0o7777 : file.mode;
    removeStaleTemps(dir, target.slice(dir.length + 1));
    let f: Deno.FsFile;
    try {
      f = Deno.openSync(tmp, { write: true, createNew: true, mode });
    } catch (e) {
      throw writeError(file.path, e);
    }
    try {
      try {
        const bytes = toBytes(file.data);
        let off = 0;
        while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
        // Replacing a file: its new content reaches the disk before the rename does, so a
        // crash leaves the old file or the new one, never an empty one. A new file is not
        // synced: upstream syncs none, and a sync per file was a sixth of `init phase certs all`.
        if (existing) f.syncSync();
      } finally {
        f.close();
      }
      this.#checkStillInside(dir);
      Deno.chmodSync(tmp, mode);
      if (
        keep && existing.uid !== null && existing.gid !== null &&
        (existing.uid !== Deno.uid() || existing.gid !== Deno.gid())
      ) {
        Deno.chownSync(tmp, existing.uid, existing.gid);
      }
      faultPoint(`write:${file.path}`);
      Deno.renameSync(tmp, target);
    } catch (e) {
      try {
        Deno.removeSync(tmp);
      } catch { /* the write's error is the one to report */ }
      throw writeError(file.path, e);
    }
    faultPoint(`wrote:${file.path}`);
  }

  /**
   * A directory resolved earlier must still be inside the root (not swapped for a link). The
   * root's own real path is taken once: the root and its parents are outside it, so nothing
   * written inside the root changes where it resolves (each write checks twice, and the real
   * path of a path costs a `readlink` per component).
   */
  #checkStillInside(dir: string): void {
    if (this.root === "/" || this.root === "") return;
    const realDir = Deno.realPathSync(dir);
    const realRoot = this.#realRoot ??= Deno.realPathSync(this.root);
    if (realDir !== realRoot && !realDir.startsWith(`${realRoot}/`)) {
      throw new RootedPathError(
        `${dir} now resolves to ${realDir}, outside the root ${this.root}; not writing there`,
        { value: dir },
      );
    }
  }
}

/**
 * The error of a failed write, naming the node path: the OS's own (`No space left on device
 * (os error 28)`) names none. kubeadm's errors (a path leaving the root) pass as they are.
 */
function writeError(path: string, e: unknown): unknown {
  if (!(e instanceof Error) || e instanceof KubeadmError || e.message.includes(path)) return e;
  return new Error(`unable to write ${path}: ${e.message}`, { cause: e });
}

/**
 * Removes the temp files an earlier write of `name` into `dir` left behind when its process
 * was killed between writing and renaming (`.<name>.<8 hex>.tmp`), so a re-run converges to the
 * same files.
 */
function removeStaleTemps(dir: string, name: string): void {
  const prefix = `.${name}.`;
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync(dir);
  } catch {
    return;
  }
  for (const e of entries) {
    if (
      e.isFile && e.name.startsWith(prefix) &&
      /^[0-9a-f]{8}\.tmp$/.test(e.name.slice(prefix.length))
    ) {
      try {
        Deno.removeSync(`${dir}/${e.name}`);
      } catch { /* gone already */ }
    }
  }
}

/** `stat` of a host path, or `undefined` when it cannot be read. */
function statOrUndefined(hostPath: string): Deno.FileInfo | undefined {
  try {
    return Deno.statSync(hostPath);
  } catch {
    return undefined;
  }
}

/**
 * {@link NodeFiles} over the node's real files, rooted at `root` (`/` = the real root): read
 * access to kubeadm's files as the preflight and reset ports expect it.
 */
export class RootedNodeFiles extends HostFileSystem implements NodeFiles {}

/**
 * Runs a synchronous file operation and hands its outcome over as a promise (errors as
 * rejections, as the {@link FileSystem} port promises).
 *
 * The host file system works with synchronous calls on purpose: each is microseconds on a
 * node's local disk, while an async Deno file call costs a thread-pool round trip. An offline
 * phase makes hundreds of them (path components resolved inside the root, the temp file, its
 * sync, mode, rename), and measured, most of its wall time was the main thread idle waiting.
 * Errors raised meanwhile carry no stack trace: most are an expected "not found" (a file
 * looked for before it is written), which cost ~0.1 ms each to build with one, and the others
 * are reported by their message, which names the path.
 */
function later<T>(op: () => T): Promise<T> {
  return Promise.resolve().then(() => {
    const errors = Error as { stackTraceLimit?: number }; // V8's
    const limit = errors.stackTraceLimit;
    errors.stackTraceLimit = 0;
    try {
      return op();
    } finally {
      errors.stackTraceLimit = limit;
    }
  });
}
