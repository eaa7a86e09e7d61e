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
