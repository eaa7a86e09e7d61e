// The upgrade's cluster configuration: the wait for this node's kube-apiserver Pod ends within
// its timeout when the API server stops answering.
import assert from "node:assert/strict";
import { apiEndpointFromPod } from "../../../core/upgrade/cluster_config.ts";
import { failedWait, silentApiClient } from "../../support/silent_peer.ts";

Deno.test("this node's kube-apiserver Pod is looked for within the wait's timeout", async () => {
  const { clock, peer, client } = silentApiClient();
  const { error, elapsedMs } = await failedWait(
    clock,
    () => apiEndpointFromPod(client, "cp1", 10_000),
  );
  assert.equal(elapsedMs, 10_000, "not 10s + the transport's 30s");
  assert.match(
    error,
    /^KubeadmError: failed to getAPIEndpoint: could not retrieve API endpoints for node "cp1" using pod annotations: the wait's timeout of 10s ran out during its last attempt: could not retrieve list of pods to determine api server endpoints: /,
  );
  assert.deepEqual(peer.limits, [10_000]);
});
