import { webKeys } from "../../support/platform.ts";
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import { csrGroupHeader, planKeysAndCSRs } from "../../../core/certs/generate_csr.ts";
import { parseCSR } from "../../../core/pki/csr.ts";
import { verifyCSRSignature } from "../../support/test_pki.ts";
import { exportSPKI, parsePrivateKeyPEM } from "../../../core/pki/keys.ts";
import { embeddedText, parseKubeconfig } from "../../../core/kubeconfig/kubeconfig.ts";
import { utf8 } from "../../../core/text/utf8.ts";
import { KubeadmError } from "../../../core/errors.ts";
import { initConfigFixture } from "../../support/init_config_fixture.ts";
import { MemoryFileSystem } from "../../support/memory_fs.ts";

const START = new Date("2026-05-01T00:00:00Z");

function config() {
  const cfg = initConfigFixture();
  cfg.cluster.encryptionAlgorithm = "ECDSA-P256";
  cfg.cluster.controlPlaneEndpoint = "api.example.test:7443";
  cfg.cluster.apiServer = { ...cfg.cluster.apiServer, certSANs: ["extra.example.test", "bad_san"] };
  return cfg;
}

const text = (d: string | Uint8Array) => typeof d === "string" ? d : utf8(d);

Deno.test("planKeysAndCSRs() plans a key and CSR per leaf and a partial kubeconfig per file", async () => {
  const files = new MemoryFileSystem();
  const warnings: string[] = [];
  const groups = await planKeysAndCSRs({
    cfg: config(),
    files,
    kubeconfigDir: "/etc/kubernetes",
    startTime: START,
    warn: (l) => warnings.push(l),
    ...webKeys,
  });
  assert.deepEqual(groups.map(csrGroupHeader), [
    "generating keys and CSRs in /etc/kubernetes/pki",
    "generating keys and CSRs in /etc/kubernetes",
  ]);
  assert.deepEqual(groups[0].entries.map((e) => e.name), [
    "apiserver",
    "apiserver-kubelet-client",
    "front-proxy-client",
    "etcd/server",
    "etcd/peer",
    "etcd/healthcheck-client",
    "apiserver-etcd-client",
  ]);
  assert.deepEqual(groups[1].entries.map((e) => e.name), [
    "admin.conf",
    "super-admin.conf",
    "kubelet.conf",
    "controller-manager.conf",
    "scheduler.conf",
  ]);
  const all = groups.flatMap((g) => g.entries.flatMap((e) => e.files));
  assert.ok(all.every((f) => f.mode === 0o600), "keys, CSRs and kubeconfigs are 0600");
  assert.equal(all.length, 24);
  assert.ok(warnings.some((w) => w.includes("'bad_san' was not added to the 'apiserver' SAN")));

  const byPath = new Map(all.map((f) => [f.path, text(f.data)]));
  const apiserver = parseCSR(byPath.get("/etc/kubernetes/pki/apiserver.csr")!);
  assert.ok(await verifyCSRSignature(apiserver, webCryptoPort));
  assert.equal(apiserver.subject.commonName, "kube-apiserver");
  assert.deepEqual(apiserver.dnsNames, [
    "api.example.test",
    "cp-1",
    "extra.example.test",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
  ]);
  assert.deepEqual(apiserver.ipAddresses, ["10.96.0.1", "192.168.0.10"]);
  const key = await parsePrivateKeyPEM(
    byPath.get("/etc/kubernetes/pki/apiserver.key")!,
    webCryptoPort,
  );
  assert.deepEqual(await exportSPKI(key), apiserver.spki, "the CSR is for the planned key");
  assert.match(byPath.get("/etc/kubernetes/pki/apiserver.key")!, /^-----BEGIN EC PRIVATE KEY-----/);

  const peer = parseCSR(byPath.get("/etc/kubernetes/pki/etcd/peer.csr")!);
  assert.equal(peer.subject.commonName, "cp-1");
  assert.deepEqual(peer.ipAddresses, ["192.168.0.10", "127.0.0.1", "::1"]);
  const kubeletClient = parseCSR(byPath.get("/etc/kubernetes/pki/apiserver-kubelet-client.csr")!);
  // kubeadm v1.37: the kubelet client is not in kubeadm:cluster-admins.
  assert.equal(kubeletClient.subject.commonName, "kube-apiserver-kubelet-client");
  assert.deepEqual(kubeletClient.subject.organization, []);

  // kubelet.conf keeps the controlPlaneEndpoint (upstream's base spec), no CA, no cert.
  const kubelet = parseKubeconfig(byPath.get("/etc/kubernetes/kubelet.conf")!);
  assert.equal(kubelet.clusters[0].cluster.server, "https://api.example.test:7443");
  assert.equal(kubelet.clusters[0].cluster["certificate-authority-data"], undefined);
  assert.equal(kubelet.users[0].name, "system:node:cp-1");
  assert.equal(kubelet.users[0].user["client-certificate-data"], undefined);
  const kubeletKey = await parsePrivateKeyPEM(
    embeddedText(kubelet.users[0].user["client-key-data"]!),
    webCryptoPort,
  );
  const kubeletCSR = parseCSR(byPath.get("/etc/kubernetes/kubelet.conf.csr")!);
  assert.equal(kubeletCSR.subject.commonName, "system:node:cp-1");
  assert.deepEqual(kubeletCSR.subject.organization, ["system:nodes"]);
  assert.deepEqual(await exportSPKI(kubeletKey), kubeletCSR.spki);
  const scheduler = parseKubeconfig(byPath.get("/etc/kubernetes/scheduler.conf")!);
  assert.equal(scheduler.clusters[0].cluster.server, "https://192.168.0.10:6443");
  assert.equal(files.writes.length, 0, "planning writes nothing");
});

Deno.test("planKeysAndCSRs() never overwrites: an existing key, CSR or kubeconfig is an error", async () => {
  const cases: [string, RegExp][] = [
    [
      "/etc/kubernetes/pki/etcd/peer.key",
      /^file already exists: key or CSR \/etc\/kubernetes\/pki\/etcd\/peer$/,
    ],
    [
      "/etc/kubernetes/pki/apiserver.csr",
      /^file already exists: key or CSR \/etc\/kubernetes\/pki\/apiserver$/,
    ],
    [
      "/etc/kubernetes/admin.conf",
      /^file already exists: kube config: \/etc\/kubernetes\/admin\.conf$/,
    ],
    [
      "/etc/kubernetes/scheduler.conf.csr",
      /^file already exists: csr: \/etc\/kubernetes\/scheduler\.conf$/,
    ],
  ];
  for (const [path, message] of cases) {
    const files = new MemoryFileSystem({ [path]: "x" });
    await assert.rejects(
      () =>
        planKeysAndCSRs({
          cfg: config(),
          files,
          kubeconfigDir: "/etc/kubernetes",
          startTime: START,
          ...webKeys,
        }),
      (e: unknown) => e instanceof KubeadmError && message.test(e.message),
      path,
    );
  }
});
