/**
 * What `reset` refuses to empty. A directory whose contents are deleted must be an absolute,
 * clean path (no `.` or `..` elements), and neither `/`, a top-level directory, nor a well-known
 * system directory (`/var/lib`, `/usr/local`, `/etc/kubernetes` itself, ...), whatever the
 * flags or configuration say.
 *
 * @module
 */
import { FlagError } from "../../errors.ts";

const PROTECTED = new Set([
  "/etc/kubernetes",
  "/etc/ssl",
  "/etc/pki",
  "/etc/systemd",
  "/etc/default",
  "/var/lib",
  "/var/log",
  "/var/run",
  "/var/cache",
  "/var/tmp",
  "/var/spool",
  "/var/mail",
  "/usr/bin",
  "/usr/sbin",
  "/usr/lib",
  "/usr/lib64",
  "/usr/libexec",
  "/usr/local",
  "/usr/share",
  "/usr/include",
  "/usr/src",
  "/run/systemd",
]);

/** Why a directory must not be emptied, or `undefined` when it may be. */
export function cleanupDirProblem(path: string): string | undefined {
  if (path.trim() === "") return "the path is empty";
  if (!path.startsWith("/")) return "the path must be absolute";
  const parts = path.split("/").filter((p) => p !== "");
  if (parts.some((p) => p === ".." || p === ".")) {
    return "the path must not contain '.' or '..' elements";
  }
  if (parts.length === 0) return "refusing to delete the contents of the root directory";
  if (parts.length === 1) return "refusing to delete the contents of a top-level directory";
  if (PROTECTED.has(`/${parts.join("/")}`)) {
    return "refusing to delete the contents of a system directory";
  }
  return undefined;
}

/** The path without duplicate or trailing slashes. */
export function cleanPath(path: string): string {
  return `/${path.split("/").filter((p) => p !== "").join("/")}`;
}

/**
 * Returns the cleaned path, or throws a {@link FlagError} naming `field` (`--cert-dir`,
 * `certificatesDir`) when it must not be emptied.
 */
export function assertSafeCleanupDir(path: string, field: string): string {
  const problem = cleanupDirProblem(path);
  if (problem !== undefined) {
    throw new FlagError(`unsafe directory to clean ${JSON.stringify(path)}: ${problem}`, {
      field,
      value: path,
      hint: "point it at the directory kubeadm wrote the certificates to, e.g. /etc/kubernetes/pki",
    });
  }
  return cleanPath(path);
}
