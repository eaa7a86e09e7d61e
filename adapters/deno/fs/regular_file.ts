/**
 * Opening a node file (under `--rootfs`) that must be a regular file: a certificate, a key, a
 * kubeconfig, a manifest, a file to copy. Anything else is refused by name before it is
 * opened: opening a FIFO for reading waits for a writer that may never come, and a device may
 * never end.
 *
 * The file is checked (`lstat` for a path resolved inside the root, where no symlink is left
 * and one found now was swapped in; `stat` on the real root, where links are the node's own),
 * opened, and checked again through the open handle (`fstat`): it must still be a regular file
 * and the same one (device and inode), or it was swapped in between and is refused. Residual: a FIFO swapped in between the check and the open still
 * blocks the open (Deno's `open` takes no `O_NONBLOCK`); that needs write access to the node's
 * own directories. Files a user names on the command line are not read this way: a pipe there
 * is meant (`cli/config_file.ts`); for those, and host files the command line looks for, there
 * is a plain existence check ({@link isRegularFile}).
 *
 * @module
 */

const DIRECTORY = "a directory";

/** What a file is, for errors (`a FIFO`, `a directory`). */
export function fileKind(info: Deno.FileInfo): string {
  if (info.isFile) return "a regular file";
  if (info.isDirectory) return DIRECTORY;
  if (info.isSymlink) return "a symbolic link";
  if (info.isFifo) return "a FIFO";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  return "not a regular file";
}

/** A node file that is not a regular file, or that was swapped while it was opened. */
export class NotRegularFileError extends Error {
  constructor(readonly path: string, readonly kind: string) {
    super(
      kind === "swapped"
        ? `${path} changed while it was being opened; not reading it`
        : `${path} is ${kind}, not a regular file`,
    );
    this.name = "NotRegularFileError";
  }

  /** Whether it is a directory (a reader may take that as no file at all). */
  get isDirectory(): boolean {
    return this.kind === DIRECTORY;
  }
}

function sameFile(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * Opens host path `path` for reading when it is a regular file; a final symlink is followed
 * only with `followSymlink` (else it is refused). Throws {@link NotRegularFileError} for
 * anything else; a missing file throws `Deno.errors.NotFound`.
 */
export function openRegularFileSync(path: string, followSymlink = false): Deno.FsFile {
  const before = followSymlink ? Deno.statSync(path) : Deno.lstatSync(path);
  if (!before.isFile) throw new NotRegularFileError(path, fileKind(before));
  const file = Deno.openSync(path, { read: true });
  try {
    const after = file.statSync();
    if (!after.isFile || !sameFile(before, after)) {
      throw new NotRegularFileError(path, "swapped");
    }
    return file;
  } catch (e) {
    file.close();
    throw e;
  }
}

/** Whether a regular file exists at a host path. */
export function isRegularFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
