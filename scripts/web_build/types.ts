/**
 * Build step of `scripts/bundle`: one type-declaration file (`.d.ts`) per bundle entry, so that
 * TypeScript users of `dist/kubeadm-core.js` get the library's types. The declarations come
 * from the sources by `dts-bundle-generator` (pinned in `scripts/npm-tool`), with npm imports
 * resolved from Deno's npm cache as `deno.json` pins them; `kubernetes-types` is inlined, so
 * the file needs no package of its own.
 *
 * Usage: `deno run -A scripts/web_build/types.ts <entry.ts> <out.d.ts> [<entry.ts> <out.d.ts>
 * ...]`
 *
 * @module
 */

const repo = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

async function run(cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd: repo, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(
      `${cmd} ${args.join(" ")} failed:\n${text}${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return text;
}

/**
 * TypeScript `paths` for the npm packages of the import map (and, for the declarations they
 * import, every package the lockfile pins), in Deno's npm cache.
 */
export function npmPaths(
  imports: Record<string, string>,
  locked: readonly string[],
  npmCache: string,
): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  for (const key of locked) {
    const m = /^(@?[^@]+)@([^_]+)/.exec(key);
    if (m) paths[m[1]] ??= [`${npmCache}/registry.npmjs.org/${m[1]}/${m[2]}`];
  }
  for (const [name, target] of Object.entries(imports)) {
    const m = /^npm:\/?(@?[^@/]+(?:\/[^@/]+)?)@([^/]+)(\/.*)?$/.exec(target);
    if (!m) continue;
    const dir = `${npmCache}/registry.npmjs.org/${m[1]}/${m[2]}`;
    if (name.endsWith("/")) paths[`${name}*`] = [`${dir}/*`];
    else paths[name] = [`${dir}${m[3] ?? ""}`];
  }
  return paths;
}

if (import.meta.main) {
  const pairs = Deno.args;
  if (pairs.length === 0 || pairs.length % 2 !== 0) {
    console.error("usage: scripts/web_build/types.ts <entry.ts> <out.d.ts> [...]");
    Deno.exit(2);
  }
  const info = JSON.parse(await run(Deno.execPath(), ["info", "--json"]));
  const config = JSON.parse(await Deno.readTextFile(`${repo}/deno.json`));
  const lock = JSON.parse(await Deno.readTextFile(`${repo}/deno.lock`));
  const tmp = await Deno.makeTempDir({ prefix: "kubeadm-types-" });
  try {
    for (let i = 0; i < pairs.length; i += 2) {
      const entry = await Deno.realPath(pairs[i]);
      await run(Deno.execPath(), ["cache", "--quiet", entry]);
      const tsconfig = `${tmp}/tsconfig.json`;
      await Deno.writeTextFile(
        tsconfig,
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: "ESNext",
            moduleResolution: "Bundler",
            allowImportingTsExtensions: true,
            noEmit: true,
            strict: true,
            lib: ["ES2023", "DOM", "DOM.Iterable"],
            types: [],
            paths: npmPaths(config.imports, Object.keys(lock.npm ?? {}), info.npmCache),
          },
          files: [entry],
        }),
      );
      await run(`${repo}/scripts/npm-tool`, [
        "dts-bundle-generator",
        "--silent",
        "--no-banner",
        "--project",
        tsconfig,
        "--external-inlines",
        "kubernetes-types",
        "-o",
        pairs[i + 1],
        entry,
      ]);
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
