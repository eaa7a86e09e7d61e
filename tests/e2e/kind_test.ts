// End to end: kind's way of running kubeadm (tests/support/kind.ts: the configuration kind v0.32.0
// generates for v1.37 by its own code, its command lines and steps) on real nodes, with the
// installed kubeadm-ts (`scripts/install`) as the nodes' `kubeadm`: a one-node cluster (init,
// then kind's untaint and unlabel) and a three-node one (a second control plane that gets the CA
// material copied, and a worker; both discover the cluster by the well-known token with CA
// verification skipped).
import assert from "node:assert/strict";
import {
  assertOk,
  type ClusterNode,
  createClusterNode,
  etcdMembers,
  kubectlJson,
  type NodeJson,
  waitNodeReady,
} from "../support/cluster.ts";
import {
  KIND_CONFIG_PATH,
  KIND_COPIED_FILES,
  KIND_INIT_ARGS,
  KIND_JOIN_ARGS,
  kindConfig,
  kindDefaults,
} from "../support/kind.ts";
import { createMachines } from "../support/fleet.ts";
import { installedKubeadm } from "../support/installed_kubeadm.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

/** kind's node names resolve on every node, as on kind's Docker network; each is its hostname. */
async function nameNodes(nodes: ClusterNode[]): Promise<void> {
  const hosts = nodes.map((n) => `${n.ip} ${n.name}`).join("\n");
  for (const n of nodes) {
    const r = await n.exec([
      "sh",
      "-c",
      'hostname "$1" && echo "$1" > /etc/hostname && printf "%s\\n" "$2" >> /etc/hosts',
      "sh",
      n.name,
      hosts,
    ]);
    assert.equal(r.code, 0, r.stderr);
  }
}

/** kind's configuration for each node (`/kind/kubeadm.conf`, here {@link KIND_CONFIG_PATH}). */
async function writeKindConfigs(nodes: ClusterNode[], controlPlanes: number): Promise<void> {
  const endpoint = `${nodes[0].name}:6443`;
  for (const [i, n] of nodes.entries()) {
    const config = await kindConfig(
      kindDefaults({ name: n.name, address: n.ip, controlPlane: i < controlPlanes }, endpoint),
    );
    const r = await n.exec(
      ["sh", "-c", `mkdir -p /etc/kind && cat > ${KIND_CONFIG_PATH}`],
      { stdin: config },
    );
    assert.equal(r.code, 0, r.stderr);
  }
}

/** The Node object, through the first control plane. */
async function nodeObject(cp: ClusterNode, name: string): Promise<
  NodeJson & {
    spec: { providerID?: string };
  }
> {
  return await kubectlJson(cp, ["get", "node", name]) as unknown as NodeJson & {
    spec: { providerID?: string };
  };
}

Deno.test({
  name: "kind: its configuration and command lines bring up a one-node cluster",
  ...e2e,
  async fn() {
    const bins = { kubeadm: await installedKubeadm() };
    const cp = await createClusterNode("kind-control-plane", { bins });
    try {
      await nameNodes([cp]);
      await writeKindConfigs([cp], 1);
      const config = (await cp.exec(["cat", KIND_CONFIG_PATH])).stdout;
      assert.match(config, /unsafeSkipCAVerification: true/);
      assert.match(config, /skipPhases:\n- preflight/);
      assert.doesNotMatch(config, /metadata:/);

      const init = await cp.exec(["kubeadm", ...KIND_INIT_ARGS], { timeoutMs: 10 * 60_000 });
      await assertOk(cp, "kind's kubeadm init", init);
      // --skip-token-print: the join commands withhold the token.
      assert.match(init.stdout, /--token <value withheld>/);
      assert.doesNotMatch(init.stdout + init.stderr, /0123456789abcdef/);
      // --v=6: klog lines on stderr; preflight skipped by the configuration.
      assert.match(init.stderr, /^I\d{4} [\d:.]+ +\d+ \S+:\d+\] /m);
      assert.doesNotMatch(init.stdout, /\[preflight\] Running pre-flight checks/);

      // kind's one-node steps: the control plane schedules workloads.
      for (
        const args of [
          ["taint", "nodes", "--all", "node-role.kubernetes.io/control-plane-"],
          ["label", "nodes", "--all", "node.kubernetes.io/exclude-from-external-load-balancers-"],
        ]
      ) {
        const r = await cp.exec([
          `${cp.binDir}/kubectl`,
          "--kubeconfig=/etc/kubernetes/admin.conf",
          ...args,
        ]);
        assert.equal(r.code, 0, r.stderr);
      }
      await waitNodeReady(cp, cp.name, 180_000);
      const node = await nodeObject(cp, cp.name);
      assert.deepEqual(node.spec.taints ?? [], []);
      assert.equal(node.spec.providerID, "kind://docker/kind/kind-control-plane");
      assert.equal(
        node.metadata.labels?.["node.kubernetes.io/exclude-from-external-load-balancers"],
        undefined,
      );
    } finally {
      await cp.stop();
    }
  },
});

Deno.test({
  name: "kind: a three-node cluster (a second control plane with copied CAs, a worker)",
  ...e2e,
  async fn() {
    const m = await createMachines(
      { controlPlanes: ["kind-control-plane", "kind-control-plane2"], workers: ["kind-worker"] },
      { kubeadm: await installedKubeadm() },
    );
    try {
      const { controlPlane: cp, all: nodes } = m;
      const [cp2] = m.controlPlanes;
      const [worker] = m.workers;
      await nameNodes(nodes);
      await writeKindConfigs(nodes, 2);

      const init = await cp.exec(["kubeadm", ...KIND_INIT_ARGS], { timeoutMs: 10 * 60_000 });
      await assertOk(cp, "kind's kubeadm init", init);
      for (const file of KIND_COPIED_FILES) {
        const target = cp2.path(file);
        await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
        await Deno.copyFile(cp.path(file), target);
      }
      // kind joins the control planes one at a time, then the workers at once. The worker gets
      // the flag older kind versions passed as well (the configuration already skips preflight).
      const join = await cp2.exec(["kubeadm", ...KIND_JOIN_ARGS], { timeoutMs: 10 * 60_000 });
      await assertOk(cp2, "kind's kubeadm join (control plane)", join);
      assert.match(join.stderr, /^I\d{4} /m);
      const workerJoin = await worker.exec(
        ["kubeadm", ...KIND_JOIN_ARGS, "--skip-phases=preflight"],
        { timeoutMs: 10 * 60_000 },
      );
      await assertOk(worker, "kind's kubeadm join (worker)", workerJoin);

      for (const n of nodes) await waitNodeReady(cp, n.name, 180_000);
      assert.deepEqual((await etcdMembers(cp)).map((m) => m.name).sort(), [cp.name, cp2.name]);
      // cp2 kept the CA kind copied; the worker trusts it without a pin.
      for (const f of ["/etc/kubernetes/pki/ca.crt", "/etc/kubernetes/pki/etcd/ca.key"]) {
        assert.equal(await Deno.readTextFile(cp2.path(f)), await Deno.readTextFile(cp.path(f)), f);
      }
      assert.equal(
        await Deno.readTextFile(worker.path("/etc/kubernetes/pki/ca.crt")),
        await Deno.readTextFile(cp.path("/etc/kubernetes/pki/ca.crt")),
      );
      for (const n of nodes) {
        assert.equal(
          (await nodeObject(cp, n.name)).spec.providerID,
          `kind://docker/kind/${n.name}`,
        );
      }
    } finally {
      await m.stop();
    }
  },
});
