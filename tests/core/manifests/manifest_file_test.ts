import assert from "node:assert/strict";
import {
  buildStaticPod,
  canonicalQuantity,
  patchStaticPod,
  staticPodManifestPath,
  staticPodManifestYaml,
} from "../../../core/manifests/manifest_file.ts";
import { manifestInputFromInit } from "../../../core/manifests/manifest_input.ts";
import { PatchManager } from "../../../core/patches/patch_manager.ts";
import { PatchType } from "../../../core/patches/patch_file_name.ts";
import { initConfigFixture } from "../../support/init_config_fixture.ts";
import { resolveForTest } from "../../support/config.ts";

// Golden manifests in upstream v1.37's on-disk layout (as kubeadm 1.37 writes them: sorted keys,
// unindented sequences, no creationTimestamp, `status: {}`). The `.golden` extension keeps
// `deno fmt` from re-indenting their YAML.
const testdata = new URL("./testdata/", import.meta.url);

async function expected(name: string): Promise<string> {
  return await Deno.readTextFile(new URL(name, testdata));
}

Deno.test("staticPodManifestYaml() matches upstream's layout for kube-apiserver", async () => {
  const input = manifestInputFromInit(initConfigFixture(), {
    existingDirs: new Set([
      "/etc/ca-certificates",
      "/usr/share/ca-certificates",
      "/usr/local/share/ca-certificates",
    ]),
  });
  assert.equal(
    staticPodManifestYaml(buildStaticPod("kube-apiserver", input)),
    await expected("kube-apiserver.golden"),
  );
});

Deno.test("staticPodManifestYaml() matches upstream's layout for kube-controller-manager", async () => {
  const input = manifestInputFromInit(initConfigFixture(), {
    existingDirs: new Set(["/etc/pki/tls/certs"]),
  });
  assert.equal(
    staticPodManifestYaml(buildStaticPod("kube-controller-manager", input)),
    await expected("kube-controller-manager.golden"),
  );
});

Deno.test("staticPodManifestYaml() matches upstream's layout for kube-scheduler and etcd", async () => {
  const input = manifestInputFromInit(initConfigFixture(), { proxyEnv: {} });
  assert.equal(
    staticPodManifestYaml(buildStaticPod("kube-scheduler", input)),
    await expected("kube-scheduler.golden"),
  );
  assert.equal(staticPodManifestYaml(buildStaticPod("etcd", input)), await expected("etcd.golden"));
});

Deno.test("staticPodManifestYaml() is deterministic", () => {
  const input = manifestInputFromInit(initConfigFixture(), {
    proxyEnv: { no_proxy: "x", HTTP_PROXY: "y" },
  });
  const a = staticPodManifestYaml(buildStaticPod("kube-apiserver", input));
  const b = staticPodManifestYaml(buildStaticPod("kube-apiserver", input));
  assert.equal(a, b);
  assert.ok(
    a.includes(
      '\n    env:\n    - name: HTTP_PROXY\n      value: "y"\n    - name: no_proxy\n      value: x\n    image:',
    ),
  );
});

Deno.test("staticPodManifestPath() joins dir and component", () => {
  assert.equal(
    staticPodManifestPath("/etc/kubernetes/manifests/", "etcd"),
    "/etc/kubernetes/manifests/etcd.yaml",
  );
});

const pod = () => buildStaticPod("kube-apiserver", manifestInputFromInit(initConfigFixture()));

Deno.test("patchStaticPod() applies a strategic merge patch on containers by name", () => {
  const lines: string[] = [];
  const manager = new PatchManager(
    [{
      file: "kube-apiserver.yaml",
      target: "kube-apiserver",
      patchType: PatchType.strategic,
      patches: [{
        spec: {
          containers: [{
            name: "kube-apiserver",
            resources: { requests: { cpu: "500m" } },
            env: [{ name: "GOMAXPROCS", value: "2" }],
          }],
        },
      }],
    }],
    undefined,
    (l) => lines.push(l),
  );
  const patched = patchStaticPod(pod(), manager);
  const c = patched.spec!.containers[0];
  assert.deepStrictEqual(c.resources, { requests: { cpu: "500m" } });
  assert.deepStrictEqual(c.env, [{ name: "GOMAXPROCS", value: "2" }]);
  assert.equal(c.command![0], "kube-apiserver", "unpatched fields kept");
  assert.deepStrictEqual(patched.status, {});
  assert.deepStrictEqual(lines, [
    '[patches] Applied patch of type "application/strategic-merge-patch+json" to target "kube-apiserver"',
  ]);
});

Deno.test("patchStaticPod() applies merge and JSON patches in file order", () => {
  const manager = new PatchManager([
    {
      file: "kube-apiserver0+merge.yaml",
      target: "kube-apiserver",
      patchType: PatchType.merge,
      patches: [{ metadata: { labels: { extra: "yes", tier: null } } }],
    },
    {
      file: "kube-apiserver1+json.json",
      target: "kube-apiserver",
      patchType: PatchType.json,
      patches: [[
        { op: "add", path: "/spec/containers/0/command/-", value: "--v=5" },
        { op: "replace", path: "/spec/containers/0/ports/0/containerPort", value: 8443 },
      ]],
    },
    { file: "etcd.yaml", target: "etcd", patchType: PatchType.merge, patches: [{ spec: null }] },
  ]);
  const patched = patchStaticPod(pod(), manager);
  assert.deepStrictEqual(patched.metadata!.labels, { component: "kube-apiserver", extra: "yes" });
  assert.equal(patched.spec!.containers[0].command!.at(-1), "--v=5");
  assert.equal(patched.spec!.containers[0].ports![0].containerPort, 8443);
});

Deno.test("patchStaticPod() wraps a failing patch with its type, target and content", () => {
  const manager = new PatchManager([{
    file: "kube-apiserver+json.yaml",
    target: "kube-apiserver",
    patchType: PatchType.json,
    patches: [[{ op: "remove", path: "/spec/nothere" }]],
  }]);
  assert.throws(() => patchStaticPod(pod(), manager), (e: Error) => {
    assert.match(
      e.message,
      /^could not apply the following patch of type "application\/json-patch\+json" to target "kube-apiserver":\n\[\{"op":"remove","path":"\/spec\/nothere"\}\]\n: /,
    );
    return true;
  });
});

Deno.test("manifests built from a config resolved by core/config match the goldens", async () => {
  const { config } = resolveForTest(
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nlocalAPIEndpoint:\n" +
      "  advertiseAddress: 192.168.0.10\nnodeRegistration:\n  name: cp-1\n---\n" +
      "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.37.2\n",
  );
  const input = manifestInputFromInit(config, { existingDirs: new Set(["/etc/pki/tls/certs"]) });
  assert.equal(staticPodManifestYaml(buildStaticPod("etcd", input)), await expected("etcd.golden"));
  assert.equal(
    staticPodManifestYaml(buildStaticPod("kube-controller-manager", input)),
    await expected("kube-controller-manager.golden"),
  );
});

Deno.test("canonicalQuantity() prints numbers like resource.Quantity", () => {
  assert.equal(canonicalQuantity(1), "1");
  assert.equal(canonicalQuantity(0.5), "500m");
  assert.equal(canonicalQuantity(1.25), "1250m");
  assert.equal(canonicalQuantity(2000), "2k");
  assert.equal(canonicalQuantity(1500), "1500");
  assert.equal(canonicalQuantity(0.0001), "100u");
  assert.equal(canonicalQuantity(0), "0");
});
