// The upgrade's static Pod waits end within their timeout when the API server stops
// answering: each read gets only the time the wait has left.
import assert from "node:assert/strict";
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import { CONFIG_HASH_ANNOTATION, kubeWaiter } from "../../../core/upgrade/pod_waiter.ts";
import { FakeKubeApi } from "../../support/fake_kube_api.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";
import { failedWait, silentApiClient } from "../../support/silent_peer.ts";

const T = 10_000;

Deno.test("every static Pod wait ends within its timeout against a silent API server", async () => {
  const cases: [string, (w: ReturnType<typeof kubeWaiter>) => Promise<unknown>, RegExp][] = [
    [
      "hash",
      (w) => w.staticPodHash("cp1", "kube-apiserver"),
      /^KubeadmError: the wait's timeout of 10s ran out during its last attempt: failed to obtain static Pod hash for component kube-apiserver on Node cp1: unable to get Pod kube-system\/kube-apiserver-cp1: .*context deadline exceeded/,
    ],
    [
      "hashes",
      (w) => w.staticPodHashes("cp1", ["kube-apiserver", "etcd"]),
      /the wait's timeout of 10s ran out during its last attempt: failed to obtain static Pod hash for component kube-apiserver/,
    ],
    [
      "hash change",
      (w) => w.staticPodHashChange("cp1", "kube-apiserver", "abc"),
      /^KubeadmError: the wait's timeout of 10s ran out during its last attempt: failed to obtain static Pod hash for component kube-apiserver/,
    ],
    [
      "pods with label",
      (w) => w.podsWithLabel("component=kube-apiserver"),
      /^KubeadmError: timed out after 10s waiting for the Pods with label component=kube-apiserver to be Running: context deadline exceeded$/,
    ],
  ];
  for (const [name, wait, message] of cases) {
    const { clock, peer, client } = silentApiClient();
    const waiter = kubeWaiter(client, T, new RecordingPrinter());
    const { error, elapsedMs } = await failedWait(clock, () => wait(waiter));
    assert.equal(elapsedMs, T, `${name}: not ${T}ms + the transport's 30s`);
    assert.match(error, message, name);
    assert.deepEqual(peer.limits, [T], name);
  }
});

Deno.test("a hash that never changes is reported as such, in upstream's words", async () => {
  const api = new FakeKubeApi({
    objects: [{
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "kube-apiserver-cp1",
        namespace: "kube-system",
        annotations: { [CONFIG_HASH_ANNOTATION]: "abc" },
      },
    } as Pod],
  });
  // The last read of the wait hangs until its end; the ones before answered the same hash.
  const { clock, client } = silentApiClient((_, n) => n === 20, api.transport);
  const { error, elapsedMs } = await failedWait(
    clock,
    () =>
      kubeWaiter(client, T, new RecordingPrinter()).staticPodHashChange(
        "cp1",
        "kube-apiserver",
        "abc",
      ),
  );
  assert.equal(elapsedMs, T);
  assert.match(
    error,
    /the wait's timeout of 10s ran out during its last attempt: failed to obtain static Pod hash/,
  );
  const again = silentApiClient(() => false, api.transport);
  await assert.rejects(
    () =>
      kubeWaiter(again.client, T, new RecordingPrinter()).staticPodHashChange(
        "cp1",
        "kube-apiserver",
        "abc",
      ),
    /^KubeadmError: static Pod hash for component kube-apiserver on Node cp1 did not change after 10s: context deadline exceeded$/,
  );
});
