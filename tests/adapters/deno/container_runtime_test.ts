// The container runtime port's semantics on top of the CRI client (upstream's util/runtime),
// with a scripted client: what counts as running, absent images, pull and removal retries,
// error texts, and that every operation closes its connection.
import assert from "node:assert/strict";
import { CriCallError } from "../../../adapters/deno/cri/client.ts";
import type {
  ContainerInfo,
  PodSandbox,
  RuntimeStatusInfo,
} from "../../../adapters/deno/cri/messages.ts";
import {
  type CriCalls,
  CriSocketRuntime,
  PULL_IMAGE_ATTEMPTS,
  REMOVE_POD_ATTEMPTS,
} from "../../../adapters/deno/container_runtime.ts";

const SOCKET = "unix:///run/containerd/containerd.sock";

/** A scripted client: every call is recorded; each behaviour can be replaced. */
class ScriptedCri implements CriCalls {
  readonly log: string[] = [];
  closed = 0;
  statusResult: RuntimeStatusInfo | Error = {
    conditions: [
      { type: "RuntimeReady", status: true, reason: "", message: "" },
      { type: "NetworkReady", status: false, reason: "NetworkPluginNotReady", message: "no CNI" },
    ],
    info: {},
  };
  configResult: Awaited<ReturnType<CriCalls["runtimeConfig"]>> | Error = {
    cgroupDriver: "cgroupfs",
  };
  images = new Map<string, boolean | Error>();
  pullFailures = 0;
  sandboxes: PodSandbox[] = [];
  stopFails = new Set<string>();
  removeFails = new Set<string>();
  containers: ContainerInfo[] = [];

  #result<T>(v: T | Error): Promise<T> {
    return v instanceof Error ? Promise.reject(v) : Promise.resolve(v);
  }
  status(verbose?: boolean) {
    this.log.push(`status(${verbose})`);
    return this.#result(this.statusResult);
  }
  runtimeConfig() {
    this.log.push("runtimeConfig");
    return this.#result(this.configResult);
  }
  imageStatus(image: string) {
    this.log.push(`imageStatus ${image}`);
    const v = this.images.get(image) ?? false;
    if (v instanceof Error) return Promise.reject(v);
    return Promise.resolve(
      v
        ? { id: "sha256:1", repoTags: [image], repoDigests: [], size: 1n, pinned: false }
        : undefined,
    );
  }
  pullImage(image: string) {
    this.log.push(`pull ${image}`);
    if (this.pullFailures > 0) {
      this.pullFailures--;
      return Promise.reject(new Error(`pull failed, ${this.pullFailures} to go`));
    }
    return Promise.resolve("sha256:2");
  }
  listPodSandbox() {
    this.log.push("list");
    return Promise.resolve(this.sandboxes);
  }
  stopPodSandbox(id: string) {
    this.log.push(`stop ${id}`);
    return this.stopFails.has(id)
      ? Promise.reject(
        new CriCallError("runtime.v1.RuntimeService/StopPodSandbox", "Unknown", "busy"),
      )
      : Promise.resolve();
  }
  removePodSandbox(id: string) {
    this.log.push(`remove ${id}`);
    return this.removeFails.has(id) ? Promise.reject(new Error("in use")) : Promise.resolve();
  }
  listContainers(labels: Record<string, string>) {
    this.log.push(`listContainers ${JSON.stringify(labels)}`);
    return Promise.resolve(
      this.containers.filter((c) => Object.entries(labels).every(([k, v]) => c.labels[k] === v)),
    );
  }
  stopContainer(id: string, timeoutSeconds: number) {
    this.log.push(`stopContainer ${id} ${timeoutSeconds}`);
    return this.stopFails.has(id)
      ? Promise.reject(
        new CriCallError(
          "runtime.v1.RuntimeService/StopContainer",
          "NotFound",
          "no such container",
        ),
      )
      : Promise.resolve();
  }
  close() {
    this.closed++;
  }
}

function runtimeWith(cri: ScriptedCri): CriSocketRuntime {
  return new CriSocketRuntime(SOCKET, {
    open: (endpoint) => {
      assert.equal(endpoint, SOCKET);
      return Promise.resolve(cri);
    },
  });
}

const sandbox = (id: string): PodSandbox => ({
  id,
  metadata: { name: id, uid: "", namespace: "kube-system", attempt: 0 },
  state: "SANDBOX_READY",
  createdAt: 0n,
  labels: {},
  annotations: {},
  runtimeHandler: "",
});

Deno.test("container runtime: only RuntimeReady decides whether the runtime runs", async () => {
  const cri = new ScriptedCri();
  const rt = runtimeWith(cri);
  await rt.isRunning();
  cri.statusResult = {
    conditions: [{ type: "RuntimeReady", status: false, reason: "Broken", message: "runc gone" }],
    info: {},
  };
  await assert.rejects(() => rt.isRunning(), {
    message:
      'container runtime condition "RuntimeReady" is not true. reason: Broken, message: runc gone',
  });
  cri.statusResult = new Error("rpc error: code = Unavailable desc = connection refused");
  await assert.rejects(() => rt.isRunning(), /code = Unavailable/);
  assert.deepEqual(cri.log, ["status(false)", "status(false)", "status(false)"]);
  assert.equal(cri.closed, 3);
});

