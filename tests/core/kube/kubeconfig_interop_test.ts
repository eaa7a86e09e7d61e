// The client and cluster builders accept the canonical kubeconfig type of core/kubeconfig.
import assert from "node:assert/strict";
import { clusterInfoKubeconfig } from "../../../core/cluster/cluster_info.ts";
import { pointToRotatableClientCert } from "../../../core/cluster/kubelet_finalize.ts";
import { connectionFromKubeconfig } from "../../../core/kube/kubeconfig_connection.ts";
import {
  createKubeconfigWithCerts,
  type Kubeconfig,
  parseKubeconfig,
  serializeKubeconfig,
} from "../../../core/kubeconfig/kubeconfig.ts";

function adminConf(): Kubeconfig {
  return createKubeconfigWithCerts(
    "https://10.0.0.1:6443",
    "kubernetes",
    "kubernetes-admin",
    "CA PEM\n",
    "KEY PEM\n",
    "CERT PEM\n",
  );
}

Deno.test("connection params from a core/kubeconfig admin.conf (after a file round trip)", async () => {
  const parsed = parseKubeconfig(serializeKubeconfig(adminConf()));
  assert.deepEqual(await connectionFromKubeconfig(parsed), {
    server: "https://10.0.0.1:6443",
    caPem: "CA PEM\n",
    certPem: "CERT PEM\n",
    keyPem: "KEY PEM\n",
  });
});

Deno.test("cluster-info and kubelet-finalize work on the canonical type", () => {
  const info = clusterInfoKubeconfig(adminConf());
  assert.ok(info.includes('  name: ""\n'));
  assert.ok(!info.includes("KEY"));
  const rotated: Kubeconfig = pointToRotatableClientCert(adminConf());
  assert.equal(
    rotated.users[0].user["client-key"],
    "/var/lib/kubelet/pki/kubelet-client-current.pem",
  );
  assert.equal(rotated.users[0].user["client-key-data"], undefined);
});
