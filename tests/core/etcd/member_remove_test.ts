// Reading the local etcd manifest and deciding which member to remove.
import assert from "node:assert/strict";
import { parseEtcdManifest } from "../../../core/manifests/etcd_manifest.ts";
import { etcdClientURL, etcdPeerURL } from "../../../core/manifests/etcd.ts";
import { endpointsFromManifest, removeEtcdMember } from "../../../core/etcd/member_remove.ts";
import { FakeEtcd } from "../../support/fake_node_host.ts";
import { ETCD_MANIFEST } from "../phases/reset/support.ts";

Deno.test("the manifest's data dir, URLs and initial cluster", () => {
  const m = parseEtcdManifest(ETCD_MANIFEST, "etcd.yaml");
  assert.deepEqual(m, {
    dataDir: "/var/lib/etcd",
    name: "cp-1",
    advertiseClientURLs: ["https://192.168.0.10:2379"],
    peerURLs: ["https://192.168.0.10:2380"],
    initialCluster: [
      { name: "cp-1", peerURL: "https://192.168.0.10:2380" },
      { name: "cp-2", peerURL: "https://192.168.0.11:2380" },
    ],
  });
  assert.deepEqual(endpointsFromManifest(m), [
    "https://192.168.0.10:2379",
    "https://192.168.0.11:2379",
  ]);
  assert.throws(() => parseEtcdManifest("kind: Pod\n", "etcd.yaml"), /invalid etcd pod manifest/);
});

Deno.test("peer and client URLs bracket IPv6", () => {
  assert.equal(etcdPeerURL("10.0.0.1"), "https://10.0.0.1:2380");
  assert.equal(etcdClientURL("fd00::1"), "https://[fd00::1]:2379");
});

Deno.test("removeEtcdMember: removed, last member, not a member", async () => {
  const etcd = new FakeEtcd();
  etcd.members = [
    {
      id: "11",
      name: "a",
      peerURLs: ["https://10.0.0.1:2380"],
      clientURLs: ["https://10.0.0.1:2379"],
    },
    {
      id: "22",
      name: "b",
      peerURLs: ["https://10.0.0.2:2380"],
      clientURLs: ["https://10.0.0.2:2379"],
    },
  ];
  const connect = (endpoints: readonly string[]) => etcd.client(endpoints, {});
  const remove = (endpoint: string, peer: string, client: string) =>
    removeEtcdMember(connect, [endpoint], peer, client);
  assert.equal(
    await remove("https://10.0.0.2:2379", "https://10.0.0.2:2380", "https://10.0.0.2:2379"),
    "removed",
  );
  assert.deepEqual(etcd.removed, ["22"]);
  // the removal went to the other member's client URL
  assert.deepEqual(etcd.clients.map((c) => c.endpoints), [
    ["https://10.0.0.2:2379"],
    ["https://10.0.0.1:2379"],
  ]);
  assert.equal(
    await remove("https://10.0.0.1:2379", "https://10.0.0.1:2380", "https://10.0.0.1:2379"),
    "last-member",
  );
  assert.equal(
    await remove("https://10.0.0.1:2379", "https://10.0.0.9:2380", "https://10.0.0.9:2379"),
    "not-a-member",
  );
  // the last member is removed when the client does not talk to it
  assert.equal(
    await remove("https://10.0.0.7:2379", "https://10.0.0.1:2380", "https://10.0.0.1:2379"),
    "removed",
  );
});
