// scripts/k8s-bins: every pinned set is built (scripts/test builds them) with the components
// at the versions upstream kubeadm pairs, and the dirs it prints are the ones it checks.
import assert from "node:assert/strict";
import { run } from "../support/commands.ts";
import { repoRoot } from "../support/repo.ts";

const k8sBins = (...args: string[]) => run([`${repoRoot}/scripts/k8s-bins`, ...args]);

async function version(bin: string, ...args: string[]): Promise<string> {
  const r = await run([bin, ...args]);
  assert.equal(r.code, 0, `${bin} ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

const nodeComponents = [
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "kube-proxy",
  "kubelet",
];
/** A set's binaries; `version`: a command of the set and a line its output must hold. */
const sets: Record<
  string,
  { k8s?: string; etcd?: string; bins: string[]; version?: [string[], RegExp] }
> = {
  "v1.37.2": { k8s: "v1.37.2", etcd: "3.7.0", bins: [...nodeComponents, "kubectl", "kubeadm"] },
  "v1.36.3": { k8s: "v1.36.3", etcd: "3.7.0", bins: nodeComponents },
  containerd: {
    bins: ["containerd", "ctr", "containerd-shim-runc-v2"],
    version: [
      ["containerd", "--version"],
      /^containerd github\.com\/containerd\/containerd\/v2 v2\.4\.2/m,
    ],
  },
  // upstream kubeadm v1.37.2: constants.CoreDNSVersion.
  coredns: { bins: ["coredns"], version: [["coredns", "-version"], /^CoreDNS-1\.14\.6$/m] },
};

Deno.test("k8s-bins --list names every set with its dir, the default first", async () => {
  const r = await k8sBins("--list");
  assert.equal(r.code, 0, r.stderr);
  const rows = r.stdout.trim().split("\n").map((l) => l.split("\t"));
  assert.deepEqual(rows.map((row) => row[0]).toSorted(), Object.keys(sets).toSorted());
  const def = await k8sBins("--default");
  assert.equal(rows[0][0], def.stdout.trim());
  // kubeadm-ts matches upstream kubeadm v1.37.2: its set is the default.
  assert.equal(def.stdout.trim(), "v1.37.2");
  for (const [name, dir, state] of rows) {
    assert.equal(state, "ok", `set ${name} is built`);
    const printed = await k8sBins("--print-dir", "--set", name);
    assert.equal(printed.stdout.trim(), dir);
  }
});

for (const [name, want] of Object.entries(sets)) {
  Deno.test(`k8s-bins set ${name}: binaries at their pinned versions`, async () => {
    const r = await k8sBins("--check", "--set", name);
    assert.equal(r.code, 0, r.stderr);
    const dir = r.stdout.trim().split("\n").pop()!;
    for (const bin of want.bins) {
      if (bin === "kubeadm") {
        assert.equal((await version(`${dir}/kubeadm`, "version", "-o", "short")).trim(), want.k8s);
      } else if (bin === "kubectl") {
        assert.match(
          await version(`${dir}/kubectl`, "version", "--client"),
          new RegExp(`^Client Version: ${want.k8s}$`, "m"),
        );
      } else if (want.k8s) {
        assert.equal(
          (await version(`${dir}/${bin}`, "--version")).trim(),
          `Kubernetes ${want.k8s}`,
        );
      } else {
        assert.ok((await Deno.stat(`${dir}/${bin}`)).isFile);
      }
    }
    if (want.etcd) {
      assert.match(
        await version(`${dir}/etcd`, "--version"),
        new RegExp(`^etcd Version: ${want.etcd}$`, "m"),
      );
    } else {
      const [[bin, ...args], line] = want.version!;
      assert.match(await version(`${dir}/${bin}`, ...args), line);
    }
  });
}
