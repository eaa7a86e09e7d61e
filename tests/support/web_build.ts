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

/** Builds everything into a new temp directory. */
export async function buildWeb(): Promise<WebBuild> {
  const dir = await Deno.makeTempDir({ prefix: "kubeadm-web-" });
  await run(`${repoRoot}/scripts/bundle`, [dir]);
  const vectors = `${dir}/vectors.mjs`;
  await run(`${repoRoot}/scripts/deno`, [
    "bundle",
    "--quiet",
    "--platform",
    "browser",
    "--format",
    "esm",
    "-o",
    vectors,
    "tests/support/vectors.ts",
  ]);
  return {
    dir,
    core: `${dir}/kubeadm-core.js`,
    verifyHtml: `${dir}/verify.html`,
    vectors,
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
}
