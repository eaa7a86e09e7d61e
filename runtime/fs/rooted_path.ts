/**
 * Node paths under `--rootfs`, resolved the way `chroot` would, so that no read, write,
 * directory creation or removal ever leaves the root.
 *
 * Upstream kubeadm `chroot`s into `--rootfs`; kubeadm-ts maps paths instead. A lexical mapping
 * (`<root>` + path) is not enough: a symlink inside the root (`<root>/etc/kubernetes ->
 * /elsewhere`, or `-> ../../../../elsewhere`) would lead the host's kernel out of it. So every
 * component is resolved here, one at a time, with `lstat`/`readlink`: an absolute link target
 * starts again at the root, `..` never climbs above the root, and missing components are taken
 * as written. The result is a host path inside the root with no
 * symlink left in it (only the last component may be one, when asked not to follow it).
 *
 * Residual risk: between resolving and using a path, someone who can write inside the root
 * could swap a directory for a symlink (upstream's chroot has no such window). Writers narrow
 * it by creating directories one level at a time and re-checking the directory they write
 * into (see `HostFileSystem`).
 *
 * The walk is written once, as a generator that asks for symlink targets, and driven by an
 * async and a sync reader.
 *
 * @module
 */
import { KubeadmError } from "../../core/errors.ts";

/** Symlinks followed in one resolution before giving up (Linux's `MAXSYMLINKS`). */
const MAX_SYMLINKS = 40;

/** Options of the resolvers. */
export interface RootedResolveOptions {
  /** Follow a symlink in the last component (reads, writes: yes; removal: no). Default true. */
  followFinal?: boolean;
}

/** A path under a root that loops through symlinks, or is not absolute. */
export class RootedPathError extends KubeadmError {
  override readonly code = "ERR_ROOTED_PATH";
}

function components(path: string): string[] {
  return path.split("/").filter((c) => c !== "" && c !== ".");
}

/** The root without trailing slashes (`/` stays `/`). */
function trimRoot(root: string): string {
  const r = root.replace(/\/+$/, "");
  return r === "" ? "/" : r;
}

function join(root: string, parts: readonly string[]): string {
  const base = root === "/" ? "" : root;
  return parts.length === 0 ? (base || "/") : `${base}/${parts.join("/")}`;
}

/**
 * The walk: yields the host path of each existing-so-far component and receives its symlink
 * target (`null` when it is not a symlink or does not exist); returns the host path.
 */
function* walk(
  root: string,
  path: string,
  followFinal: boolean,
): Generator<string, string, string | null> {
  if (!path.startsWith("/")) {
    throw new RootedPathError(`path must be absolute: ${path}`, { value: path });
  }
  const resolved: string[] = [];
  const queue = components(path);
  let links = 0;
  while (queue.length > 0) {
    const c = queue.shift()!;
    if (c === "..") {
      resolved.pop(); // never above the root
      continue;
    }
    if (queue.length === 0 && !followFinal) {
      resolved.push(c);
      continue;
    }
    const target = yield join(root, [...resolved, c]);
    if (target === null) {
      resolved.push(c);
      continue;
    }
    if (++links > MAX_SYMLINKS) {
      throw new RootedPathError(
        `${path}: too many levels of symbolic links under the root ${root}`,
        { value: path },
      );
    }
    // An absolute target starts again at the root; a relative one from the link's directory.
    if (target.startsWith("/")) resolved.length = 0;
    queue.unshift(...components(target));
  }
  return join(root, resolved);
}

function isMissing(e: unknown): boolean {
  return e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory;
}

function linkTargetSync(hostPath: string): string | null {
  try {
    const st = Deno.lstatSync(hostPath);
    return st.isSymlink ? Deno.readLinkSync(hostPath) : null;
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
}

/**
 * The host path of node path `path` under `root`, symlinks resolved inside the root. With
 * root `/`, the path as given (normalised): there is nothing to contain.
 */
export async function resolveInRoot(
  root: string,
  path: string,
  options: RootedResolveOptions = {},
): Promise<string> {
  // The walk's lstat/readlink calls are synchronous on purpose: each is microseconds, while an
  // async one costs a thread-pool round trip per path component (measured: most of an offline
  // phase's wall time was the main thread idle waiting for them).
  return await Promise.resolve(resolveInRootSync(root, path, options));
}

/** {@link resolveInRoot} for synchronous callers. */
export function resolveInRootSync(
  root: string,
  path: string,
  options: RootedResolveOptions = {},
): string {
  const r = trimRoot(root);
  const it = walk(r, path, options.followFinal ?? true);
  if (r === "/") return lexical(it);
  let step = it.next();
  while (!step.done) step = it.next(linkTargetSync(step.value));
  return step.value;
}

/** Drives the walk without looking at the disk (no link is followed). */
function lexical(it: Generator<string, string, string | null>): string {
  let step = it.next();
  while (!step.done) step = it.next(null);
  return step.value;
}

/** The node path of a host path inside `root` (`/` for the root itself). */
export function nodePathOf(root: string, hostPath: string): string {
  const r = trimRoot(root);
  if (r === "/") return hostPath;
  if (hostPath === r) return "/";
  if (!hostPath.startsWith(`${r}/`)) {
    throw new RootedPathError(`${hostPath} is outside the root ${r}`, { value: hostPath });
  }
  return hostPath.slice(r.length);
}

/**
 * Creates the directory at node path `path` and its missing parents (mode `mode`), one level
 * at a time, each level resolved inside the root; returns its host path. A directory that
 * appears concurrently (or a symlink to one inside the root) is used as it is.
 */
export async function ensureDirInRoot(root: string, path: string, mode: number): Promise<string> {
  const r = trimRoot(root);
  if (r === "/") {
    const p = normalizeNodePath(path);
    await Deno.mkdir(p, { recursive: true, mode });
    return p;
  }
  await Deno.mkdir(r, { recursive: true, mode });
  let node = "";
  let host = r;
  for (const c of components(normalizeNodePath(path))) {
    node = `${node}/${c}`;
    host = await resolveInRoot(r, node);
    try {
      await Deno.mkdir(host, { mode });
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    }
    // Whatever is there now must resolve to a directory inside the root.
    host = await resolveInRoot(r, node);
    const st = await Deno.stat(host);
    if (!st.isDirectory) {
      throw new RootedPathError(`${node} is not a directory (under the root ${r})`, {
        value: node,
      });
    }
  }
  return host;
}

/** A node path with `.`, `..` and repeated slashes resolved lexically: `/a//b/../c` → `/a/c`. */
export function normalizeNodePath(path: string): string {
  return lexical(walk("/", path, true));
}
