// patchNode (upstream apiclient.PatchNode): waits for the kubelet to register the Node with its
// hostname label, then sends only the changed fields as a strategic merge patch.
import assert from "node:assert/strict";
import type { Node } from "kubernetes-types/core/v1.d.ts";
import { patchNode } from "../../../core/cluster/node_patch.ts";
import { fakeApiClient, FakeKubeApi } from "../../support/fake_kube_api.ts";
import { failedWait, silentApiClient } from "../../support/silent_peer.ts";

const NODE: Node = {
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: "cp-1", labels: { "kubernetes.io/hostname": "cp-1" } },
};

const setup = fakeApiClient;

const label = (n: Node) => {
  n.metadata = { ...n.metadata, labels: { ...n.metadata?.labels, "example.test/x": "y" } };
};

Deno.test("the node patch waits for the Node and its hostname label, then patches the change", async () => {
  const { api, client, clock } = setup();
  let gets = 0;
  api.onRequest = (r, a) => {
    if (r.method !== "GET" || !r.path.startsWith("/api/v1/nodes/")) return;
    gets++;
    if (gets === 2) a.put({ ...NODE, metadata: { name: "cp-1" } }); // registered, no label yet
    if (gets === 3) a.put(NODE);
  };
  const patched = await patchNode(client, "cp-1", label);
  assert.equal(gets, 3);
  // Polled from 50ms up, doubling (to 500ms at most).
  assert.deepEqual(clock.sleeps, [50, 100]);
  assert.equal(patched.metadata?.labels?.["example.test/x"], "y");
  const patch = api.requests.find((r) => r.method === "PATCH")!;
  assert.deepEqual(patch.body, { metadata: { labels: { "example.test/x": "y" } } });
  assert.equal(patch.headers.get("Content-Type"), "application/strategic-merge-patch+json");
});

Deno.test("a Node that never appears fails with the last error", async () => {
  const { client } = setup();
  await assert.rejects(() => patchNode(client, "ghost", label), /nodes "ghost" not found/);
});

Deno.test("a Node read or patch that never answers is cut at the wait's end", async () => {
  const api = new FakeKubeApi({ objects: [NODE] });
  for (const method of ["GET", "PATCH"]) {
    const { clock, client } = silentApiClient((r) => r.method === method, api.transport);
    const { error, elapsedMs } = await failedWait(
      clock,
      () => patchNode(client, "cp-1", label, { timeoutMs: 10_000 }),
    );
    assert.equal(elapsedMs, 10_000, `${method}: not 10s + the client's retries`);
    assert.match(
      error,
      new RegExp(
        `^ApiError: the wait's timeout of 10s ran out during its last attempt: unable to ${
          method === "GET" ? "get" : "patch"
        } Node cp-1: `,
      ),
    );
  }
});
