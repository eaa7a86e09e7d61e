// A control-plane node's etcd join against a real one-member etcd cluster on loopback: add the
// new member as a learner through the gateway, start it with the computed initial cluster,
// promote it, and see two voting members.
import { platformTime } from "../../support/platform.ts";
import assert from "node:assert/strict";
import { EtcdGatewayClient } from "../../../adapters/deno/etcd.ts";
import {
  addLearnerMember,
  checkClusterHealth,
  memberByPeerURL,
  promoteLearner,
  waitForClusterAvailable,
} from "../../../core/etcd/member_join.ts";
import { etcdTiming } from "../../../core/etcd/timing.ts";
import { startEtcdCluster } from "../../support/etcd_cluster.ts";
import { k8sBinDir } from "../../support/k8s_bins.ts";

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test({
  name: "etcd join: learner add, start, promote, two voting members",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const cluster = await startEtcdCluster(1);
    let joined: Deno.ChildProcess | undefined;
    try {
      const tls = {
        caPem: await Deno.readTextFile(cluster.pki.caCrt),
        certPem: await Deno.readTextFile(cluster.pki.clientCrt),
        keyPem: await Deno.readTextFile(cluster.pki.clientKey),
      };
      const client = new EtcdGatewayClient([cluster.members[0].clientURL], tls);
      const t = etcdTiming({ timeoutMs: 60_000, ...platformTime });
      await checkClusterHealth(client, t);

      const peerURL = `https://127.0.0.1:${freePort()}`;
      const clientURL = `https://127.0.0.1:${freePort()}`;
      const initial = await addLearnerMember(client, "m2", peerURL, t);
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      assert.deepEqual([...initial].sort(byName), [
        { name: "m1", peerURL: cluster.members[0].peerURL },
        { name: "m2", peerURL },
      ]);
      // A retried join finds the member and does not add it twice.
      assert.deepEqual(
        (await addLearnerMember(client, "m2", peerURL, t)).sort(byName),
        [...initial].sort(byName),
      );
      const learner = await memberByPeerURL(client, peerURL, t);
      assert.equal(learner.isLearner, true);
      assert.equal(learner.name, "", "not started yet");

      const dir = await Deno.makeTempDir({ prefix: "kubeadm-ts-etcd-join-" });
      joined = new Deno.Command(`${await k8sBinDir()}/etcd`, {
        args: [
          "--name=m2",
          `--data-dir=${dir}`,
          `--listen-client-urls=${clientURL}`,
          `--advertise-client-urls=${clientURL}`,
          `--listen-peer-urls=${peerURL}`,
          `--initial-advertise-peer-urls=${peerURL}`,
          `--initial-cluster=${initial.map((m) => `${m.name}=${m.peerURL}`).join(",")}`,
          "--initial-cluster-state=existing",
          `--cert-file=${cluster.pki.nodeCrt}`,
          `--key-file=${cluster.pki.nodeKey}`,
          `--trusted-ca-file=${cluster.pki.caCrt}`,
          "--client-cert-auth=true",
          `--peer-cert-file=${cluster.pki.nodeCrt}`,
          `--peer-key-file=${cluster.pki.nodeKey}`,
          `--peer-trusted-ca-file=${cluster.pki.caCrt}`,
          "--peer-client-cert-auth=true",
          "--log-level=error",
        ],
        stdout: "null",
        stderr: "null",
      }).spawn();
      await promoteLearner(client, learner.id, t);
      const both = new EtcdGatewayClient([cluster.members[0].clientURL, clientURL], tls);
      await waitForClusterAvailable(both, t, 8, 1000);
      const members = await both.listMembers();
      assert.deepEqual(members.map((m) => [m.name, m.isLearner]).sort(), [
        ["m1", false],
        ["m2", false],
      ]);
      // Promoting again is a no-op.
      await promoteLearner(client, learner.id, t);
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    } finally {
      try {
        joined?.kill("SIGKILL");
      } catch {
        // gone
      }
      await joined?.status;
      await cluster.stop();
    }
  },
});

Deno.test("the gateway client reports unreachable endpoints", async () => {
  const client = new EtcdGatewayClient(["https://127.0.0.1:1"], {
    caPem: "",
    certPem: "",
    keyPem: "",
  }, 2000);
  await assert.rejects(() => client.listMembers(), /no etcd endpoint answered/);
});
