// The real-node harness (tests/support/node.ts): a node's namespaces, file layout and service
// manager, containerd reached through our CRI client, and tear-down leaving the host as it was.
import assert from "node:assert/strict";
import { CriClient } from "../../adapters/deno/cri/client.ts";
import { CriSocketRuntime } from "../../adapters/deno/container_runtime.ts";
import { PAUSE_IMAGE } from "../support/containerd.ts";
import {
  createNode,
  MACHINE_KUBELET_CONFIG,
  machineKubeletFlags,
  NODE_CRI_ENDPOINT,
  type TestNode,
} from "../support/node.ts";
import { importNodeImages, nodeImages } from "../support/node_images.ts";
import { repoRoot } from "../support/repo.ts";

async function withNode(use: (node: TestNode) => Promise<void>): Promise<void> {
  const node = await createNode();
  try {
    await use(node);
  } finally {
    await node.close();
  }
}

async function sh(node: TestNode, script: string): Promise<string> {
  const r = await node.exec(["sh", "-c", script]);
  assert.equal(r.code, 0, `${script}: ${r.stderr}`);
  return r.stdout;
}

Deno.test("real node: own namespaces and files, systemctl, containerd over CRI, clean tear-down", async () => {
  let dir = "";
  let cgroupRoot = "";
  await withNode(async (node) => {
    dir = node.dir;
    cgroupRoot = node.cgroupRoot;
    assert.equal((await sh(node, "hostname")).trim(), node.name);
    assert.match(
      await sh(node, "ip -4 -o addr show eth0"),
      new RegExp(` ${node.ip.replaceAll(".", "\\.")}/`),
    );
    assert.match(
      await sh(node, "getent hosts $(hostname)"),
      new RegExp(`^${node.ip.replaceAll(".", "\\.")} `),
    );

    // The node's own directories are the node directory's; other writes stay in the node.
    await sh(
      node,
      "echo hi > /etc/kubernetes/probe && echo x > /etc/kts-probe && mkdir -p /var/lib/kts-probe",
    );
    assert.equal(await Deno.readTextFile(node.hostPath("/etc/kubernetes/probe")), "hi\n");
    await assert.rejects(() => Deno.stat("/etc/kts-probe"), Deno.errors.NotFound);
    await assert.rejects(() => Deno.stat("/var/lib/kts-probe"), Deno.errors.NotFound);
    await assert.rejects(() => Deno.stat("/etc/kubernetes/probe"), Deno.errors.NotFound);

    // The kubelet's sysctls are the node's.
    const host = (await Deno.readTextFile("/proc/sys/vm/overcommit_memory")).trim();
    const other = host === "1" ? "0" : "1";
    await sh(node, `echo ${other} > /proc/sys/vm/overcommit_memory`);
    assert.equal((await sh(node, "cat /proc/sys/vm/overcommit_memory")).trim(), other);
    assert.equal((await Deno.readTextFile("/proc/sys/vm/overcommit_memory")).trim(), host);

    // systemctl inside the node drives the node's service manager.
    let r = await node.exec(["systemctl", "is-enabled", "kubelet"]);
    assert.deepEqual([r.code, r.stdout], [0, "enabled\n"]);
    r = await node.exec(["systemctl", "is-active", "kubelet"]);
    assert.deepEqual([r.code, r.stdout], [3, "inactive\n"]);
    r = await node.exec(["systemctl", "cat", "kubelet.service"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /EnvironmentFile=-\/var\/lib\/kubelet\/kubeadm-flags\.env/);
    assert.match(
      r.stdout,
      /ExecStart=\S+\/kubelet \$KUBELET_KUBECONFIG_ARGS \$KUBELET_CONFIG_ARGS \$KUBELET_KUBEADM_ARGS \$KUBELET_EXTRA_ARGS/,
    );
    r = await node.exec(["systemctl", "status", "nope"]);
    assert.equal(r.code, 4);

    // containerd, from the host through our CRI client and from inside through systemctl.
    const rt = new CriSocketRuntime(`unix://${node.criSocketOnHost}`);
    await rt.isRunning();
    assert.deepEqual(await rt.runtimeConfig(), { cgroupDriver: "cgroupfs" });
    r = await node.exec(["systemctl", "restart", "containerd"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(node.services.starts("containerd"), 2);
    let version: string | undefined;
    for (let i = 0; i < 100 && version === undefined; i++) {
      version = await CriClient.with(`unix://${node.criSocketOnHost}`, (c) => c.version())
        .then((v) => v.runtimeVersion, () => undefined);
      if (version === undefined) await new Promise((res) => setTimeout(res, 100));
    }
    assert.equal(version, "v2.4.2");
    const sockets = await sh(node, "ls /run/containerd");
    assert.match(sockets, /containerd\.sock/);
  });
  // Tear-down (which itself checks /dev/null, sysctls and mounts) removed everything.
  await assert.rejects(() => Deno.stat(dir), Deno.errors.NotFound);
  await assert.rejects(() => Deno.stat(`/sys/fs/cgroup/memory${cgroupRoot}`), Deno.errors.NotFound);
  await assert.rejects(() => Deno.stat("/run/containerd"), Deno.errors.NotFound);
});

/** A static etcd Pod on the host network: client on 127.0.0.1, health (metrics) on the node IP. */
function etcdManifest(node: TestNode, image: string): string {
  const peer = "http://127.0.0.1:2380";
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "etcd",
      namespace: "kube-system",
      labels: { component: "etcd", tier: "control-plane" },
    },
    spec: {
      hostNetwork: true,
      priorityClassName: "system-node-critical",
      securityContext: { seccompProfile: { type: "RuntimeDefault" } },
      containers: [{
        name: "etcd",
        image,
        imagePullPolicy: "Never",
        command: [
          "etcd",
          `--name=${node.name}`,
          "--data-dir=/var/lib/etcd",
          "--listen-client-urls=http://127.0.0.1:2379",
          "--advertise-client-urls=http://127.0.0.1:2379",
          `--listen-peer-urls=${peer}`,
          `--initial-advertise-peer-urls=${peer}`,
          `--initial-cluster=${node.name}=${peer}`,
          `--listen-metrics-urls=http://${node.ip}:2381`,
        ],
        volumeMounts: [{ name: "etcd-data", mountPath: "/var/lib/etcd" }],
      }],
      volumes: [{
        name: "etcd-data",
        hostPath: { path: "/var/lib/etcd", type: "DirectoryOrCreate" },
      }],
    },
  });
}

