/** Repository paths and file listing for tests. */

/** Absolute path of the repository root. */
export const repoRoot: string = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** All files under `dir` (recursively) ending with `suffix`, sorted. */
export async function listFiles(dir: string, suffix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...await listFiles(p, suffix));
    else if (e.name.endsWith(suffix)) out.push(p);
  }
  return out.sort();
}
