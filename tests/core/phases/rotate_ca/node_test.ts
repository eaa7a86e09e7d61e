import assert from "node:assert/strict";
import type { Node } from "kubernetes-types/core/v1.d.ts";
import { webKeys } from "../../../support/platform.ts";
import { convergeNode } from "../../../../core/phases/rotate_ca/node.ts";
import type { RotateCaData } from "../../../../core/phases/rotate_ca/data.ts";
import {
  CLIENT_CA_ANNOTATION,
  CLUSTER_CA,
  FRONT_PROXY_CA,
  kubeconfigTrust,
  TRUST_ANNOTATION,
} from "../../../../core/certs/ca_rotation.ts";
import { runRotateCa } from "../../../../core/phases/rotate_ca/workflow.ts";
import { type CertAndKey, PkiDirectory } from "../../../../core/certs/pki_dir.ts";
import {
  type Certificate,
  createSignedCert,
  encodeCertificatePEM,
  parseCertificatesPEM,
} from "../../../../core/pki/cert.ts";
import { encodePrivateKeyPEM, generateKeyPair } from "../../../../core/pki/keys.ts";
import { certificatePin } from "../../../../core/pki/pin.ts";
import { utf8 } from "../../../../core/text/utf8.ts";
import {
  createBasicKubeconfig,
  parseKubeconfig,
  serializeKubeconfig,
} from "../../../../core/kubeconfig/kubeconfig.ts";
import { webCryptoPort } from "../../../../adapters/crypto/webcrypto.ts";
import { MemoryFileSystem } from "../../../support/memory_fs.ts";
import { seededRandom } from "../../../support/fixed_random.ts";
import { RecordingPrinter } from "../../../support/recording_printer.ts";
import { FakeNodeHost } from "../../../support/fake_node_host.ts";
import { fakeApiClient } from "../../../support/fake_kube_api.ts";
import {
  clusterInfoConfigMap,
  nodeAuthorizer,
  signKubeletCSRs,
  testCA,
} from "../../../support/ca_rotation.ts";
import { resolveForTest } from "../../../support/config.ts";

const PKI = "/etc/kubernetes/pki";
const CURRENT = "/var/lib/kubelet/pki/kubelet-client-current.pem";
const SERVER = "https://10.0.0.1:6443";

async function clientPem(ca: CertAndKey): Promise<string> {
  const key = await generateKeyPair("ECDSA-P256", webKeys);
  const cert = await createSignedCert(
    { commonName: "system:node:worker1", organization: ["system:nodes"], usages: ["clientAuth"] },
    key,
    ca.cert,
    ca.key,
    seededRandom(9),
    webCryptoPort,
  );
  return encodeCertificatePEM(cert) + await encodePrivateKeyPEM(key);
}

/** A worker trusting `old`, its kubelet's client certificate signed by `old`. */
async function worker(old: CertAndKey, signer: CertAndKey, published: Certificate[]) {
  const files = new MemoryFileSystem();
  const conf = createBasicKubeconfig(
    SERVER,
    "default-cluster",
    "default-auth",
    encodeCertificatePEM(old.cert),
  );
  conf.users[0].user = { "client-certificate": CURRENT, "client-key": CURRENT };
  await files.write({
    path: "/etc/kubernetes/kubelet.conf",
    data: serializeKubeconfig(conf),
    mode: 0o600,
    kind: "kubeconfig",
  });
  await files.write({ path: CURRENT, data: await clientPem(old), mode: 0o600, kind: "key" });
  const { api, client } = fakeApiClient([
    clusterInfoConfigMap(published),
    { apiVersion: "v1", kind: "Node", metadata: { name: "worker1" } },
  ]);
  signKubeletCSRs(api, () => Promise.resolve(signer));
  const authorizer = nodeAuthorizer(api, client, "worker1");
  const node = new FakeNodeHost();
  const out = new RecordingPrinter();
  const data: RotateCaData = {
    out,
    ca: CLUSTER_CA,
    dryRun: false,
    cfg: resolveForTest().config,
    pki: new PkiDirectory(files, PKI, webCryptoPort),
    kubernetesDir: "/etc/kubernetes",
    node,
    random: seededRandom(7),
    now: new Date("2026-06-01T10:20:30Z"),
    nodeName: "worker1",
    controlPlane: () => Promise.reject(new Error("a worker has no control plane")),
    kubelet: authorizer.kubelet,
    anonymous: authorizer.anonymous,
    timing: client.timing,
    timeoutMs: 60_000,
  };
  return { files, api, node, data, connections: authorizer.connections };
}

