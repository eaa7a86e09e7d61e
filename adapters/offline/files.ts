/**
 * A file system overlay that records writes instead of performing them.
 *
 * Reads fall through to the underlying reader (so existing certificates are reused exactly as
 * in a real run) unless the path was written earlier in the same run. This is how `--dry-run`
 * works everywhere, and how a browser or edge function gets a plan without any disk.
 *
 * @module
 */
import type { FileReader, PlannedFile, PlanningFileSystem } from "../../core/ports/files.ts";
import { toBytes } from "../../core/text/utf8.ts";

/** A {@link PlanningFileSystem} that keeps writes in memory, in order. */
export class RecordingFileSystem implements PlanningFileSystem {
  readonly #base: FileReader | undefined;
  readonly #written = new Map<string, PlannedFile>();
  /** UTF-8 of the written text files, encoded on first read (runs read their files often). */
  readonly #encoded = new Map<string, Uint8Array>();

  /** @param base where reads of unwritten paths go; none means an empty disk. */
  constructor(base?: FileReader) {
    this.#base = base;
  }

  /** Where reads of unwritten paths go. */
  get base(): FileReader | undefined {
    return this.#base;
  }

  /** The planned writes, in the order they were made (a rewrite keeps its first position). */
  get planned(): PlannedFile[] {
    return [...this.#written.values()];
  }

  read(path: string): Promise<Uint8Array | undefined> {
    const hit = this.#written.get(path);
    if (hit) {
      if (typeof hit.data !== "string") return Promise.resolve(hit.data.slice());
      let bytes = this.#encoded.get(path);
      if (!bytes) this.#encoded.set(path, bytes = toBytes(hit.data));
      return Promise.resolve(bytes.slice());
    }
    return this.#base ? this.#base.read(path) : Promise.resolve(undefined);
  }

  async list(path: string): Promise<string[] | undefined> {
    const base = this.#base ? await this.#base.list(path) : undefined;
    const prefix = path.endsWith("/") ? path : `${path}/`;
    const names = new Set(base ?? []);
    let found = base !== undefined;
    for (const p of this.#written.keys()) {
      if (p.startsWith(prefix)) {
        names.add(p.slice(prefix.length).split("/")[0]);
        found = true;
      }
    }
    return found ? [...names].sort() : undefined;
  }

  write(file: PlannedFile): Promise<void> {
    this.#written.set(file.path, { ...file });
    this.#encoded.delete(file.path);
    return Promise.resolve();
  }
}
