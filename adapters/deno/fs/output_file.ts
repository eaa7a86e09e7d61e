/**
 * An output file on this machine that the command line names by flag (`config migrate
 * --new-config`), outside the node's files (those go through `../files.ts`, under `--rootfs`).
 * Reading such files is `./capped_read.ts`.
 *
 * @module
 */

/**
 * Writes `text` where Go's `os.WriteFile` would: through a symlink to the file it names, into a
 * device or pipe (`/dev/stdout`), 0644 when created. A regular file (or a new one in an
 * existing directory) is replaced atomically (temp file + rename), its mode kept.
 */
export async function writeOutputFile(path: string, text: string): Promise<void> {
  const absolute = path.startsWith("/") ? path : `${Deno.cwd()}/${path}`;
  const cut = absolute.lastIndexOf("/");
  let target: string | undefined;
  try {
    target = await Deno.realPath(absolute);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
    // Missing (or a dangling link): a new file in its directory, when that exists.
    const dir = await Deno.realPath(absolute.slice(0, cut) || "/").catch(() => undefined);
    if (dir !== undefined && !(await Deno.lstat(absolute).catch(() => undefined))?.isSymlink) {
      target = `${dir === "/" ? "" : dir}/${absolute.slice(cut + 1)}`;
    }
  }
  const st = target === undefined ? undefined : await Deno.stat(target).catch(() => undefined);
  if (target === undefined || (st !== undefined && !st.isFile)) {
    // Not a regular file (a device, a pipe, a dangling link, a missing directory): written
    // into as upstream does, or failing as it fails.
    await Deno.writeTextFile(path, text, { mode: 0o644 });
    return;
  }
  const { HostFileSystem } = await import("../files.ts");
  await new HostFileSystem("/").write({
    path: target,
    data: text,
    mode: 0o644,
    kind: "other",
    keepExistingMode: true,
  });
}
