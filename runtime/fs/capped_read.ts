/**
 * Reading with a size cap. Files a user names (`--config`, `--kubeconfig`, `--cluster-info`, a
 * template file) may be a device or a pipe that never ends (`/dev/zero`): a read without a cap
 * would take all memory before any error is shown. Node files (`runtime/fs/host_fs.ts`) are read
 * with the same cap, once opened as regular files.
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
}

function joined(chunks: Uint8Array[], total: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
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
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(64 << 10);
  let total = 0;
  for (;;) {
    const n = await file.read(buf);
    if (n === null) return joined(chunks, total);
    total += n;
    if (total > cap) throw new FileTooLargeError(cap);
    chunks.push(buf.slice(0, n));
  }
}

/** {@link readFileCapped}, synchronously. */
export function readFileCappedSync(
  path: string,
  cap = MAX_INPUT_FILE_BYTES,
): Uint8Array<ArrayBuffer> {
  using file = Deno.openSync(path);
  return readOpenFileCappedSync(file, cap);
}

/** {@link readFileCappedSync} of a file already open (from where it stands to its end). */
export function readOpenFileCappedSync(
  file: Deno.FsFile,
  cap = MAX_INPUT_FILE_BYTES,
): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(64 << 10);
  let total = 0;
  for (;;) {
    const n = file.readSync(buf);
    if (n === null) return joined(chunks, total);
    total += n;
    if (total > cap) throw new FileTooLargeError(cap);
    chunks.push(buf.slice(0, n));
  }
}

/** {@link readFileCapped} as UTF-8 text. */
export async function readTextFileCapped(
  path: string,
  cap = MAX_INPUT_FILE_BYTES,
): Promise<string> {
  // Kept as Deno.readTextFile keeps it: a byte-order mark is the YAML parser's to judge.
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await readFileCapped(path, cap));
}
