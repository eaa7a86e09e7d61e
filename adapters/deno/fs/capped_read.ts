/**
 * Reading with a size cap. Files a user names (`--config`, `--kubeconfig`, `--cluster-info`, a
 * template file) may be a device or a pipe that never ends (`/dev/zero`): a read without a cap
 * would take all memory before any error is shown. Node files (`adapters/deno/files.ts`) are read
 * with the same cap, once opened as regular files. A read that fails is told as Go's
 * `os.ReadFile` tells it.
 *
 * @module
 */

/**
 * The most a file kubeadm reads as input may hold. Configurations, kubeconfigs, certificates,
 * keys, manifests and patches are kilobytes; the largest plausible one, a CA bundle, is well
 * under a MiB (a distribution's whole trust store is ~200 KiB). One cap for both kinds of input.
 */
export const MAX_INPUT_FILE_BYTES = 4 << 20;

/** The error a capped read throws past its cap (Go's wording: `file is larger than N bytes`). */
export class FileTooLargeError extends RangeError {
  /** `path`: the file to name in the message (a node file; flag errors name theirs). */
  constructor(readonly cap: number, readonly path?: string) {
    super(`${path === undefined ? "" : `${path}: `}file is larger than ${cap} bytes`);
    this.name = "FileTooLargeError";
  }

  /** The message alone: hints that show an error as `String(e)` read as Go's text. */
  override toString(): string {
    return this.message;
  }
}

/** The chunks of a capped read, refusing more than `cap` bytes in all. */
class CappedChunks {
  readonly buf = new Uint8Array(64 << 10);
  readonly #chunks: Uint8Array[] = [];
  #total = 0;
  constructor(readonly cap: number) {}

  /** Keeps the `n` bytes just read into {@link buf}; throws past the cap. */
  add(n: number): void {
    this.#total += n;
    if (this.#total > this.cap) throw new FileTooLargeError(this.cap);
    this.#chunks.push(this.buf.slice(0, n));
  }

  bytes(): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(this.#total);
    let off = 0;
    for (const c of this.#chunks) {
      out.set(c, off);
      off += c.length;
    }
    return out;
  }
}

/**
 * A file's bytes, or a {@link FileTooLargeError} once more than `cap` bytes were read. It reads
 * in chunks, because devices and pipes report no size.
 */
export async function readFileCapped(
  path: string,
  cap = MAX_INPUT_FILE_BYTES,
): Promise<Uint8Array<ArrayBuffer>> {
  using file = await Deno.open(path);
  const chunks = new CappedChunks(cap);
  for (let n; (n = await file.read(chunks.buf)) !== null;) chunks.add(n);
  return chunks.bytes();
}

/** {@link readFileCapped} of a file already open, synchronously (from where it stands to its end). */
export function readOpenFileCappedSync(
  file: Deno.FsFile,
  cap = MAX_INPUT_FILE_BYTES,
): Uint8Array<ArrayBuffer> {
  const chunks = new CappedChunks(cap);
  for (let n; (n = file.readSync(chunks.buf)) !== null;) chunks.add(n);
  return chunks.bytes();
}

/** {@link readFileCapped} as UTF-8 text. */
export async function readTextFileCapped(
  path: string,
  cap = MAX_INPUT_FILE_BYTES,
): Promise<string> {
  // Kept as Deno.readTextFile keeps it: a byte-order mark is the YAML parser's to judge.
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await readFileCapped(path, cap));
}

/** Whether `e` is the error of a path that does not exist. */
export function isNotFound(e: unknown): boolean {
  return e instanceof Deno.errors.NotFound;
}

/** Go's `os.ReadFile` error text for `path` (`open PATH: no such file or directory`, …). */
export function readFileError(path: string, e: unknown): string {
  if (e instanceof Deno.errors.NotFound) return `open ${path}: no such file or directory`;
  if (e instanceof Deno.errors.PermissionDenied) return `open ${path}: permission denied`;
  if (e instanceof Deno.errors.IsADirectory) return `read ${path}: is a directory`;
  if (e instanceof Deno.errors.NotADirectory) return `open ${path}: not a directory`;
  if (e instanceof RangeError) return `read ${path}: ${e.message}`;
  return `open ${path}: ${(e as Error).message}`;
}
