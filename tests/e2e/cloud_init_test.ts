// End to end: the library's user-data (`planControlPlane`, `planControlPlaneJoin`, `planWorker`,
// rendered by `toCloudInit`) executed by Debian's cloud-init on real nodes, with the installed
// kubeadm-ts (`scripts/install`) as the machines' `kubeadm`; the first control plane and the
// workers boot at once, the second control plane once the first answers:
//
// - cp1's cloud-init writes its planned PKI, kubeconfigs and manifests and runs `kubeadm init`,
//   which reuses them and uploads the certificates;
// - cp2's writes its planned files (its own leaves, signed by the plan's CAs) and runs
//   `kubeadm join --control-plane` (through the planned admin.conf), which joins etcd;
// - the workers' write the bootstrap kubeconfig and kubelet files and run `kubeadm join`, whose
//   discovery waits for cp1 (booted at the same moment) before the kubelet starts and
//   bootstraps its client certificate;
// - every Node becomes Ready, etcd has both members, the workers' kubelets hold certificates
//   the cluster issued.
import assert from "node:assert/strict";
import {
  assertKubeletIdentity,
  assertStaticPodsMirrored,
  etcdMembers,
  waitNodeReady,
} from "../support/cluster.ts";
import { cloudInitSchema } from "../support/cloud_init.ts";
import { bringUp, createMachines, planUserData } from "../support/fleet.ts";
import { installedKubeadm } from "../support/installed_kubeadm.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

Deno.test({
  name: "cloud-init: the library's plans bring up a control plane, a second one and two workers",
  ...e2e,
  async fn() {
    const m = await createMachines(
      { controlPlanes: ["cp1", "cp2"], workers: ["w1", "w2"] },
      { kubeadm: await installedKubeadm() },
    );
    try {
      const { controlPlane: cp1, all: nodes, workers } = m;
      const cp2 = m.controlPlanes[0];
      const targets = await planUserData(m);
      for (const t of targets) {
        const schema = await cloudInitSchema(t.userData);
        assert.equal(schema.code, 0, `${t.node.name}: ${schema.stdout}${schema.stderr}`);
      }
      const [first, second, ...rest] = targets;
      const started = performance.now();
      const { boots, ready } = await bringUp([first, ...rest], cp1, 10 * 60_000);
      console.log(
        `cp1 and the workers Ready in ${((performance.now() - started) / 1000).toFixed(1)} s: ${
          [...ready].map(([n, ms]) => `${n} ${(ms / 1000).toFixed(1)} s`).join(", ")
        }`,
      );
      boots.splice(1, 0, ...(await bringUp([second], cp1, 10 * 60_000)).boots);
      for (const { target, run } of boots) {
        assert.equal(run.stages.length, 4);
        // The machine is named by its meta-data.
        assert.equal((await target.node.exec(["hostname"])).stdout.trim(), target.node.name);
      }
      assert.match(
        boots[0].run.output,
        /Your Kubernetes control-plane has initialized successfully!/,
      );
      assert.match(boots[1].run.output, /This node has joined the cluster and a new control plane/);

      for (const n of nodes) await waitNodeReady(cp1, n.name, 180_000);
      const members = await etcdMembers(cp1);
      assert.deepEqual(members.map((m) => m.name).sort(), ["cp1", "cp2"]);
      assert.ok(members.every((m) => !m.isLearner));
      await assertStaticPodsMirrored(cp1, cp2);
      for (const w of workers) await assertKubeletIdentity(cp1, w, "system:bootstrap:abcdef", true);
    } finally {
      await m.stop();
    }
  },
});
