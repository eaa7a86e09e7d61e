// End to end: Cluster API's kubeadm bootstrap data (its own code, sigs.k8s.io/cluster-api
// v1.14.0: certificates, kubeadm configuration, templates) executed by Debian's cloud-init on real
// nodes with the installed kubeadm-ts (`scripts/install`) as the machines' `kubeadm`, in the order
// Cluster API's controllers go:
//
// 1. the first control plane boots from user-data carrying the CA material Cluster API generated
//    and `/run/kubeadm/kubeadm.yaml` (rendered from jinja with the machine's name): `kubeadm init
//    --config …  && echo success > /run/cluster-api/bootstrap-success.complete`;
// 2. once its API server answers, the controller creates a bootstrap token in the cluster (a
//    Secret) and renders the joins: a second control plane (the CA material again, `kubeadm join
//    --config /run/kubeadm/kubeadm-join-config.yaml`, discovery pinned to the CA's hash) and a
//    worker (tainted `node.cluster.x-k8s.io/uninitialized` until Cluster API initializes it);
// 3. both boot at once; every machine leaves the success marker, every Node is Ready, etcd has
//    two voting members, and the Nodes carry what the configuration asked (kubelet arguments,
//    taints); Cluster API then lifts the worker's taint.
import assert from "node:assert/strict";
import {
  assertStaticPodsMirrored,
  etcdMembers,
  kubectlJson,
  type NodeJson,
  waitNodeReady,
} from "../support/cluster.ts";
import { cloudInitSchema } from "../support/cloud_init.ts";
import {
  CAPI_UNINITIALIZED_TAINT,
  capiInitUserData,
  capiJoinUserData,
  capiToken,
} from "../support/cluster_api.ts";
import { bringUp, capiCluster, capiSpec, capiSucceeded, createMachines } from "../support/fleet.ts";
import { installedKubeadm } from "../support/installed_kubeadm.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

Deno.test({
  name: "Cluster API: its bootstrap data brings up an HA cluster with kubeadm-ts as kubeadm",
  ...e2e,
  async fn() {
    const m = await createMachines(
      { controlPlanes: ["cp1", "cp2"], workers: ["w1"] },
      { kubeadm: await installedKubeadm() },
    );
    try {
      const { controlPlane: cp1, all: nodes } = m;
      const [cp2] = m.controlPlanes;
      const [w1] = m.workers;
      const cluster = capiCluster(cp1);
      const spec = capiSpec();

      const init = await capiInitUserData(cluster, spec);
      assert.match(init.userData, /^## template: jinja\n#cloud-config\n/);
      assert.match(
        init.userData,
        /kubeadm init --config \/run\/kubeadm\/kubeadm.yaml +&& echo success > \/run\/cluster-api\/bootstrap-success.complete/,
      );
      const schema = await cloudInitSchema(init.userData, {
        instanceId: "iid-cp1",
        localHostname: "cp1",
      });
      assert.equal(schema.code, 0, schema.stdout + schema.stderr);
      await bringUp([{ node: cp1, userData: init.userData }], cp1, 10 * 60_000);
      assert.ok(await capiSucceeded(cp1), "cp1: no success marker");
      // The CA material is Cluster API's, not regenerated.
      assert.equal(
        await Deno.readTextFile(cp1.path("/etc/kubernetes/pki/ca.crt")),
        init.certificates.ca.cert,
      );

      // The controller's token, created in the workload cluster; then the joins' user-data.
      const { token, secret } = await capiToken();
      const created = await cp1.exec(
        [
          `${cp1.binDir}/kubectl`,
          "--kubeconfig",
          "/etc/kubernetes/admin.conf",
          "create",
          "-f",
          "-",
        ],
        { stdin: JSON.stringify(secret) },
      );
      assert.equal(created.code, 0, created.stderr);
      const joins = [];
      for (const [node, controlPlane] of [[cp2, true], [w1, false]] as const) {
        const { userData } = await capiJoinUserData(cluster, spec, {
          controlPlane,
          certificates: init.certificates,
          token,
        });
        assert.match(userData, /kubeadm join --config \/run\/kubeadm\/kubeadm-join-config.yaml/);
        const s = await cloudInitSchema(userData, {
          instanceId: `iid-${node.name}`,
          localHostname: node.name,
        });
        assert.equal(s.code, 0, s.stdout + s.stderr);
        joins.push({ node, userData });
      }
      for (const { target } of (await bringUp(joins, cp1, 10 * 60_000)).boots) {
        assert.ok(await capiSucceeded(target.node), `${target.node.name}: no success marker`);
      }

      for (const n of nodes) await waitNodeReady(cp1, n.name, 180_000);
      const members = await etcdMembers(cp1);
      assert.deepEqual(members.map((m) => m.name).sort(), ["cp1", "cp2"]);
      assert.ok(members.every((m) => !m.isLearner));
      await assertStaticPodsMirrored(cp1, cp2);
      const node = async (name: string) =>
        await kubectlJson(cp1, ["get", "node", name]) as unknown as NodeJson;
      const taints = (n: NodeJson) => (n.spec.taints ?? []).map((t) => `${t.key}:${t.effect}`);
      assert.deepEqual(taints(await node("cp2")), [
        "node-role.kubernetes.io/control-plane:NoSchedule",
      ]);
      assert.deepEqual(taints(await node("w1")), [`${CAPI_UNINITIALIZED_TAINT}:NoSchedule`]);
      // The kubelet arguments of the configuration reached the kubelets.
      const flags = await Deno.readTextFile(w1.path("/var/lib/kubelet/kubeadm-flags.env"));
      assert.match(
        flags,
        /--eviction-hard=nodefs\.available<0%,nodefs\.inodesFree<0%,imagefs\.available<0%/,
      );
      // Cluster API initializes the Node: the taint goes.
      const untaint = await cp1.kubectl(["taint", "node", "w1", `${CAPI_UNINITIALIZED_TAINT}-`]);
      assert.equal(untaint.code, 0, untaint.stderr);
      assert.deepEqual(taints(await node("w1")), []);
    } finally {
      await m.stop();
    }
  },
});
