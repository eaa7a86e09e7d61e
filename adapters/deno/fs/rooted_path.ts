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
import { KubeadmError } from "../../../core/errors.ts";

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

/** What the walk learns about one component: its link target, not a link, or missing. */
type Lookup = string | null | undefined;

/** The outcome of a walk: the host path, and whether every component looked up was there. */
interface Walked {
  hostPath: string;
  exists: boolean;
}

/**
 * The walk: yields the host path of each component to look up and receives what is there (a
 * symlink's target, `null` for anything else, `undefined` when nothing is). Under a missing
 * component nothing more can exist, so the rest is taken as written without looking, until a
 * `..` climbs back out of it.
 */
function* walk(
  root: string,
  path: string,
  followFinal: boolean,
): Generator<string, Walked, Lookup> {
  if (!path.startsWith("/")) {
    throw new RootedPathError(`path must be absolute: ${path}`, { value: path });
  }
  const resolved: string[] = [];
  const queue = components(path);
  let links = 0;
  let missingAt = -1; // index in `resolved` of the first missing component
  while (queue.length > 0) {
    const c = queue.shift()!;
    if (c === "..") {
      resolved.pop(); // never above the root
      if (resolved.length <= missingAt) missingAt = -1;
      continue;
    }
    if ((queue.length === 0 && !followFinal) || missingAt >= 0) {
      resolved.push(c);
      continue;
    }
    const target = yield join(root, [...resolved, c]);
    if (target === undefined) missingAt = resolved.length;
    if (target === null || target === undefined) {
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
  return { hostPath: join(root, resolved), exists: missingAt < 0 };
}

function isMissing(e: unknown): boolean {
  return e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory;
}

function linkTargetSync(hostPath: string): Lookup {
  try {
    const st = Deno.lstatSync(hostPath);
    return st.isSymlink ? Deno.readLinkSync(hostPath) : null;
  } catch (e) {
    if (isMissing(e)) return undefined;
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
  return lookupInRootSync(root, path, options).hostPath;
}

/**
 * {@link resolveInRootSync}, and whether the path exists (every component looked up was
 * there; with root `/`, nothing is looked up and it says true). A caller that only wants an
 * existing file saves asking again, which for a missing one costs another thrown error.
 */
export function lookupInRootSync(
  root: string,
  path: string,
  options: RootedResolveOptions = {},
): Walked {
  const r = trimRoot(root);
  const it = walk(r, path, options.followFinal ?? true);
  if (r === "/") return { hostPath: lexical(it), exists: true };
  let step = it.next();
  while (!step.done) step = it.next(linkTargetSync(step.value));
  return step.value;
}

/** Drives the walk without looking at the disk (no link is followed). */
function lexical(it: Generator<string, Walked, Lookup>): string {
  let step = it.next();
  while (!step.done) step = it.next(null);
  return step.value.hostPath;
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
 *
 * Synchronous file calls on purpose, like the walk: an existing level costs one `lstat` per
 * component and one `stat`, where async calls would cost a thread-pool round trip each.
 */
export function ensureDirInRootSync(root: string, path: string, mode: number): string {
  const r = trimRoot(root);
  if (r === "/") {
    const p = normalizeNodePath(path);
    Deno.mkdirSync(p, { recursive: true, mode });
    return p;
  }
  if (!isDirectorySync(r)) Deno.mkdirSync(r, { recursive: true, mode });
  let node = "";
  let host = r;
  for (const c of components(normalizeNodePath(path))) {
    node = `${node}/${c}`;
    host = resolveInRootSync(r, node);
    if (isDirectorySync(host)) continue;
    try {
      Deno.mkdirSync(host, { mode });
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    }
    // Whatever is there now must resolve to a directory inside the root.
    host = resolveInRootSync(r, node);
    if (!isDirectorySync(host)) {
      throw new RootedPathError(`${node} is not a directory (under the root ${r})`, {
        value: node,
      });
    }
  }
  return host;
}

/** Whether a directory is at the host path (following links); false when nothing is. */
function isDirectorySync(hostPath: string): boolean {
  try {
    return Deno.statSync(hostPath).isDirectory;
  } catch (e) {
    if (isMissing(e)) return false;
    throw e;
  }
}

/** A node path with `.`, `..` and repeated slashes resolved lexically: `/a//b/../c` → `/a/c`. */
export function normalizeNodePath(path: string): string {
  return lexical(walk("/", path, true));
}