async function poll<T>(what: string, ms: number, f: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  while (true) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return await res.json();
}

Deno.test("real node: a standalone kubelet runs static etcd from the local images; our reset cleans it up", async () => {
  const images = await nodeImages();
  const etcdImage = [...images.keys()].find((r) => r.startsWith("registry.k8s.io/etcd:"));
  assert.ok(etcdImage, `no etcd image in ${[...images.keys()]}`);
  let dir = "";
  await withNode(async (node) => {
    dir = node.dir;
    await importNodeImages(node, `unix://${node.criSocketOnHost}`, [PAUSE_IMAGE, etcdImage]);
    const cri = new CriSocketRuntime(`unix://${node.criSocketOnHost}`);
    assert.equal(await cri.imageExists(etcdImage), true);

    // Standalone: /etc/default/kubelet also clears the drop-in's kubeconfig flags (an
    // EnvironmentFile overrides Environment=), so no API server is needed.
    await Deno.writeTextFile(node.hostPath("/etc/default/kubelet"), "KUBELET_KUBECONFIG_ARGS=\n", {
      append: true,
    });
    await Deno.writeTextFile(
      node.hostPath("/var/lib/kubelet/config.yaml"),
      JSON.stringify({
        apiVersion: "kubelet.config.k8s.io/v1beta1",
        kind: "KubeletConfiguration",
        staticPodPath: "/etc/kubernetes/manifests",
        containerRuntimeEndpoint: NODE_CRI_ENDPOINT,
        readOnlyPort: 10255,
        authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
        authorization: { mode: "AlwaysAllow" },
        ...MACHINE_KUBELET_CONFIG,
      }),
    );
    await Deno.mkdir(node.hostPath("/etc/kubernetes/manifests"), { recursive: true });
    await Deno.writeTextFile(
      node.hostPath("/etc/kubernetes/manifests/etcd.yaml"),
      etcdManifest(node, etcdImage),
    );

    const t0 = performance.now();
    const started = await node.exec(["systemctl", "start", "kubelet"]);
    assert.equal(started.code, 0, started.stderr);
    const health = await poll("etcd health", 120_000, async () => {
      const h = await getJson(`http://${node.ip}:2381/health`) as { health?: string };
      return h.health === "true" ? h : undefined;
    }).catch(async (e) => {
      throw new Error(
        `${e.message}\n--- kubelet log:\n${(await node.log("kubelet")).slice(-4000)}`,
      );
    });
    assert.equal(health.health, "true");
    const healthyAfter = performance.now() - t0;

    // The kubelet reports the Pod running; containerd has its sandbox, seen through our client.
    // (the kubelet's status may trail the container's health by a sync period)
    const phase = await poll("etcd Running in the kubelet's /pods", 30_000, async () => {
      const pods = await getJson(`http://${node.ip}:10255/pods`) as {
        items: { metadata: { name: string }; status: { phase?: string } }[] | null;
      };
      const p = pods.items?.find((p) => p.metadata.name === `etcd-${node.name}`)?.status.phase;
      return p === "Running" ? p : undefined;
    });
    assert.equal(phase, "Running");
    const sandboxes = await CriClient.with(
      `unix://${node.criSocketOnHost}`,
      (c) => c.listPodSandbox(),
    );
    const etcdSandbox = sandboxes.find((s) => s.metadata.name === `etcd-${node.name}`);
    assert.equal(etcdSandbox?.metadata.namespace, "kube-system");
    assert.equal(etcdSandbox?.state, "SANDBOX_READY");
    assert.equal(etcdSandbox?.labels["component"], "etcd");
    assert.ok(await Deno.stat(node.hostPath("/var/lib/etcd/member")));

    // Our reset, inside the node as on a real host: it stops the kubelet through systemctl and
    // removes the sandboxes through the CRI client.
    const reset = await node.exec([`${repoRoot}/scripts/kubeadm`, "reset", "--force"], {
      timeoutMs: 180_000,
    });
    assert.equal(reset.code, 0, `${reset.stdout}\n${reset.stderr}`);
    assert.doesNotMatch(reset.stderr, /Failed to remove containers/);
    assert.equal(node.services.isActive("kubelet"), false);
    assert.ok(
      node.services.history.some((a) => a.join(" ") === "stop kubelet"),
      JSON.stringify(node.services.history),
    );
    assert.deepEqual(await cri.listKubePods(), []);
    assert.deepEqual(
      await Array.fromAsync(Deno.readDir(node.hostPath("/etc/kubernetes/manifests"))),
      [],
    );
    assert.deepEqual(await Array.fromAsync(Deno.readDir(node.hostPath("/var/lib/etcd"))), []);
    console.log(`etcd healthy ${healthyAfter.toFixed(0)} ms after systemctl start kubelet`);
  });
  await assert.rejects(() => Deno.stat(dir), Deno.errors.NotFound);
  // (close() also compared the host's /etc/kubernetes, /var/lib/kubelet, … with before.)
  for (
    const p of [
      "/etc/kubernetes/manifests/etcd.yaml",
      "/var/lib/kubelet/config.yaml",
      "/var/lib/etcd/member",
      "/run/containerd/containerd.sock",
    ]
  ) {
    await assert.rejects(() => Deno.stat(p), Deno.errors.NotFound, p);
  }
});

