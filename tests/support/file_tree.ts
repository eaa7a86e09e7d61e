/**
 * Snapshots of a directory tree, to assert that a command changed (or did not change) files.
 *
 * @module
 */

/**
 * Every regular file under `root`, by path relative to it (`/etc/…`), mapped to `value` of the
 * file (default: its text; e.g. its mtime to notice rewrites of equal content).
 */
export async function fileTree(
  root: string,
  value: (path: string) => Promise<string> = (p) => Deno.readTextFile(p),
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (e.isFile) out.set(p.slice(root.length), await value(p));
    }
  };
  await walk(root);
  return out;
}

/** A file's modification time, for {@link fileTree}. */
export async function mtimeOf(path: string): Promise<string> {
  return (await Deno.stat(path)).mtime?.toISOString() ?? "";
}
