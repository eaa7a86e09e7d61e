import assert from "node:assert/strict";
import {
  kubeletConfigFileContent,
  kubeletInstanceConfigContent,
} from "../../../core/kubelet/config_file.ts";
import { PatchManager } from "../../../core/patches/patch_manager.ts";
import { PatchType } from "../../../core/patches/patch_file_name.ts";
import { parseKubeYamlOne } from "../../../core/yaml/kube_yaml.ts";
import { kubeletConfigFixture } from "../../support/init_config_fixture.ts";
import { resolveForTest } from "../../support/config.ts";

// `.golden` (not `.yaml`) so `deno fmt` keeps upstream's unindented sequences.
Deno.test("kubeletConfigFileContent() writes the KubeletConfiguration in upstream's layout", async () => {
  const expected = await Deno.readTextFile(new URL("./testdata/config.golden", import.meta.url));
  assert.equal(kubeletConfigFileContent(kubeletConfigFixture()), expected);
  assert.equal(kubeletConfigFileContent(kubeletConfigFixture()), expected, "stable across calls");
});

Deno.test("kubeletConfigFileContent() applies strategic, merge and JSON patches in order", () => {
  const lines: string[] = [];
  const manager = new PatchManager(
    [
      {
        file: "kubeletconfiguration.yaml",
        target: "kubeletconfiguration",
        patchType: PatchType.strategic,
        patches: [{ maxPods: 42, clusterDNS: ["10.0.0.10"] }],
      },
      {
        file: "kubeletconfiguration1+merge.yaml",
        target: "kubeletconfiguration",
        patchType: PatchType.merge,
        patches: [{ authentication: { webhook: { cacheTTL: "2m0s" } }, memorySwap: null }],
      },
      {
        file: "kubeletconfiguration2+json.yaml",
        target: "kubeletconfiguration",
        patchType: PatchType.json,
        patches: [[{ op: "replace", path: "/cgroupDriver", value: "cgroupfs" }]],
      },
    ],
    undefined,
    (l) => lines.push(l),
  );
  const doc = parseKubeYamlOne(
    kubeletConfigFileContent(kubeletConfigFixture(), { patches: manager }),
  ) as Record<string, unknown>;
  assert.equal(doc.maxPods, 42);
  assert.deepStrictEqual(doc.clusterDNS, ["10.0.0.10"]);
  assert.equal((doc.authentication as { webhook: { cacheTTL: string } }).webhook.cacheTTL, "2m0s");
  assert.equal(doc.memorySwap, undefined);
  assert.equal(doc.cgroupDriver, "cgroupfs");
  assert.equal(doc.staticPodPath, "/etc/kubernetes/manifests");
  assert.deepStrictEqual(lines, [
    '[patches] Applied patch of type "application/strategic-merge-patch+json" to target "kubeletconfiguration"',
    '[patches] Applied patch of type "application/merge-patch+json" to target "kubeletconfiguration"',
    '[patches] Applied patch of type "application/json-patch+json" to target "kubeletconfiguration"',
  ]);
});

Deno.test("kubeletConfigFileContent() merges instance-config.yaml last (NodeLocalCRISocket)", () => {
  const lines: string[] = [];
  const instance = kubeletInstanceConfigContent("unix:///run/crio/crio.sock");
  assert.equal(instance, 'containerRuntimeEndpoint: "unix:///run/crio/crio.sock"\n');
  const text = kubeletConfigFileContent(kubeletConfigFixture(), {
    instanceConfig: instance,
    out: (l) => lines.push(l),
  });
  assert.ok(text.includes("\ncontainerRuntimeEndpoint: unix:///run/crio/crio.sock\n"));
  assert.deepStrictEqual(lines, [
    '[patches] Applied patch of type "application/strategic-merge-patch+json" to target "kubeletconfiguration"',
  ]);
});

Deno.test("kubeletConfigFileContent() of a config resolved by core/config matches the golden", async () => {
  const expected = await Deno.readTextFile(new URL("./testdata/config.golden", import.meta.url));
  assert.equal(kubeletConfigFileContent(resolveForTest().config.kubelet), expected);
});
