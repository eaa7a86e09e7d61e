import assert from "node:assert/strict";
import {
  kubeletFinalizeMessage,
  pointToRotatableClientCert,
} from "../../../core/cluster/kubelet_finalize.ts";
import type { Kubeconfig } from "../../../core/kubeconfig/kubeconfig.ts";

function kubeletConf(): Kubeconfig {
  return {
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: [{
      name: "kubernetes",
      cluster: { server: "https://10.0.0.1:6443", "certificate-authority-data": "Q0E=" },
    }],
    contexts: [{
      name: "system:node:cp-1@kubernetes",
      context: { cluster: "kubernetes", user: "system:node:cp-1" },
    }],
    "current-context": "system:node:cp-1@kubernetes",
    users: [
      { name: "other", user: { "client-certificate-data": "b3RoZXI=" } },
      {
        name: "system:node:cp-1",
        user: { "client-certificate-data": "Q0VSVA==", "client-key-data": "S0VZ" },
      },
    ],
  };
}

Deno.test("the current user points at kubelet-client-current.pem for both cert and key", () => {
  const before = kubeletConf();
  const after = pointToRotatableClientCert(before);
  assert.deepEqual(after.users![1].user, {
    "client-certificate": "/var/lib/kubelet/pki/kubelet-client-current.pem",
    "client-key": "/var/lib/kubelet/pki/kubelet-client-current.pem",
  });
  assert.deepEqual(after.users![0], before.users![0], "other users untouched");
  assert.deepEqual(after.clusters, before.clusters);
  assert.equal(before.users![1].user["client-key-data"], "S0VZ", "input not mutated");
  assert.equal(
    pointToRotatableClientCert(before, "/custom/pki/kubelet-client-current.pem").users![1]
      .user["client-key"],
    "/custom/pki/kubelet-client-current.pem",
  );
});

Deno.test("log line and a missing user", () => {
  assert.equal(
    kubeletFinalizeMessage("/etc/kubernetes/kubelet.conf"),
    '[kubelet-finalize] Updating "/etc/kubernetes/kubelet.conf" to point to a rotatable kubelet client certificate and key',
  );
  const broken = kubeletConf();
  broken.users = [];
  assert.throws(
    () => pointToRotatableClientCert(broken),
    /user "system:node:cp-1" of the current context does not exist/,
  );
});
