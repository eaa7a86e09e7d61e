// The local node images (scripts/node-images): named as upstream kubeadm v1.37.2 names them
// for each deployable minor, and importable into a real containerd, which lists them under
// those names and runs each binary in a container of its image, kube-proxy's iptables tools
// from its mounted rootfs (`--verify` starts a scratch containerd with its own root, state and
// sockets in a temp dir).
import assert from "node:assert/strict";
import { run } from "../support/commands.ts";
import { repoRoot } from "../support/repo.ts";

const nodeImages = (...args: string[]) => run([`${repoRoot}/scripts/node-images`, ...args]);

// upstream kubeadm v1.37.2: images.GetKubernetesImage / GetEtcdImage (DefaultEtcdVersion and
// SupportedEtcdVersion[36] are 3.7.0-0) / GetPauseImage (PauseVersion 3.10.2) / GetDNSImage
// (CoreDNSVersion v1.14.6 for both minors).
const expected = (k8s: string) => [
  `registry.k8s.io/kube-apiserver:${k8s}`,
  `registry.k8s.io/kube-controller-manager:${k8s}`,
  `registry.k8s.io/kube-scheduler:${k8s}`,
  `registry.k8s.io/kube-proxy:${k8s}`,
  "registry.k8s.io/etcd:3.7.0-0",
  "registry.k8s.io/pause:3.10.2",
  "registry.k8s.io/coredns/coredns:v1.14.6",
];

for (const set of ["v1.37.2", "v1.36.3"]) {
  Deno.test(`node images of ${set} import into containerd under upstream's names`, async () => {
    const r = await nodeImages("--verify", "--set", set);
    assert.equal(r.code, 0, `scripts/node-images --verify --set ${set}:\n${r.stderr}`);
    const dir = r.stdout.trim().split("\n").pop()!;
    const listed = (await Deno.readTextFile(`${dir}/images.txt`)).trim().split("\n")
      .map((l) => l.split("\t")[0]);
    assert.deepEqual(listed.toSorted(), expected(set).toSorted());
    for (const ref of expected(set)) {
      assert.match(r.stderr, new RegExp(`ok ${ref.replaceAll(".", "\\.")}: `), `${ref} verified`);
    }
    assert.match(
      r.stderr,
      new RegExp(
        `ok registry\\.k8s\\.io/kube-proxy:${
          set.replaceAll(".", "\\.")
        }: iptables and ip6tables \\(nf_tables\\) restore and save`,
      ),
    );
    assert.match(
      r.stderr,
      /ok registry\.k8s\.io\/coredns\/coredns:v1\.14\.6: \/coredns -version -> CoreDNS-1\.14\.6\n/,
    );
    // Cached: up to date now, nothing rebuilt.
    const check = await nodeImages("--check", "--set", set);
    assert.equal(check.code, 0, check.stderr);
    assert.equal(check.stdout.trim(), dir);
  });
}

Deno.test("node-images refuses a set without a kubelet", async () => {
  const r = await nodeImages("--print-dir", "--set", "containerd");
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /no node images for set 'containerd'/);
});