Deno.test("container runtime: RuntimeConfig, unimplemented, or failing", async () => {
  const cri = new ScriptedCri();
  const rt = runtimeWith(cri);
  assert.deepEqual(await rt.runtimeConfig(), { cgroupDriver: "cgroupfs" });
  cri.configResult = {};
  assert.deepEqual(await rt.runtimeConfig(), {});
  cri.configResult = new CriCallError(
    "runtime.v1.RuntimeService/RuntimeConfig",
    "Unimplemented",
    "x",
  );
  assert.equal(await rt.runtimeConfig(), undefined);
  cri.configResult = new CriCallError(
    "runtime.v1.RuntimeService/RuntimeConfig",
    "Internal",
    "boom",
  );
  await assert.rejects(() => rt.runtimeConfig(), {
    message: "failed to call RuntimeConfig gRPC method: rpc error: code = Internal desc = boom",
  });
  assert.equal(cri.closed, 4);
});

Deno.test("container runtime: a failing image status counts as absent", async () => {
  const cri = new ScriptedCri();
  cri.images.set("a:1", true);
  cri.images.set("b:1", new Error("deadline"));
  const rt = runtimeWith(cri);
  assert.equal(await rt.imageExists("a:1"), true);
  assert.equal(await rt.imageExists("b:1"), false);
  assert.equal(await rt.imageExists("c:1"), false);
});

Deno.test("container runtime: pulls are tried up to five times", async () => {
  assert.equal(PULL_IMAGE_ATTEMPTS, 5);
  const cri = new ScriptedCri();
  const rt = runtimeWith(cri);
  cri.pullFailures = 2;
  await rt.pullImage("e:1");
  assert.deepEqual(cri.log, ["pull e:1", "pull e:1", "pull e:1"]);
  cri.log.length = 0;
  cri.pullFailures = 99;
  await assert.rejects(() => rt.pullImage("e:1"), {
    message: "failed to pull image e:1: pull failed, 94 to go",
  });
  assert.equal(cri.log.length, PULL_IMAGE_ATTEMPTS);
  assert.equal(cri.closed, 2);
});

Deno.test("container runtime: the sandbox image from the verbose status' config", async () => {
  const cri = new ScriptedCri();
  const rt = runtimeWith(cri);
  cri.statusResult = {
    conditions: [],
    info: { config: '{"sandboxImage":"registry.k8s.io/pause:3.10"}' },
  };
  assert.equal(await rt.sandboxImage(), "registry.k8s.io/pause:3.10");
  assert.deepEqual(cri.log, ["status(true)"]);
  // containerd v2 reports pinned_images instead: upstream finds no sandbox image there.
  cri.statusResult = { conditions: [], info: { config: '{"pinned_images":{"sandbox":"x"}}' } };
  assert.equal(await rt.sandboxImage(), undefined);
  cri.statusResult = { conditions: [], info: { config: "{not json" } };
  assert.equal(await rt.sandboxImage(), undefined);
  cri.statusResult = new Error("down");
  assert.equal(await rt.sandboxImage(), undefined);
});

Deno.test("container runtime: every sandbox is listed, stopped, then removed", async () => {
  const cri = new ScriptedCri();
  cri.sandboxes = [sandbox("s1"), sandbox("s2")];
  const rt = runtimeWith(cri);
  const ids = await rt.listKubePods();
  assert.deepEqual(ids, ["s1", "s2"]);
  await rt.removePods(ids);
  assert.deepEqual(cri.log, ["list", "stop s1", "remove s1", "stop s2", "remove s2"]);
});

Deno.test("container runtime: removal retries each sandbox, then reports every failure", async () => {
  assert.equal(REMOVE_POD_ATTEMPTS, 5);
  const cri = new ScriptedCri();
  cri.stopFails.add("s1");
  const rt = runtimeWith(cri);
  await assert.rejects(() => rt.removePods(["s1", "s2"]), {
    message: "failed to stop running pod s1: rpc error: code = Unknown desc = busy",
  });
  assert.deepEqual(cri.log, [
    ...Array(REMOVE_POD_ATTEMPTS).fill("stop s1"),
    "stop s2",
    "remove s2",
  ]);
  cri.removeFails.add("s2");
  await assert.rejects(() => rt.removePods(["s1", "s2"]), {
    message:
      "[failed to stop running pod s1: rpc error: code = Unknown desc = busy, failed to remove pod s2: in use]",
  });
});

Deno.test("container runtime: a static Pod's containers by the kubelet's labels; stopping one", async () => {
  const cri = new ScriptedCri();
  const container = (id: string, pod: string, attempt: number, state: ContainerInfo["state"]) => ({
    id,
    podSandboxId: "s1",
    metadata: { name: "etcd", attempt },
    state,
    createdAt: 1764460800000000000n,
    labels: {
      "io.kubernetes.pod.name": pod,
      "io.kubernetes.pod.namespace": "kube-system",
      "io.kubernetes.pod.uid": `uid-${pod}`,
    },
  });
  cri.containers = [
    container("c0", "etcd-cp1", 0, "CONTAINER_EXITED"),
    container("c1", "etcd-cp1", 1, "CONTAINER_RUNNING"),
    container("c2", "etcd-cp2", 0, "CONTAINER_RUNNING"),
  ];
  const rt = runtimeWith(cri);
  assert.deepEqual(await rt.listPodContainers("kube-system", "etcd-cp1"), [
    { id: "c0", name: "etcd", attempt: 0, state: "exited", createdAt: 1764460800000 },
    { id: "c1", name: "etcd", attempt: 1, state: "running", createdAt: 1764460800000 },
  ]);
  await rt.stopContainer("c1", 30);
  cri.stopFails.add("c9");
  await assert.rejects(() => rt.stopContainer("c9", 30), {
    message: "failed to stop container c9: rpc error: code = NotFound desc = no such container",
  });
  assert.deepEqual(cri.log, [
    'listContainers {"io.kubernetes.pod.namespace":"kube-system","io.kubernetes.pod.name":"etcd-cp1"}',
    "stopContainer c1 30",
    "stopContainer c9 30",
  ]);
  assert.equal(cri.closed, 3, "every operation closes its connection");
});
