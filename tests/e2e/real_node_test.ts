// The real-node harness (tests/support/node.ts): a node's namespaces, file layout and service
// manager, containerd reached through our CRI client, and tear-down leaving the host as it was.
import assert from "node:assert/strict";
import { CriClient } from "../../runtime/cri/client.ts";
import { CriSocketRuntime } from "../../runtime/host/container_runtime.ts";
import { createNode, type TestNode } from "../support/node.ts";

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
    await assert.rejects(() => Deno.stat("/etc/kubernetes"), Deno.errors.NotFound);

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
