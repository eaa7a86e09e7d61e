/**
 * Reading a file a user names (`--config`, `--kubeconfig`, `--cluster-info`, a template file)
 * with a size cap: such a path may be a device or a pipe that never ends (`/dev/zero`), and a
 * read without a cap would take all memory before any error is shown.
 *
 * @module
 */

/** The most a file a user names may hold: configurations and kubeconfigs are kilobytes. */
export const MAX_INPUT_FILE_BYTES = 4 << 20;

/** The error a capped read throws past its cap (Go's wording: `file is larger than N bytes`). */
export class FileTooLargeError extends RangeError {
  constructor(readonly cap: number) {
    super(`file is larger than ${cap} bytes`);
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
