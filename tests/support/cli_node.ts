/**
 * A control-plane node's files for the command line's tests: the PKI and kubeconfig files our
 * `init` phases write under a temporary `--rootfs` (ECDSA keys, for speed), with admin.conf
 * pointing nowhere so that any contact with a cluster fails; `kubeadm` runs the launcher on it,
 * `tree` reads every file back with its mode.
 *
 * @module
 */
import assert from "node:assert/strict";
import { run, type RunResult } from "./commands.ts";
import { listFiles, repoRoot } from "./repo.ts";

const CONFIG = `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: 192.0.2.30
nodeRegistration:
  name: cli-node
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
encryptionAlgorithm: ECDSA-P256
`;

/** Runs `scripts/kubeadm args --rootfs root`. */
export const kubeadm = (root: string, args: string[]): Promise<RunResult> =>
  run([`${repoRoot}/scripts/kubeadm`, ...args, "--rootfs", root]);

/** A node's PKI and kubeconfigs made by our init phases; admin.conf points nowhere. */
async function node(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "kts-cli-certs-" });
  await Deno.writeTextFile(`${root}/cfg.yaml`, CONFIG);
  for (const phase of ["certs", "kubeconfig"]) {
    const r = await kubeadm(root, ["init", "phase", phase, "all", "--config", `${root}/cfg.yaml`]);
    assert.equal(r.code, 0, r.stderr);
  }
  const admin = `${root}/etc/kubernetes/admin.conf`;
  await Deno.writeTextFile(
    admin,
    (await Deno.readTextFile(admin)).replace(/server: \S+/, "server: https://127.0.0.1:1"),
  );
  return root;
}

/** Every file under `root`: its mode (octal) and content. */
export async function tree(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const f of await listFiles(root, "")) {
    out.set(f, `${((await Deno.stat(f)).mode! & 0o777).toString(8)} ${await Deno.readTextFile(f)}`);
  }
  return out;
}

/** Runs `fn` on a fresh node's root, removed afterwards. */
export async function withNode(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await node();
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}
