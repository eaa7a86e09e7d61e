import assert from "node:assert/strict";
import { clusterInfoConnection } from "../../../core/certs/ca_rotation_cluster.ts";
import { KubeadmError } from "../../../core/errors.ts";
import { encodeCertificatePEM } from "../../../core/pki/cert.ts";
import {
  createBasicKubeconfig,
  emptyKubeconfig,
  type Kubeconfig,
} from "../../../core/kubeconfig/kubeconfig.ts";
import { testCA } from "../../support/ca_rotation.ts";

const SERVER = "https://10.0.0.1:6443";

function kubeletConf(caPem: string): Kubeconfig {
  return createBasicKubeconfig(SERVER, "kubernetes", "system:node:cp1", caPem);
}

Deno.test("clusterInfoConnection(): kubelet.conf's server, no credentials, its CAs and ca.crt's once each", async () => {
  const old = (await testCA(1)).cert;
  const next = (await testCA(2)).cert;
  // kubelet.conf left with the old CA while ca.crt (a control plane's, after reissue) leads
  // with the new one: both verify.
  const connection = clusterInfoConnection(
    kubeletConf(encodeCertificatePEM([old])),
    [next, old],
    "kubelet.conf",
  );
  assert.deepEqual(connection, { server: SERVER, caPem: encodeCertificatePEM([old, next]) });
  // A worker without ca.crt: kubelet.conf's bundle alone; tls-server-name is kept.
  const conf = kubeletConf(encodeCertificatePEM([next, old]));
  conf.clusters[0].cluster["tls-server-name"] = "kubernetes";
  assert.deepEqual(clusterInfoConnection(conf, [], "kubelet.conf"), {
    server: SERVER,
    caPem: encodeCertificatePEM([next, old]),
    tlsServerName: "kubernetes",
  });
});

Deno.test("clusterInfoConnection() refuses a kubelet.conf without a server, and a node trusting no CA", async () => {
  const old = (await testCA(1)).cert;
  assert.throws(
    () => clusterInfoConnection(emptyKubeconfig(), [old], "/etc/kubernetes/kubelet.conf"),
    (e) =>
      e instanceof KubeadmError && e.field === "/etc/kubernetes/kubelet.conf" &&
      /names no cluster server/.test(e.message),
  );
  assert.throws(
    () => clusterInfoConnection(kubeletConf(""), [], "/etc/kubernetes/kubelet.conf"),
    (e) => e instanceof KubeadmError && /no certificate-authority-data/.test(e.message),
  );
});
