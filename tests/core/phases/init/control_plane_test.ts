import assert from "node:assert/strict";
import { runControlPlane } from "../../../../core/phases/init/control_plane.ts";
import { PkiDirectory } from "../../../../core/certs/pki_dir.ts";
import { webCryptoPort } from "../../../../adapters/crypto/webcrypto.ts";
import { parseKubeYamlOne } from "../../../../core/yaml/kube_yaml.ts";
import { initDataFixture } from "../../../support/init_data_fixture.ts";
import { MemoryFileSystem } from "../../../support/memory_fs.ts";

function usingExternalCA(files: MemoryFileSystem): Promise<boolean> {
  return new PkiDirectory(files, "/etc/kubernetes/pki", webCryptoPort).isKeyless("ca");
}

type PodDoc = { spec: { containers: { command: string[]; resources: unknown }[] } };

Deno.test("runControlPlane('all') writes the three manifests with mode 0600 and upstream's lines", async () => {
  const { data, out, files } = initDataFixture();
  await runControlPlane(data, "all");
  assert.deepStrictEqual(out.lines, [
    '[control-plane] Using manifest folder "/etc/kubernetes/manifests"',
    '[control-plane] Creating static Pod manifest for "kube-apiserver"',
    '[control-plane] Creating static Pod manifest for "kube-controller-manager"',
    '[control-plane] Creating static Pod manifest for "kube-scheduler"',
  ]);
  assert.deepStrictEqual(files.writes.map((w) => [w.path, w.mode, w.kind]), [
    ["/etc/kubernetes/manifests/kube-apiserver.yaml", 0o600, "manifest"],
    ["/etc/kubernetes/manifests/kube-controller-manager.yaml", 0o600, "manifest"],
    ["/etc/kubernetes/manifests/kube-scheduler.yaml", 0o600, "manifest"],
  ]);
  const pod = parseKubeYamlOne(
    files.text("/etc/kubernetes/manifests/kube-apiserver.yaml")!,
  ) as PodDoc;
  assert.equal(pod.spec.containers[0].command[0], "kube-apiserver");
});

Deno.test("runControlPlane() for one component writes only it, without the folder line", async () => {
  const { data, out, files } = initDataFixture();
  await runControlPlane(data, "kube-scheduler");
  assert.deepStrictEqual(out.lines, [
    '[control-plane] Creating static Pod manifest for "kube-scheduler"',
  ]);
  assert.deepStrictEqual([...files.files.keys()], [
    "/etc/kubernetes/manifests/kube-scheduler.yaml",
  ]);
});

Deno.test("runControlPlane() is idempotent: the same config yields identical bytes", async () => {
  const { data, files } = initDataFixture();
  await runControlPlane(data, "all");
  const first = files.snapshot();
  await runControlPlane(data, "all");
  assert.deepStrictEqual(files.snapshot(), first);
});

Deno.test("runControlPlane() applies --patches before writing", async () => {
  const files = new MemoryFileSystem({
    "/patches/kube-apiserver+merge.yaml":
      "spec:\n  containers:\n  - name: kube-apiserver\n    image: my/apiserver:v1\n",
    "/patches/kube-controller-manager.yaml":
      "spec:\n  containers:\n  - name: kube-controller-manager\n    resources:\n      requests:\n        cpu: 1\n",
  });
  const { data, out } = initDataFixture({ files, patchesDir: "/patches" });
  await runControlPlane(data, "all");
  assert.deepStrictEqual(out.lines, [
    '[control-plane] Using manifest folder "/etc/kubernetes/manifests"',
    '[control-plane] Creating static Pod manifest for "kube-apiserver"',
    '[patches] Reading patches from path "/patches"',
    "[patches] Found the following patch files: [kube-apiserver+merge.yaml kube-controller-manager.yaml]",
    '[patches] Applied patch of type "application/merge-patch+json" to target "kube-apiserver"',
    '[control-plane] Creating static Pod manifest for "kube-controller-manager"',
    '[patches] Applied patch of type "application/strategic-merge-patch+json" to target "kube-controller-manager"',
    '[control-plane] Creating static Pod manifest for "kube-scheduler"',
  ]);
  // A merge patch replaces the whole containers list.
  const apiserver = files.text("/etc/kubernetes/manifests/kube-apiserver.yaml")!;
  assert.ok(
    apiserver.includes(
      "  containers:\n  - image: my/apiserver:v1\n    name: kube-apiserver\n  hostNetwork: true\n",
    ),
  );
  const kcm = parseKubeYamlOne(
    files.text("/etc/kubernetes/manifests/kube-controller-manager.yaml")!,
  ) as PodDoc;
  assert.deepStrictEqual(kcm.spec.containers[0].resources, { requests: { cpu: "1" } });
  assert.equal(kcm.spec.containers[0].command[0], "kube-controller-manager");
});

Deno.test("runControlPlane() reports a failing patch with the component", async () => {
  const files = new MemoryFileSystem({
    "/patches/kube-scheduler+json.yaml": "- op: remove\n  path: /spec/nope\n",
  });
  const { data } = initDataFixture({ files, patchesDir: "/patches" });
  await assert.rejects(
    runControlPlane(data, "kube-scheduler"),
    /^KubeadmError: failed to patch static Pod manifest file for "kube-scheduler": could not apply the following patch/,
  );
  assert.equal(files.writes.length, 0);
});

Deno.test("runControlPlane() uses empty signing files when ca.key is absent (external CA)", async () => {
  const files = new MemoryFileSystem({ "/etc/kubernetes/pki/ca.crt": "CERT" });
  assert.equal(await usingExternalCA(files), true);
  const { data } = initDataFixture({ files });
  await runControlPlane(data, "kube-controller-manager");
  const text = files.text("/etc/kubernetes/manifests/kube-controller-manager.yaml")!;
  assert.ok(text.includes("    - --cluster-signing-cert-file=\n"));
  assert.ok(text.includes("    - --cluster-signing-key-file=\n"));
  files.put("/etc/kubernetes/pki/ca.key", "KEY");
  assert.equal(await usingExternalCA(files), false);
  assert.equal(await usingExternalCA(new MemoryFileSystem()), false);
});

Deno.test("runControlPlane() warns about authorization-mode for every component it writes", async () => {
  const { data, out } = initDataFixture();
  data.cfg.cluster.apiServer.extraArgs = [{ name: "authorization-mode", value: "Node,Webhook" }];
  await runControlPlane(data, "all");
  const warning =
    'the default kube-apiserver authorization-mode is "Node,RBAC"; using "Node,Webhook"';
  assert.deepStrictEqual(out.warnings, [warning, warning, warning]);
});

Deno.test("runControlPlane() mounts the host's CA-trust dirs and copies its proxy env", async () => {
  const { data, files } = initDataFixture({
    host: {
      existingDirs: new Set(["/etc/pki/ca-trust"]),
      proxyEnv: { HTTPS_PROXY: "http://proxy:3128" },
    },
  });
  await runControlPlane(data, "kube-apiserver");
  const text = files.text("/etc/kubernetes/manifests/kube-apiserver.yaml")!;
  assert.ok(text.includes("    name: etc-pki-ca-trust\n"));
  assert.ok(text.includes("    env:\n    - name: HTTPS_PROXY\n      value: http://proxy:3128\n"));
});
