/**
 * An in-memory {@link FileSystem} for tests: a Map from absolute path to content and mode, with
 * helpers to seed files, read them back as text, and copy everything to a real directory so
 * tools such as `openssl` and `kubectl` can inspect the result.
 *
 * @module
 */
import type { FileSystem, PlannedFile } from "../../core/ports/files.ts";
import { toBytes } from "../../core/text/utf8.ts";

/** One stored file. */
export interface MemoryFile {
  data: Uint8Array;
  mode: number;
  kind: PlannedFile["kind"];
}

/** Map-backed FileSystem; every write is also logged in order. */
export class MemoryFileSystem implements FileSystem {
  /** Path → file. */
  readonly files = new Map<string, MemoryFile>();
  /** Every write, in order (paths may repeat). */
  readonly writes: PlannedFile[] = [];

  /** Optionally seeds files (`path → text or bytes`, mode 0644). */
  constructor(seed: Record<string, string | Uint8Array> = {}) {
    for (const [path, data] of Object.entries(seed)) this.put(path, data);
  }

  /** Stores a file directly, without logging it as a write. */
  put(path: string, data: string | Uint8Array, mode = 0o644): void {
    this.files.set(path, { data: toBytes(data), mode, kind: "other" });
  }

  /** Removes a file. */
  remove(path: string): void {
    this.files.delete(path);
  }

  /** A file's content as UTF-8 text, or `undefined`. */
  text(path: string): string | undefined {
    const f = this.files.get(path);
    return f ? new TextDecoder().decode(f.data) : undefined;
  }

  /** A deep copy of the current contents (to compare before/after). */
  snapshot(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [p, f] of this.files) {
      out.set(p, `${f.mode.toString(8)}:${btoa(String.fromCharCode(...f.data))}`);
    }
    return out;
  }

  read(path: string): Promise<Uint8Array | undefined> {
    const f = this.files.get(path);
    return Promise.resolve(f ? f.data.slice() : undefined);
  }

  list(path: string): Promise<string[] | undefined> {
    const prefix = path.endsWith("/") ? path : `${path}/`;
    const names = new Set<string>();
    for (const p of this.files.keys()) {
      if (p.startsWith(prefix)) names.add(p.slice(prefix.length).split("/")[0]);
    }
    return Promise.resolve(names.size > 0 ? [...names].sort() : undefined);
  }

  write(file: PlannedFile): Promise<void> {
    this.writes.push(file);
    this.files.set(file.path, {
      data: toBytes(file.data).slice(),
      mode: file.mode,
      kind: file.kind,
    });
    return Promise.resolve();
  }

  /**
   * Copies every file under `root` (node paths are re-rooted: `/etc/kubernetes/pki/ca.crt` →
   * `<root>/etc/kubernetes/pki/ca.crt`) with its mode; returns `root`.
   */
  async dumpTo(root: string): Promise<string> {
    for (const [path, f] of this.files) {
      const target = `${root}${path}`;
      await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
      await Deno.writeFile(target, f.data, { mode: f.mode });
      await Deno.chmod(target, f.mode);
    }
    return root;
  }
}

/**
 * File operations beyond writes (directories, removal, renames, copies) over a
 * {@link MemoryFileSystem}, as the upgrade's node ports; every call is logged in `actions`.
 */
export class MemoryNodeOps {
  readonly actions: string[] = [];
  readonly dirs = new Set<string>();

  constructor(readonly fs: MemoryFileSystem) {}

  #under(path: string): string[] {
    return [...this.fs.files.keys()].filter((p) => p === path || p.startsWith(`${path}/`));
  }

  ensureDir(path: string): Promise<void> {
    this.actions.push(`mkdir ${path}`);
    this.dirs.add(path);
    return Promise.resolve();
  }

  removeFile(path: string): Promise<void> {
    this.actions.push(`remove ${path}`);
    for (const p of this.#under(path)) this.fs.files.delete(p);
    for (const d of [...this.dirs]) if (d === path || d.startsWith(`${path}/`)) this.dirs.delete(d);
    return Promise.resolve();
  }

  cleanDir(path: string): Promise<void> {
    this.actions.push(`clean ${path}`);
    for (const p of this.#under(path)) if (p !== path) this.fs.files.delete(p);
    return Promise.resolve();
  }

  moveFile(from: string, to: string): Promise<void> {
    this.actions.push(`move ${from} ${to}`);
    const f = this.fs.files.get(from);
    if (!f) return Promise.reject(new Error(`rename ${from} ${to}: no such file or directory`));
    this.fs.files.delete(from);
    this.fs.files.set(to, f);
    return Promise.resolve();
  }

  copyTree(from: string, to: string): Promise<void> {
    this.actions.push(`copy ${from} ${to}`);
    const found = this.#under(from);
    if (found.length === 0 && !this.dirs.has(from)) {
      return Promise.reject(new Error(`cp: cannot stat '${from}': No such file or directory`));
    }
    for (const p of found) {
      const f = this.fs.files.get(p)!;
      this.fs.files.set(to + p.slice(from.length), { ...f, data: f.data.slice() });
    }
    return Promise.resolve();
  }
}