const trustOf = async (files: MemoryFileSystem, path: string) =>
  kubeconfigTrust(parseKubeconfig(utf8((await files.read(path))!), path, { clientcmd: true }));

Deno.test("node phase: takes the published trust, a client certificate from the new signer, restarts the kubelet once, records both on the Node", async () => {
  const old = await testCA(1);
  const next = await testCA(2);
  const published = [next.cert, old.cert];
  const { files, api, node, data, connections } = await worker(old, next, published);
  await convergeNode(data);

  // cluster-info is read anonymously, verified against what kubelet.conf trusted.
  assert.deepEqual(connections, [{ server: SERVER, caPem: encodeCertificatePEM([old.cert]) }]);

  const bundlePem = encodeCertificatePEM(published);
  assert.equal(await trustOf(files, "/etc/kubernetes/kubelet.conf"), bundlePem);
  assert.equal(utf8((await files.read(`${PKI}/ca.crt`))!), bundlePem, "a worker's ca.crt");
  const name = "kubelet-client-2026-06-01-10-20-30.pem";
  assert.deepEqual([...node.symlinks], [[CURRENT, name]]);
  const issued = parseCertificatesPEM((await files.read(`/var/lib/kubelet/pki/${name}`))!)[0];
  assert.deepEqual(issued.issuer.der, next.cert.subject.der);
  assert.equal(issued.subject.commonName, "system:node:worker1");
  assert.deepEqual(node.machine.init?.restarted, ["kubelet"]);
  const annotations = api.get<Node>("Node", undefined, "worker1")!.metadata!.annotations!;
  const pins = await Promise.all(published.map((c) => certificatePin(c, webCryptoPort)));
  assert.equal(annotations[TRUST_ANNOTATION], pins.join(","));
  assert.equal(annotations[CLIENT_CA_ANNOTATION], pins[0]);
});

Deno.test("node phase: while the old CA still signs, only the trust changes; run again, nothing changes", async () => {
  const old = await testCA(1);
  const next = await testCA(2);
  const { files, api, node, data, connections } = await worker(old, old, [old.cert, next.cert]);
  await convergeNode(data);
  assert.equal(
    await trustOf(files, "/etc/kubernetes/kubelet.conf"),
    encodeCertificatePEM([old.cert, next.cert]),
  );
  assert.equal(node.symlinks.size, 0, "no new client certificate");
  assert.equal(
    api.requests.filter((r) => r.path.includes("certificatesigningrequests")).length,
    0,
  );
  const writes = files.writes.length;
  await convergeNode(data);
  assert.equal(files.writes.length, writes, "converged: nothing written");
  assert.equal(connections[1].caPem, encodeCertificatePEM([old.cert, next.cert]));
  assert.deepEqual(node.machine.init?.restarted, ["kubelet"], "restarted once");
  const annotations = api.get<Node>("Node", undefined, "worker1")!.metadata!.annotations!;
  assert.equal(annotations[CLIENT_CA_ANNOTATION], await certificatePin(old.cert, webCryptoPort));
});

Deno.test("node phase --ca front-proxy-ca: says no node has anything to do, writes, contacts and restarts nothing", async () => {
  const old = await testCA(1);
  const { files, api, node, data } = await worker(old, old, [old.cert]);
  const unreachable = () => Promise.reject(new Error("the cluster was contacted"));
  const writes = files.writes.length;
  const requests = api.requests.length;
  await runRotateCa(
    { ...data, ca: FRONT_PROXY_CA, kubelet: unreachable, anonymous: unreachable },
    { only: "node" },
  );
  assert.equal(files.writes.length, writes);
  assert.equal(api.requests.length, requests);
  assert.deepEqual(node.machine.init?.restarted ?? [], []);
  assert.ok(
    (data.out as RecordingPrinter).lines.some((l) =>
      /node: nothing to do for front-proxy-ca on any node: only kube-apiserver and kube-controller-manager read it/
        .test(l)
    ),
    (data.out as RecordingPrinter).lines.join("\n"),
  );
});
