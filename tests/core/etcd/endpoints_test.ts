// Finding the stacked etcd cluster: both waits (the etcd Pods' annotations, the member list)
// end within their timeouts when nobody answers.
import assert from "node:assert/strict";
import { etcdEndpointsFromCluster, syncEtcdClient } from "../../../core/etcd/endpoints.ts";
import { etcdTiming } from "../../../core/etcd/timing.ts";
import type { EtcdClient } from "../../../core/ports/etcd.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { failedWait, silentApiClient, SilentPeer } from "../../support/silent_peer.ts";

Deno.test("the etcd Pods are listed within the wait's timeout, not a request timeout later", async () => {
  const { clock, peer, client } = silentApiClient();
  const { error, elapsedMs } = await failedWait(
    clock,
    () => etcdEndpointsFromCluster(client, 10_000),
  );
  assert.equal(elapsedMs, 10_000, "not 30s");
  assert.match(
    error,
    /^KubeadmError: could not retrieve the list of etcd endpoints: the wait's timeout of 10s ran out during its last attempt: unable to list Pod in namespace kube-system: .*context deadline exceeded \(no complete response within the call's deadline of 10s, counted from its first attempt\)$/,
  );
  assert.deepEqual(peer.limits, [10_000]);
});

Deno.test("syncing the endpoints with a silent etcd ends at the etcd API timeout", async () => {
  const clock = new FakeClock();
  // Three endpoints, 25s each unless bounded.
  const peer = new SilentPeer(clock, 25_000, 3);
  const silent = (endpoints: readonly string[]): EtcdClient => ({
    endpoints,
    listMembers: (limits) => peer.etcd(limits),
    addMember: () => Promise.reject(new Error("unused")),
    promoteMember: () => Promise.reject(new Error("unused")),
    removeMember: () => Promise.reject(new Error("unused")),
    status: () => Promise.reject(new Error("unused")),
  });
  const { error, elapsedMs } = await failedWait(clock, () =>
    syncEtcdClient(
      silent,
      ["https://10.0.0.1:2379", "https://10.0.0.2:2379", "https://10.0.0.3:2379"],
      etcdTiming({ clock, sleep: clock.sleep }),
    ));
  assert.equal(elapsedMs, 120_000, "2m, not 2m30.5s");
  assert.match(
    error,
    /^KubeadmError: error syncing endpoints with etcd: the wait's timeout of 2m0s ran out during its last attempt: no etcd endpoint answered: timeout after \d+ms$/,
  );
  assert.ok(peer.limits.every((l) => l !== undefined && l <= 120_000));
});
