/**
 * The node's real file system, optionally rooted under `--rootfs`.
 *
 * Every node path (`/etc/kubernetes/pki/ca.crt`) is resolved under the root directory as
 * `chroot` would resolve it (`rooted_path.ts`): symlinks are followed inside the root only,
 * so no read, write, directory creation or removal leaves it. A node's files can be prepared
 * inside an image directory and tests never touch the real `/etc`. Writes are atomic: a temp
 * file in the same directory, fsync'd, then renamed, with the requested mode set before the
 * rename (or, for `keepExistingMode`, the replaced file's mode and owner); directories are created one level at a time, and the directory written into is
 * checked again (still inside the root) before the rename.
 *
 * @module
 */
import type { FileSystem, PlannedFile } from "../../core/host/ports.ts";
import { toBytes } from "../../core/host/ports.ts";
import {
  ensureDirInRoot,
  nodePathOf,
  resolveInRoot,
  resolveInRootSync,
  RootedPathError,
} from "./rooted_path.ts";

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

  constructor(root = "/") {
    this.root = root;
  }

  /** The host path a node path maps to (symlinks resolved inside the root). */
  resolve(path: string): string {
    return resolveInRootSync(this.root, path);
  }

  /** File content, or `undefined` when the path does not exist or is not a regular file. */
  async read(path: string): Promise<Uint8Array | undefined> {
    const p = await resolveInRoot(this.root, path);
    try {
      return await Deno.readFile(p);
    } catch (e) {
      if (missing(e)) return undefined;
      // Reading a directory fails with EISDIR: not a file.
      const st = await Deno.stat(p).catch(() => undefined);
      if (st?.isDirectory) return undefined;
      throw e;
    }
  }

  /** Whether anything (file, directory, resolvable symlink) exists at the path. */
  async exists(path: string): Promise<boolean> {
    try {
      await Deno.stat(await resolveInRoot(this.root, path));
      return true;
    } catch {
      return false;
    }
  }

  async list(path: string): Promise<string[] | undefined> {
    try {
      const names: string[] = [];
      for await (const entry of Deno.readDir(await resolveInRoot(this.root, path))) {
        names.push(entry.name);
      }
      return names.sort();
    } catch (e) {
      if (missing(e)) return undefined;
      throw e;
    }
  }

  /** Creates a directory and its missing parents (mode `mode` for the new ones). */
  async ensureDir(path: string, mode: number): Promise<void> {
    await ensureDirInRoot(this.root, path, mode);
  }

  /**
   * Removes a file, a symlink (never what it points to) or an empty directory; a missing path
   * is not an error.
   */
  async remove(path: string): Promise<void> {
    const p = await resolveInRoot(this.root, path, { followFinal: false });
    try {
      await Deno.remove(p);
    } catch (e) {
      if (!missing(e)) throw e;
    }
  }

  async write(file: PlannedFile): Promise<void> {
    const target = await resolveInRoot(this.root, file.path);
    const dir = await ensureDirInRoot(this.root, nodePathOf(this.root, dirname(target)), 0o700);
    const tmp = `${dir}/.${target.slice(dir.length + 1)}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    await this.#checkStillInside(dir);
    const existing = file.keepExistingMode
      ? await Deno.stat(target).catch(() => undefined)
      : undefined;
    const mode = existing?.isFile && existing.mode !== null ? existing.mode & 0o7777 : file.mode;
    const f = await Deno.open(tmp, { write: true, createNew: true, mode });
    try {
      const bytes = toBytes(file.data);
      let off = 0;
      while (off < bytes.length) off += await f.write(bytes.subarray(off));
      await f.sync();
    } finally {
      f.close();
    }
    try {
      await this.#checkStillInside(dir);
      await Deno.chmod(tmp, mode);
      if (
        existing?.isFile && existing.uid !== null && existing.gid !== null &&
        (existing.uid !== Deno.uid() || existing.gid !== Deno.gid())
      ) {
        await Deno.chown(tmp, existing.uid, existing.gid);
      }
      await Deno.rename(tmp, target);
    } catch (e) {
      await Deno.remove(tmp).catch(() => {});
      throw e;
    }
  }

  /** A directory resolved earlier must still be inside the root (not swapped for a link). */
  async #checkStillInside(dir: string): Promise<void> {
    if (this.root === "/" || this.root === "") return;
    const [realDir, realRoot] = await Promise.all([
      Deno.realPath(dir),
      Deno.realPath(this.root),
    ]);
    if (realDir !== realRoot && !realDir.startsWith(`${realRoot}/`)) {
      throw new RootedPathError(
        `${dir} now resolves to ${realDir}, outside the root ${this.root}; not writing there`,
        { value: dir },
      );
    }
  }
}
