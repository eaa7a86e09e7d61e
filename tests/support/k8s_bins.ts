/**
 * Where the real Kubernetes components (built by `scripts/k8s-bins`) are.
 *
 * Tests that need them fail (never skip) when they are missing: `scripts/test` builds them.
 *
 * @module
 */
import { repoRoot } from "./repo.ts";

let cached: string | undefined;

/** The directory holding etcd, kube-apiserver, …, kubectl and upstream kubeadm. */
export async function k8sBinDir(): Promise<string> {
  if (cached) return cached;
  let dir = Deno.env.get("KUBEADM_TS_BIN_DIR");
  if (!dir) {
    const out = await new Deno.Command(`${repoRoot}/scripts/k8s-bins`, {
      args: ["--print-dir"],
      stdout: "piped",
    }).output();
    dir = new TextDecoder().decode(out.stdout).trim().split("\n").pop();
  }
  for (
    const bin of [
      "etcd",
      "kube-apiserver",
      "kube-controller-manager",
      "kube-scheduler",
      "kubectl",
      "kubeadm",
    ]
  ) {
    try {
      await Deno.stat(`${dir}/${bin}`);
    } catch {
      throw new Error(`${dir}/${bin} is missing: run scripts/k8s-bins (scripts/test does)`);
    }
  }
  cached = dir!;
  return cached;
}

const setDirs = new Map<string, string>();

/**
 * The bin directory of a named `scripts/k8s-bins` set (`containerd`, `v1.37.2`, …), from `env`
 * when set, else from `scripts/k8s-bins --print-dir --set NAME`; fails (never skips) when one
 * of `bins` is missing there.
 */
export async function binSetDir(
  set: string,
  env: string,
  bins: readonly string[],
): Promise<string> {
  const known = setDirs.get(set);
  if (known) return known;
  let dir = Deno.env.get(env);
  if (!dir) {
    const out = await new Deno.Command(`${repoRoot}/scripts/k8s-bins`, {
      args: ["--print-dir", "--set", set],
      stdout: "piped",
      stderr: "piped",
    }).output();
    dir = new TextDecoder().decode(out.stdout).trim().split("\n").pop() ?? "";
    if (!out.success || dir === "") {
      throw new Error(
        `scripts/k8s-bins --print-dir --set ${set} failed (or set ${env}): ${
          new TextDecoder().decode(out.stderr).trim()
        }`,
      );
    }
  }
  for (const bin of bins) {
    try {
      await Deno.stat(`${dir}/${bin}`);
    } catch {
      throw new Error(
        `${dir}/${bin} is missing: run scripts/k8s-bins --set ${set} (scripts/test does)`,
      );
    }
  }
  setDirs.set(set, dir);
  return dir;
}
