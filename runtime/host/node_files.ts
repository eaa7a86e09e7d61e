/**
 * Read access to kubeadm's files on the node, resolved under `--rootfs`.
 *
 * @module
 */
import type { NodeFiles } from "../../core/preflight/host.ts";
import { underRoot } from "../fs/host_fs.ts";

/** {@link NodeFiles} over Deno's file APIs, rooted at `root` (`/` = the real root). */
export class RootedNodeFiles implements NodeFiles {
  /** The `--rootfs` directory. */
  readonly root: string;

  constructor(root = "/") {
    this.root = root;
  }

  /** The host path a node path maps to. */
  resolve(path: string): string {
    return underRoot(this.root, path);
  }

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

  async exists(path: string): Promise<boolean> {
    try {
      await Deno.stat(this.resolve(path));
      return true;
    } catch {
      return false;
    }
  }
}