Deno.test("real node: kubeadm's kubelet-start restarts the node's kubelet through systemctl, as the drop-in starts it, and kubelet v1.37 accepts its flags", async () => {
  await withNode(async (node) => {
    const r = await node.exec([`${repoRoot}/scripts/kubeadm`, "init", "phase", "kubelet-start"], {
      timeoutMs: 180_000,
    });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /\[kubelet-start\] Starting the kubelet/);
    assert.doesNotMatch(r.stderr, /WARNING/);
    // upstream's TryStopKubelet / TryStartKubelet, through the init-system port (a stop
    // without a reload, as upstream's ServiceStop).
    assert.deepEqual(node.services.history.map((a) => a.join(" ")), [
      "cat kubelet.service",
      "stop kubelet",
      "daemon-reload",
      "restart kubelet",
    ]);
    // The unit read kubeadm's flags file at start: $KUBELET_KUBEADM_ARGS is on the command line.
    const flags = await Deno.readTextFile(node.hostPath("/var/lib/kubelet/kubeadm-flags.env"));
    const kubeadmArgs = /^KUBELET_KUBEADM_ARGS="(.*)"$/m.exec(flags)?.[1];
    assert.ok(kubeadmArgs !== undefined, flags);
    const started = (await node.log("kubelet")).split("\n").find((l) => l.startsWith("--- start"));
    assert.ok(
      started?.endsWith(
        [
          "/kubelet --bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf",
          "--kubeconfig=/etc/kubernetes/kubelet.conf --config=/var/lib/kubelet/config.yaml",
          kubeadmArgs,
          ...machineKubeletFlags(node),
        ].filter((s) => s !== "").join(" "),
      ),
      `${started}
${await node.log("kubelet")}`,
    );
    // kubelet v1.37 accepts what kubeadm v1.37 writes: it parses the flags and loads the
    // configuration (the CRI socket from instance-config.yaml, merged into config.yaml); what
    // stops it later (no bootstrap kubeconfig, this host's cgroups) is not kubeadm's flags.
    const parsed = await poll("the kubelet past flag parsing", 60_000, async () => {
      const log = await node.log("kubelet");
      return log.includes('"Effective KubeletConfiguration"') ? log : undefined;
    });
    assert.doesNotMatch(parsed, /failed to parse kubelet flag|unknown flag/);
    assert.match(
      parsed,
      /^\s*containerRuntimeEndpoint: unix:\/\/\/var\/run\/containerd\/containerd\.sock$/m,
    );
    // What kubeadm v1.34 wrote is refused by kubelet v1.37.
    await Deno.writeTextFile(
      node.hostPath("/var/lib/kubelet/kubeadm-flags.env"),
      'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10.1"\n',
    );
    const restarted = await node.exec(["systemctl", "restart", "kubelet"]);
    assert.equal(restarted.code, 0, restarted.stderr);
    await poll("the kubelet to refuse the v1.34 flags", 60_000, async () => {
      const log = await node.log("kubelet");
      return log.includes("unknown flag: --pod-infra-container-image") ? log : undefined;
    });
    assert.equal(node.services.starts("kubelet") >= 1, true);
  });
});
