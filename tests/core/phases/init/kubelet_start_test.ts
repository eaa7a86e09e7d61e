import assert from "node:assert/strict";
import { runKubeletStart } from "../../../../core/phases/init/kubelet_start.ts";
import { initDataFixture } from "../../../support/init_data_fixture.ts";
import { MemoryFileSystem } from "../../../support/memory_fs.ts";
import { RecordingPrinter } from "../../../support/recording_printer.ts";

const LINES = {
  env:
    '[kubelet-start] Writing kubelet environment file with flags to file "/var/lib/kubelet/kubeadm-flags.env"',
  instance:
    '[kubelet-start] Writing kubelet configuration to file "/var/lib/kubelet/instance-config.yaml"',
  instancePatch:
    '[patches] Applied patch of type "application/strategic-merge-patch+json" to target "kubeletconfiguration"',
  config: '[kubelet-start] Writing kubelet configuration to file "/var/lib/kubelet/config.yaml"',
};

Deno.test("runKubeletStart() writes kubeadm-flags.env, instance-config.yaml and config.yaml (0644) with upstream's lines", async () => {
  const { data, out, files } = initDataFixture();
  await runKubeletStart(data);
  assert.deepStrictEqual(out.lines, [
    LINES.env,
    LINES.instance,
    LINES.instancePatch,
    LINES.config,
  ]);
  assert.deepStrictEqual(files.writes.map((w) => [w.path, w.mode, w.kind]), [
    ["/var/lib/kubelet/kubeadm-flags.env", 0o644, "env"],
    ["/var/lib/kubelet/instance-config.yaml", 0o644, "kubelet-config"],
    ["/var/lib/kubelet/config.yaml", 0o644, "kubelet-config"],
  ]);
  // kubeadm v1.37: no --container-runtime-endpoint, no --pod-infra-container-image.
  assert.equal(files.text("/var/lib/kubelet/kubeadm-flags.env"), 'KUBELET_KUBEADM_ARGS=""\n');
  assert.equal(
    files.text("/var/lib/kubelet/instance-config.yaml"),
    'containerRuntimeEndpoint: "unix:///var/run/containerd/containerd.sock"\n',
  );
  const config = files.text("/var/lib/kubelet/config.yaml")!;
  assert.ok(config.startsWith("apiVersion: kubelet.config.k8s.io/v1beta1\nauthentication:\n"));
  assert.ok(config.includes("\nstaticPodPath: /etc/kubernetes/manifests\n"));
  assert.ok(
    config.includes("\ncontainerRuntimeEndpoint: unix:///var/run/containerd/containerd.sock\n"),
  );
});

Deno.test("runKubeletStart() overrides the hostname when the node name differs", async () => {
  const { data, files } = initDataFixture({ host: { hostname: "host-a" } });
  await runKubeletStart(data);
  assert.equal(
    files.text("/var/lib/kubelet/kubeadm-flags.env"),
    'KUBELET_KUBEADM_ARGS="--hostname-override=cp-1"\n',
  );
});

Deno.test("runKubeletStart() points this node's config.yaml at systemd-resolved's resolv.conf, not the cluster's", async () => {
  const { data, files } = initDataFixture({
    host: { hostname: "cp-1", systemdResolvedActive: true },
  });
  await runKubeletStart(data);
  assert.ok(
    files.text("/var/lib/kubelet/config.yaml")!.includes(
      "\nresolvConf: /run/systemd/resolve/resolv.conf\n",
    ),
  );
  assert.equal(data.cfg.kubelet.resolvConf, undefined, "the uploaded configuration stays clean");
  const custom = initDataFixture({ host: { hostname: "cp-1", systemdResolvedActive: true } });
  custom.data.cfg.kubelet.resolvConf = "/etc/resolv.conf";
  const out = new RecordingPrinter();
  await runKubeletStart({ ...custom.data, out });
  assert.ok(out.warnings.some((l) => l.includes(`"resolvConf" in "KubeletConfiguration"`)));
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

Deno.test("runKubeletStart() applies kubeletconfiguration patches, then the instance config", async () => {
  const files = new MemoryFileSystem({
    "/patches/kubeletconfiguration.yaml": "maxPods: 64\nfeatureGates:\n  SomeGate: true\n",
  });
  const { data, out } = initDataFixture({ files, patchesDir: "/patches" });
  await runKubeletStart(data);
  assert.deepStrictEqual(out.lines, [
    LINES.env,
    LINES.instance,
    '[patches] Reading patches from path "/patches"',
    "[patches] Found the following patch files: [kubeletconfiguration.yaml]",
    '[patches] Applied patch of type "application/strategic-merge-patch+json" to target "kubeletconfiguration"',
    LINES.instancePatch,
    LINES.config,
  ]);
  const config = files.text("/var/lib/kubelet/config.yaml")!;
  assert.ok(config.includes("\nfeatureGates:\n  SomeGate: true\n"));
  assert.ok(config.includes("\nmaxPods: 64\n"));
});

Deno.test("runKubeletStart() is idempotent", async () => {
  const { data, files } = initDataFixture();
  await runKubeletStart(data);
  const first = files.snapshot();
  await runKubeletStart(data);
  assert.deepStrictEqual(files.snapshot(), first);
});
