/**
 * The node's real file system, optionally rooted under `--rootfs`.
 *
 * Every node path (`/etc/kubernetes/pki/ca.crt`) is resolved under the root directory without
 * chroot, so a node's files can be prepared inside an image directory and tests never touch the
 * real `/etc`. Writes are atomic: a temp file in the same directory, fsync'd, then renamed,
 * with the requested mode set before the rename.
 *
 * @module
 */
import type { FileSystem, PlannedFile } from "../../core/host/ports.ts";
import { toBytes } from "../../core/host/ports.ts";

/** Maps a node path under a root directory (`/` = no mapping). */
export function underRoot(root: string, path: string): string {
  if (!path.startsWith("/")) throw new Error(`path must be absolute: ${path}`);
  if (root === "" || root === "/") return path;
  const parts: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  return `${root.replace(/\/+$/, "")}/${parts.join("/")}`;
}

function dirname(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

/** A {@link FileSystem} over Deno's file APIs. */
export class HostFileSystem implements FileSystem {
  /** The `--rootfs` directory (`/` for the real root). */
  readonly root: string;

  constructor(root = "/") {
    this.root = root;
  }

  /** The host path a node path maps to. */
  resolve(path: string): string {
    return underRoot(this.root, path);
  }

  /** File content, or `undefined` when the path does not exist or is not a regular file. */
  async read(path: string): Promise<Uint8Array | undefined> {
    const p = this.resolve(path);
    try {
      return await Deno.readFile(p);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
        return undefined;
      }
      // Reading a directory fails with EISDIR: not a file.
      const st = await Deno.stat(p).catch(() => undefined);
      if (st?.isDirectory) return undefined;
      throw e;
    }
  }

  /** Whether anything (file, directory, resolvable symlink) exists at the path. */
  async exists(path: string): Promise<boolean> {
    try {
      await Deno.stat(this.resolve(path));
      return true;
    } catch {
      return false;
    }
  }

  async list(path: string): Promise<string[] | undefined> {
    try {
      const names: string[] = [];
      for await (const entry of Deno.readDir(this.resolve(path))) names.push(entry.name);
      return names.sort();
    } catch (e) {
      if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
        return undefined;
      }
      throw e;
    }
  }

  async write(file: PlannedFile): Promise<void> {
    const target = this.resolve(file.path);
    const dir = dirname(target);
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = `${dir}/.${target.slice(dir.length + 1)}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    const f = await Deno.open(tmp, { write: true, createNew: true, mode: file.mode });
    try {
      const bytes = toBytes(file.data);
      let off = 0;
      while (off < bytes.length) off += await f.write(bytes.subarray(off));
      await f.sync();
    } finally {
      f.close();
    }
    try {
      await Deno.chmod(tmp, file.mode);
      await Deno.rename(tmp, target);
    } catch (e) {
      await Deno.remove(tmp).catch(() => {});
      throw e;
    }
  }
}
