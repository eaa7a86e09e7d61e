// The CRI client and the container runtime port against a real containerd v2.4.2 (from
// scripts/k8s-bins), started in its own network namespace with every path in a temp dir.
import assert from "node:assert/strict";
import { CriClient } from "../../../../adapters/deno/cri/client.ts";
import { CriSocketRuntime } from "../../../../adapters/deno/container_runtime.ts";
import { containerRuntimeCheck } from "../../../../core/preflight/checks/container_runtime.ts";
import { DenoMachine } from "../../../../adapters/deno/machine.ts";
import {
  type Containerd,
  PAUSE_IMAGE,
  startScratchContainerd,
} from "../../../support/containerd.ts";
import { createNetNamespace } from "../../../support/netns.ts";
import { importNodeImages } from "../../../support/node_images.ts";

async function withContainerd(use: (c: Containerd) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kts-ctd-" });
  const ns = await createNetNamespace();
  let containerd: Containerd | undefined;
  try {
    containerd = await startScratchContainerd(dir, ns);
    await use(containerd);
  } finally {
    await containerd?.stop();
    await ns.close();
    await Deno.remove(dir, { recursive: true });
  }
}

// A registry that refuses connections: pulls fail fast, without DNS or a network.
const UNREACHABLE_IMAGE = "127.0.0.1:1/kubeadm-ts/none:1";

Deno.test({
  name: "CRI client against containerd: every call kubeadm makes",
  async fn() {
    await withContainerd(async (containerd) => {
      await CriClient.with(containerd.endpoint, async (cri) => {
        assert.deepEqual(await cri.version(), {
          version: "0.1.0",
          runtimeName: "containerd",
          runtimeVersion: "v2.4.2",
          runtimeApiVersion: "v1",
        });
        const status = await cri.status();
        assert.equal(status.conditions.find((c) => c.type === "RuntimeReady")?.status, true);
        // No CNI configuration in the temp conf dir.
        assert.equal(status.conditions.find((c) => c.type === "NetworkReady")?.status, false);
        assert.deepEqual(status.info, {});
        const verbose = await cri.status(true);
        const config = JSON.parse(verbose.info.config);
        assert.equal(config.containerdEndpoint, containerd.socket);
        assert.equal(config.restrictOOMScoreAdj, true);
        assert.deepEqual(await cri.runtimeConfig(), { cgroupDriver: "cgroupfs" });

        assert.equal(await cri.imageStatus(PAUSE_IMAGE), undefined);
        await importNodeImages(containerd, containerd.endpoint, [PAUSE_IMAGE]);
        const pause = await cri.imageStatus(PAUSE_IMAGE);
        assert.ok(pause, "pause image not found after import");
        assert.ok(pause.repoTags.includes(PAUSE_IMAGE), String(pause.repoTags));
        assert.match(pause.id, /^sha256:[0-9a-f]{64}$/);
        assert.equal(pause.pinned, true, "the sandbox image is pinned");
        assert.ok(pause.size > 0n);

        assert.deepEqual(await cri.listPodSandbox(), []);
        // containerd treats stopping and removing an unknown sandbox as done.
        await cri.stopPodSandbox("0123456789abcdef");
        await cri.removePodSandbox("0123456789abcdef");
        assert.deepEqual(
          await cri.listContainers({
            "io.kubernetes.pod.namespace": "kube-system",
            "io.kubernetes.pod.name": "etcd-cp1",
          }),
          [],
        );
        // ... and stopping an unknown container.
        await cri.stopContainer("0123456789abcdef", 1);

        await assert.rejects(
          () => cri.pullImage(UNREACHABLE_IMAGE),
          /failed to pull and unpack image "127\.0\.0\.1:1\/kubeadm-ts\/none:1".*connection refused/,
        );
      });
    });
  },
});

Deno.test({
  name: "container runtime port against containerd: preflight's and reset's view",
  async fn() {
    await withContainerd(async (containerd) => {
      const rt = new CriSocketRuntime(containerd.endpoint);
      await rt.connect();
      await rt.isRunning();
      assert.deepEqual(await rt.runtimeConfig(), { cgroupDriver: "cgroupfs" });
      await importNodeImages(containerd, containerd.endpoint, [PAUSE_IMAGE]);
      assert.equal(await rt.imageExists(PAUSE_IMAGE), true);
      assert.equal(await rt.imageExists("registry.k8s.io/pause:0.0.0"), false);
      // containerd v2 reports its sandbox image as pinned_images.sandbox, not sandboxImage.
      assert.equal(await rt.sandboxImage(), undefined);
      assert.deepEqual(await rt.listKubePods(), []);
      await rt.removePods([]);
      assert.deepEqual(await rt.listPodContainers("kube-system", "etcd-cp1"), []);
      await assert.rejects(() => rt.pullImage(UNREACHABLE_IMAGE), /connection refused/);

      const result = await containerRuntimeCheck(containerd.endpoint).run(
        new DenoMachine({}),
      );
      assert.deepEqual(result.errors, []);
      assert.deepEqual(result.warnings, []);
    });
  },
});
