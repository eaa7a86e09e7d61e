/**
 * Builds the browser artefacts for tests: runs `scripts/bundle` into a fresh temp directory
 * and bundles the runtime-agnostic vectors (`tests/support/vectors.ts`) next to them, so that
 * Node and Chromium run them against the built `kubeadm-core.js`.
 *
 * @module
 */
import { repoRoot } from "./repo.ts";

/** Paths of one build. */
export interface WebBuild {
  dir: string;
  /** `kubeadm-core.js`. */
  core: string;
  /** `verify.html` (bundle inlined). */
  verifyHtml: string;
  /** `vectors.mjs`: the vectors, importing nothing at run time. */
  vectors: string;
  /** `plan_scenario.mjs`: the cross-runtime planning scenario, importing nothing at run time. */
  scenario: string;
  /** Removes the directory. */
  cleanup(): Promise<void>;
}

async function run(cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd: repoRoot, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")} failed (${out.code}):\n${text}`);
  return text;
}

/** Bundles a module (a path relative to the repository) into a standalone ES module. */
export async function bundleModule(
  entry: string,
  out: string,
  opts: { minify?: boolean } = {},
): Promise<void> {
  await run(`${repoRoot}/scripts/deno`, [
    "bundle",
    "--quiet",
    "--platform",
    "browser",
    "--format",
    "esm",
    ...(opts.minify ? ["--minify"] : []),
    "-o",
    out,
    entry,
  ]);
}

/**
 * Builds everything into a new temp directory; the type declarations only with `types`
 * (they take half a minute).
 */
export async function buildWeb(opts: { types?: boolean } = {}): Promise<WebBuild> {
  const dir = await Deno.makeTempDir({ prefix: "kubeadm-web-" });
  await run(`${repoRoot}/scripts/bundle`, opts.types ? [dir] : ["--no-types", dir]);
  const vectors = `${dir}/vectors.mjs`;
  const scenario = `${dir}/plan_scenario.mjs`;
  await bundleModule("tests/support/vectors.ts", vectors);
  await bundleModule("tests/support/plan_scenario.ts", scenario);
  return {
    dir,
    core: `${dir}/kubeadm-core.js`,
    verifyHtml: `${dir}/verify.html`,
    vectors,
    scenario,
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
}

/** A loopback HTTP server for the files of a build (flat names only). */
export function serveBuild(dir: string, index = "index.html"): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname.replace(/^\/$/, `/${index}`);
    if (!/^\/[\w.-]+$/.test(path)) return new Response("not found", { status: 404 });
    try {
      const body = await Deno.readFile(`${dir}${path}`);
      const type = path.endsWith(".html") ? "text/html" : "text/javascript";
      return new Response(body, { headers: { "content-type": type } });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
}
