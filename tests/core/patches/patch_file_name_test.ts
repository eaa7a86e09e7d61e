import assert from "node:assert/strict";
import { KubeadmError } from "../../../core/errors.ts";
import { parsePatchFileName } from "../../../core/patches/patch_file_name.ts";

Deno.test("parsePatchFileName() reads target, suffix and patch type", () => {
  assert.deepStrictEqual(parsePatchFileName("kube-apiserver.yaml"), {
    target: "kube-apiserver",
    patchType: "application/strategic-merge-patch+json",
  });
  assert.deepStrictEqual(parsePatchFileName("etcd0+json.json"), {
    target: "etcd",
    patchType: "application/json-patch+json",
  });
  assert.deepStrictEqual(parsePatchFileName("kubeletconfiguration-memory+merge.yaml"), {
    target: "kubeletconfiguration",
    patchType: "application/merge-patch+json",
  });
  assert.deepStrictEqual(parsePatchFileName("corednsdeployment_1+strategic.json"), {
    target: "corednsdeployment",
    patchType: "application/strategic-merge-patch+json",
  });
});

Deno.test("parsePatchFileName() ignores unknown extensions and targets with upstream's reasons", () => {
  assert.deepStrictEqual(parsePatchFileName("kube-apiserver.yml"), {
    ignored: "the file extension must be one of [json yaml]",
  });
  assert.deepStrictEqual(parsePatchFileName("README.md"), {
    ignored: "the file extension must be one of [json yaml]",
  });
  assert.deepStrictEqual(parsePatchFileName("kube-proxy.yaml"), {
    ignored:
      "unknown target, must be one of [etcd kube-apiserver kube-controller-manager kube-scheduler kubeletconfiguration corednsdeployment kubeproxydaemonset]",
  });
  assert.ok(!("ignored" in parsePatchFileName("kubeproxydaemonset.yaml")), "a v1.37 target");
});

Deno.test("parsePatchFileName() rejects '+' without a known patch type", () => {
  for (const name of ["etcd+.yaml", "kube-scheduler+foo.json"]) {
    assert.throws(() => parsePatchFileName(name), (e: unknown) => {
      assert.ok(e instanceof KubeadmError);
      assert.equal(
        e.message,
        "unknown or missing patch type after '+', must be one of [json merge strategic]",
      );
      assert.equal(e.value, name);
      return true;
    });
  }
});
