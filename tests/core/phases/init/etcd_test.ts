import assert from "node:assert/strict";
import { runLocalEtcd } from "../../../../core/phases/init/etcd.ts";
import { initDataFixture } from "../../../support/init_data_fixture.ts";
import { MemoryFileSystem } from "../../../support/memory_fs.ts";
import { FakeMachine } from "../../../support/fake_machine.ts";
import type { FakeNodeHost } from "../../../support/fake_node_host.ts";

Deno.test("runLocalEtcd() writes etcd.yaml (0600) with upstream's line", async () => {
  const { data, out, files } = initDataFixture();
  await runLocalEtcd(data);
  assert.deepStrictEqual(out.lines, [
    '[etcd] Creating static Pod manifest for local etcd in "/etc/kubernetes/manifests"',
  ]);
  assert.deepStrictEqual(files.writes.map((w) => [w.path, w.mode, w.kind]), [
    ["/etc/kubernetes/manifests/etcd.yaml", 0o600, "manifest"],
  ]);
  const text = files.text("/etc/kubernetes/manifests/etcd.yaml")!;
  assert.ok(text.includes("    - --initial-cluster=cp-1=https://192.168.0.10:2380\n"));
  assert.ok(text.includes("    image: registry.k8s.io/etcd:3.7.0-0\n"));
  assert.ok(!text.includes("env:"), "etcd gets no proxy env");
});

Deno.test("runLocalEtcd() in dry-run announces the data directory", async () => {
  const { data, out } = initDataFixture({ dryRun: true });
  data.cfg.cluster.etcd.local!.dataDir = "/data/etcd";
  await runLocalEtcd(data);
  assert.deepStrictEqual(out.lines, [
    '[etcd] Would ensure that "/data/etcd" directory is present',
    '[etcd] Creating static Pod manifest for local etcd in "/etc/kubernetes/manifests"',
  ]);
});

Deno.test("runLocalEtcd() does nothing with external etcd", async () => {
  const { data, out, files } = initDataFixture();
  data.cfg.cluster.etcd = { external: { endpoints: ["https://e1:2379"] } };
  await runLocalEtcd(data);
  assert.deepStrictEqual(out.lines, []);
  assert.equal(files.writes.length, 0);
});

Deno.test("runLocalEtcd() applies etcd patches and wraps failures", async () => {
  const files = new MemoryFileSystem({
    "/p/etcd.yaml":
      "spec:\n  containers:\n  - name: etcd\n    resources:\n      requests:\n        memory: 1Gi\n",
  });
  const { data, out } = initDataFixture({ files, patchesDir: "/p" });
  await runLocalEtcd(data);
  assert.ok(files.text("/etc/kubernetes/manifests/etcd.yaml")!.includes("        memory: 1Gi\n"));
  assert.equal(
    out.lines.at(-1),
    '[patches] Applied patch of type "application/strategic-merge-patch+json" to target "etcd"',
  );

  const bad = new MemoryFileSystem({
    "/p/etcd+json.yaml": "- op: test\n  path: /kind\n  value: Deployment\n",
  });
  const broken = initDataFixture({ files: bad, patchesDir: "/p" });
  await assert.rejects(
    runLocalEtcd(broken.data),
    /^KubeadmError: error creating local etcd static pod manifest file: failed to patch static Pod manifest file for "etcd": /,
  );
});

Deno.test("runLocalEtcd() creates the data directory (0700) through the node, as upstream", async () => {
  const { data } = initDataFixture({ machine: new FakeMachine() });
  data.cfg.cluster.etcd.local!.dataDir = "/data/etcd";
  await runLocalEtcd(data);
  assert.deepEqual([...(data.node as FakeNodeHost).dirModes], [["/data/etcd", 0o700]]);
});

Deno.test("runLocalEtcd(): a data directory that cannot be made fails with upstream's message, before the manifest", async () => {
  const { data, files } = initDataFixture({ machine: new FakeMachine() });
  (data.node as FakeNodeHost).ensureDir = () =>
    Promise.reject(new Error("mkdir /var/lib/etcd: read-only file system"));
  await assert.rejects(
    () => runLocalEtcd(data),
    {
      message:
        'failed to create the etcd data directory: "/var/lib/etcd": mkdir /var/lib/etcd: read-only file system',
    },
  );
  assert.equal(files.writes.length, 0);
});
