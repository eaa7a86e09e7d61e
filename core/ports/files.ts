/**
 * The files port: the node's files as the core reads and writes them, and the plan of files
 * a run writes.
 *
 * The core never touches a file itself: a workflow receives these ports and an adapter (the
 * Deno one under `--rootfs`, the offline recording file system, a test fake) supplies them.
 * Paths are always the node's absolute paths (`/etc/kubernetes/pki/ca.crt`); mapping them
 * under `--rootfs` or into a dry-run directory is the adapter's job.
 *
 * @module
 */

/** What kind of content a planned file holds; decides redaction in dry-run output. */
export type FileKind =
  | "certificate"
  | "key"
  | "public-key"
  | "csr"
  | "kubeconfig"
  | "manifest"
  | "kubelet-config"
  | "env"
  /** A service manager's file: a systemd unit, a periodic script. */
  | "service"
  | "other";

/** A file the core wants written: the unit of every plan. */
export interface PlannedFile {
  /** Absolute node path. */
  path: string;
  /** Content; strings are written as UTF-8. */
  data: string | Uint8Array;
  /** POSIX mode, e.g. `0o600` for keys and kubeconfigs. */
  mode: number;
  /** Content kind; keys and kubeconfigs are never printed. */
  kind: FileKind;
  /**
   * When the file already exists, keep its mode and owner instead of `mode` (upstream rewrites
   * renewed files in place, so an admin's `chmod 0640 admin.conf` survives a renewal).
   */
  keepExistingMode?: boolean;
}

/**
 * The mode of the directories a write creates for `file` where they are missing, as upstream's
 * writers create them: client-go's certificate, key and kubeconfig writers make theirs 0755
 * (so `/etc/kubernetes` and `pki/` stay listable and `ca.crt` readable by anyone), kubeadm's own
 * writers 0700 (manifests, kubelet files, CSRs).
 */
export function directoryModeFor(file: PlannedFile): number {
  switch (file.kind) {
    case "certificate":
    case "key":
    case "public-key":
    case "kubeconfig":
      return 0o755;
    default:
      return 0o700;
  }
}

/** Read access to the node's files. */
export interface FileReader {
  /** File content, or `undefined` when the file does not exist. */
  read(path: string): Promise<Uint8Array | undefined>;
  /** Entry names of a directory, or `undefined` when it does not exist. */
  list(path: string): Promise<string[] | undefined>;
  /**
   * The reader an overlay reads unwritten paths through (a dry run's planning file system):
   * what remembers the node's files per file system keys on the innermost one.
   */
  readonly base?: FileReader;
}

/** Read access to kubeadm's files on the node with existence checks (preflight, reset). */
export interface NodeFiles extends FileReader {
  /** Whether anything (file, directory, resolvable symlink) exists at the path (Go's `os.Stat`). */
  exists(path: string): Promise<boolean>;
}

/** Read and write access to the node's files. Writes are atomic in real adapters. */
export interface FileSystem extends FileReader {
  /**
   * Writes atomically, creating missing parent directories with {@link directoryModeFor}'s mode.
   */
  write(file: PlannedFile): Promise<void>;
}

/**
 * A file system that plans writes instead of making them (`--dry-run`, the library's plans):
 * reads see what was planned, over its {@link FileReader.base}.
 */
export interface PlanningFileSystem extends FileSystem {
  /** The planned writes, in the order they were made (a rewrite keeps its first position). */
  readonly planned: PlannedFile[];
}

/** Makes a {@link PlanningFileSystem} over `base` (a run's adapter, for a plan within a run). */
export type PlanningOverlay = (base: FileReader) => PlanningFileSystem;

/**
 * Applies a plan: writes the files one after the other, in the plan's order (each write is
 * atomic in real adapters), calling `onWritten` after each.
 */
export async function writePlannedFiles(
  files: FileSystem,
  planned: readonly PlannedFile[],
  onWritten?: (file: PlannedFile) => void,
): Promise<void> {
  for (const file of planned) {
    await files.write(file);
    onWritten?.(file);
  }
}
