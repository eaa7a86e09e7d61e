import assert from "node:assert/strict";
import { runKubeletStart } from "../../../../core/phases/init/kubelet_start.ts";
import { initDataFixture } from "../../../support/init_data_fixture.ts";
import { MemoryFileSystem } from "../../../support/memory_fs.ts";

const ENV =
  'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10.2"\n';

Deno.test("runKubeletStart() writes kubeadm-flags.env and config.yaml (0644) with upstream's lines", async () => {
  const { data, out, files } = initDataFixture();
  data.cfg.cluster.featureGates = { NodeLocalCRISocket: false };
  await runKubeletStart(data);
  assert.deepStrictEqual(out.lines, [
    '[kubelet-start] Writing kubelet environment file with flags to file "/var/lib/kubelet/kubeadm-flags.env"',
    '[kubelet-start] Writing kubelet configuration to file "/var/lib/kubelet/config.yaml"',
  ]);
  assert.deepStrictEqual(files.writes.map((w) => [w.path, w.mode, w.kind]), [
    ["/var/lib/kubelet/kubeadm-flags.env", 0o644, "env"],
    ["/var/lib/kubelet/config.yaml", 0o644, "kubelet-config"],
  ]);
  assert.equal(files.text("/var/lib/kubelet/kubeadm-flags.env"), ENV);
  const config = files.text("/var/lib/kubelet/config.yaml")!;
  assert.ok(config.startsWith("apiVersion: kubelet.config.k8s.io/v1beta1\nauthentication:\n"));
  assert.ok(config.includes("\nstaticPodPath: /etc/kubernetes/manifests\n"));
});

Deno.test("runKubeletStart() overrides the hostname when the node name differs", async () => {
  const { data, files } = initDataFixture({ host: { hostname: "host-a" } });
  data.cfg.cluster.featureGates = { NodeLocalCRISocket: false };
  await runKubeletStart(data);
  assert.ok(
    files.text("/var/lib/kubelet/kubeadm-flags.env")!.includes(" --hostname-override=cp-1 "),
  );
});

Deno.test("runKubeletStart() stops and restarts the kubelet through hooks, not in dry-run", async () => {
  const calls: string[] = [];
  const hooks = {
    stopKubelet: () => Promise.resolve(void calls.push("stop")),
    restartKubelet: () => Promise.resolve(void calls.push("restart")),
  };
  const { data, out } = initDataFixture();
  await runKubeletStart(data, hooks);
  assert.deepStrictEqual(calls, ["stop", "restart"]);
  assert.equal(out.lines.at(-1), "[kubelet-start] Starting the kubelet");

  calls.length = 0;
  const dry = initDataFixture({ dryRun: true });
  await runKubeletStart(dry.data, hooks);
  assert.deepStrictEqual(calls, []);
  assert.ok(!dry.out.lines.includes("[kubelet-start] Starting the kubelet"));
});

Deno.test("runKubeletStart() applies kubeletconfiguration patches", async () => {
  const files = new MemoryFileSystem({
    "/patches/kubeletconfiguration.yaml": "maxPods: 64\nfeatureGates:\n  SomeGate: true\n",
  });
  const { data, out } = initDataFixture({ files, patchesDir: "/patches" });
  data.cfg.cluster.featureGates = { NodeLocalCRISocket: false };
  await runKubeletStart(data);
  assert.deepStrictEqual(out.lines, [
    '[kubelet-start] Writing kubelet environment file with flags to file "/var/lib/kubelet/kubeadm-flags.env"',
    '[patches] Reading patches from path "/patches"',
    "[patches] Found the following patch files: [kubeletconfiguration.yaml]",
    '[patches] Applied patch of type "application/strategic-merge-patch+json" to target "kubeletconfiguration"',
    '[kubelet-start] Writing kubelet configuration to file "/var/lib/kubelet/config.yaml"',
  ]);
  const config = files.text("/var/lib/kubelet/config.yaml")!;
  assert.ok(config.includes("\nfeatureGates:\n  SomeGate: true\n"));
  assert.ok(config.includes("\nmaxPods: 64\n"));
});

Deno.test("runKubeletStart() with NodeLocalCRISocket writes instance-config.yaml and merges it", async () => {
  const { data, out, files } = initDataFixture();
  data.cfg.cluster.featureGates = { NodeLocalCRISocket: true };
  await runKubeletStart(data);
  assert.deepStrictEqual(out.lines, [
    '[kubelet-start] Writing kubelet environment file with flags to file "/var/lib/kubelet/kubeadm-flags.env"',
    '[kubelet-start] Writing kubelet configuration to file "/var/lib/kubelet/instance-config.yaml"',
    '[patches] Applied patch of type "application/strategic-merge-patch+json" to target "kubeletconfiguration"',
    '[kubelet-start] Writing kubelet configuration to file "/var/lib/kubelet/config.yaml"',
  ]);
  assert.equal(
    files.text("/var/lib/kubelet/kubeadm-flags.env"),
    'KUBELET_KUBEADM_ARGS="--pod-infra-container-image=registry.k8s.io/pause:3.10.2"\n',
  );
  assert.equal(
    files.text("/var/lib/kubelet/instance-config.yaml"),
    'containerRuntimeEndpoint: "unix:///var/run/containerd/containerd.sock"\n',
  );
  assert.ok(
    files.text("/var/lib/kubelet/config.yaml")!.includes(
      "\ncontainerRuntimeEndpoint: unix:///var/run/containerd/containerd.sock\n",
    ),
  );
});

Deno.test("runKubeletStart() is idempotent", async () => {
  const { data, files } = initDataFixture();
  await runKubeletStart(data);
  const first = files.snapshot();
  await runKubeletStart(data);
  assert.deepStrictEqual(files.snapshot(), first);
});

Deno.test("runKubeletStart() follows 1.34's default: NodeLocalCRISocket on when no gate is set", async () => {
  const { data, files } = initDataFixture();
  data.cfg.cluster.featureGates = {};
  await runKubeletStart(data);
  assert.ok(
    files.text("/var/lib/kubelet/instance-config.yaml")?.includes("containerRuntimeEndpoint"),
  );
  assert.ok(
    !files.text("/var/lib/kubelet/kubeadm-flags.env")!.includes("--container-runtime-endpoint"),
  );
});
