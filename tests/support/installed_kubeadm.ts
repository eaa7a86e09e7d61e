/**
 * kubeadm-ts as a machine gets it: `scripts/install` (the pinned Deno and the bundled CLI, no
 * repository needed), for the tests and benchmarks that put `kubeadm` on a node's PATH.
 *
 * @module
 */
import { run } from "./commands.ts";
import { repoRoot } from "./repo.ts";

/** Runs `scripts/install --prefix prefix`; returns the installed `kubeadm`. */
export async function installKubeadm(prefix: string): Promise<string> {
  const r = await run([`${repoRoot}/scripts/install`, "--prefix", prefix]);
  if (r.code !== 0) throw new Error(`scripts/install failed:\n${r.stdout}\n${r.stderr}`);
  return `${prefix}/bin/kubeadm`;
}

let shared: Promise<string> | undefined;

/**
 * One install per test process, in a temp dir removed when the process ends: the `kubeadm` the
 * nodes of this process run.
 */
export function installedKubeadm(): Promise<string> {
  shared ??= (async () => {
    const prefix = await Deno.makeTempDir({ prefix: "kts-installed-" });
    globalThis.addEventListener("unload", () => Deno.removeSync(prefix, { recursive: true }));
    return await installKubeadm(prefix);
  })();
  return shared;
}
