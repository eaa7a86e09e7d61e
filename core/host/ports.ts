/**
 * The narrow interfaces through which the core reaches the outside world.
 *
 * The core never touches a file, a socket, a clock or a random source itself: a workflow
 * receives these ports and the runtime (Deno CLI, browser page, edge function, test fake)
 * supplies them. Paths are always the node's absolute paths (`/etc/kubernetes/pki/ca.crt`);
 * mapping them under `--rootfs` or into a dry-run directory is the adapter's job.
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

/** Line-oriented output, in kubeadm's `[phase] message` style. */
export interface Printer {
  /** A normal progress line (stdout). */
  info(line: string): void;
  /** A warning (stderr). */
  warn(line: string): void;
  /**
   * A verbose log line (upstream's `klog.V(level)`): data, which the caller decides to show
   * (the CLI at `--v` ≥ `level`, klog-style on stderr) or drop. `source` is the base name of
   * the module that logs (`tree.ts`), for `--vmodule` and the line's header. Optional: a
   * printer without it drops them.
   */
  log?: LogFn;
}

/**
 * Where a verbose log line goes: `level` is upstream's (`1` for `klog.V(1)`), `source` the
 * base name of the module that logs. Pure functions (configuration resolution) take one as
 * an option and otherwise log nothing.
 */
export type LogFn = (level: number, source: string, message: string) => void;

/** Wall clock. */
export interface Clock {
  /** The current time. */
  now(): Date;
}

/** Cryptographically secure random bytes. */
export interface RandomSource {
  /** The next `n` random bytes. */
  bytes(n: number): Uint8Array;
}

/** The web platform's clock. */
export const systemClock: Clock = { now: () => new Date() };

/** The web platform's CSPRNG (`crypto.getRandomValues`). */
export const webRandom: RandomSource = {
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 65536) {
      crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
    }
    return out;
  },
};

/** Decodes UTF-8 file content. */
export function utf8(data: Uint8Array): string {
  return new TextDecoder().decode(data);
}

/** Encodes text as UTF-8. */
export function toBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === "string" ? new TextEncoder().encode(data) : data;
}

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
