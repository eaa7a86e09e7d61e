import assert from "node:assert/strict";
import { KubeadmError } from "../../../core/errors.ts";
import { patchManagerFor, readPatchManager } from "../../../core/patches/patch_manager.ts";
import { kubeletConfigurationSchema } from "../../../core/patches/patch_schemas.ts";
import { MemoryFileSystem } from "../../support/memory_fs.ts";

const TARGETS =
  "[etcd kube-apiserver kube-controller-manager kube-scheduler kubeletconfiguration corednsdeployment kubeproxydaemonset]";

function patchDir(): MemoryFileSystem {
  return new MemoryFileSystem({
    "/patches/README.md": "notes",
    "/patches/etcd+json.json": '[{"op": "add", "path": "/metadata/labels/x", "value": "y"}]',
    "/patches/kube-apiserver.yaml":
      'metadata:\n  labels:\n    one: "1"\n---\nmetadata:\n  labels:\n    two: "2"\n',
    "/patches/kube-proxy.yaml": "a: b\n",
    "/patches/kube-scheduler.yaml": "",
    "/patches/sub/kube-scheduler+merge.yaml": 'metadata:\n  labels:\n    deep: "yes"\n',
  });
}

Deno.test("readPatchManager() walks the directory like upstream and reports found/ignored files", async () => {
  const lines: string[] = [];
  const manager = await readPatchManager(patchDir(), "/patches", (l) => lines.push(l));
  assert.deepStrictEqual(lines, [
    '[patches] Reading patches from path "/patches"',
    '[patches] Ignoring file "README.md": the file extension must be one of [json yaml]',
    `[patches] Ignoring file "kube-proxy.yaml": unknown target, must be one of ${TARGETS}`,
    '[patches] Ignoring empty file: "kube-scheduler.yaml"',
    "[patches] Found the following patch files: [etcd+json.json kube-apiserver.yaml kube-scheduler+merge.yaml]",
    "[patches] Ignored the following files: [README.md kube-proxy.yaml kube-scheduler.yaml]",
  ]);
  assert.deepStrictEqual(
    manager.patchSets.map((s) => [s.file, s.target, s.patchType, s.patches.length]),
    [
      ["etcd+json.json", "etcd", "application/json-patch+json", 1],
      ["kube-apiserver.yaml", "kube-apiserver", "application/strategic-merge-patch+json", 2],
      ["kube-scheduler+merge.yaml", "kube-scheduler", "application/merge-patch+json", 1],
    ],
  );
});

Deno.test("PatchManager.apply() applies every document of every file for the target", async () => {
  const lines: string[] = [];
  const manager = await readPatchManager(patchDir(), "/patches", (l) => lines.push(l));
  lines.length = 0;
  const out = manager.apply("kube-apiserver", { metadata: { name: "kube-apiserver" } });
  assert.deepStrictEqual(out, {
    metadata: { name: "kube-apiserver", labels: { one: "1", two: "2" } },
  });
  assert.deepStrictEqual(lines, [
    '[patches] Applied patch of type "application/strategic-merge-patch+json" to target "kube-apiserver"',
    '[patches] Applied patch of type "application/strategic-merge-patch+json" to target "kube-apiserver"',
  ]);
  lines.length = 0;
  assert.deepStrictEqual(manager.apply("kube-controller-manager", { a: 1 }), { a: 1 });
  assert.deepStrictEqual(lines, []);
  assert.throws(() => manager.apply("kube-proxy", {}), /unknown patch target name "kube-proxy"/);
});

Deno.test("PatchManager.apply() patches a KubeletConfiguration", async () => {
  const files = new MemoryFileSystem({
    "/p/kubeletconfiguration.yaml":
      "maxPods: 50\nclusterDNS:\n- 10.0.0.10\nfeatureGates:\n  A: true\n",
    "/p/kubeletconfiguration1+json.yaml": "- op: remove\n  path: /cgroupDriver\n",
  });
  const manager = await readPatchManager(files, "/p", () => {});
  assert.deepStrictEqual(
    manager.apply(
      "kubeletconfiguration",
      { cgroupDriver: "systemd", clusterDNS: ["10.96.0.10"], featureGates: { B: false } },
      kubeletConfigurationSchema,
    ),
    { clusterDNS: ["10.0.0.10"], featureGates: { A: true, B: false }, maxPods: 50 },
  );
});

Deno.test("readPatchManager() fails on '+' without a patch type and on a missing directory", async () => {
  const bad = new MemoryFileSystem({ "/p/etcd+.yaml": "a: b\n" });
  await assert.rejects(readPatchManager(bad, "/p", () => {}), (e: unknown) => {
    assert.ok(e instanceof KubeadmError);
    assert.equal(
      e.message,
      `could not list patch files for path "/p": unknown or missing patch type after '+', must be one of [json merge strategic]`,
    );
    return true;
  });
  await assert.rejects(
    readPatchManager(new MemoryFileSystem(), "/nope", () => {}),
    /could not list patch files for path "\/nope": lstat \/nope: no such file or directory/,
  );
  await assert.rejects(
    readPatchManager(new MemoryFileSystem({ "/f": "x" }), "/f", () => {}),
    /not a directory/,
  );
});

Deno.test("patchManagerFor() reads a directory once per file system", async () => {
  const files = patchDir();
  const lines: string[] = [];
  const a = await patchManagerFor(files, "/patches", (l) => lines.push(l));
  const count = lines.length;
  const b = await patchManagerFor(files, "/patches", (l) => lines.push(l));
  assert.equal(a, b);
  assert.equal(lines.length, count);
  const other = await patchManagerFor(patchDir(), "/patches", (l) => lines.push(l));
  assert.notEqual(other, a);
  assert.equal(lines.length, count * 2);
});
