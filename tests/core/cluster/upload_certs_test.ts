import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import type { Secret } from "kubernetes-types/core/v1.d.ts";
import type { Role, RoleBinding } from "kubernetes-types/rbac/v1.d.ts";
import { decryptBytes, fromHex } from "../../../core/cluster/cert_cipher.ts";
import {
  downloadCerts,
  plannedFileFor,
  sharedCertFiles,
  uploadCerts,
} from "../../../core/cluster/upload_certs.ts";
import { base64Decode } from "../../../core/text/base64.ts";
import { fakeApiClient, requestMatching } from "../../support/fake_kube_api.ts";
import { seededRandom } from "../../support/fixed_random.ts";
import { MemoryFileSystem } from "../../support/memory_fs.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";

const KEY = "2b7e151628aed2a6abf7158809cf4f3c2b7e151628aed2a6abf7158809cf4f3c";
const PKI = "/etc/kubernetes/pki";
const CERT = "-----BEGIN CERTIFICATE-----\nMIIBAA==\n-----END CERTIFICATE-----\n";
const RSA_KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIBAA==\n-----END RSA PRIVATE KEY-----\n";
const PUB = "-----BEGIN PUBLIC KEY-----\nMIIBAA==\n-----END PUBLIC KEY-----\n";

function pkiFiles(): MemoryFileSystem {
  return new MemoryFileSystem({
    [`${PKI}/ca.crt`]: CERT,
    [`${PKI}/ca.key`]: RSA_KEY,
    [`${PKI}/front-proxy-ca.crt`]: CERT,
    // front-proxy-ca.key missing (external CA): stored empty
    [`${PKI}/sa.pub`]: PUB,
    [`${PKI}/sa.key`]: RSA_KEY,
    [`${PKI}/etcd/ca.crt`]: CERT,
    [`${PKI}/etcd/ca.key`]: RSA_KEY,
  });
}

function setup() {
  return fakeApiClient([], Date.UTC(2025, 0, 1));
}

Deno.test("shared files: stacked etcd vs external etcd", () => {
  assert.deepEqual(sharedCertFiles(PKI).map((f) => f.name), [
    "ca.crt",
    "ca.key",
    "front-proxy-ca.crt",
    "front-proxy-ca.key",
    "sa.pub",
    "sa.key",
    "etcd/ca.crt",
    "etcd/ca.key",
  ]);
  const ext = sharedCertFiles(PKI, {
    endpoints: ["https://e:2379"],
    caFile: "/e/ca.pem",
    certFile: "/e/c.pem",
    keyFile: "/e/k.pem",
  });
  assert.deepEqual(ext.slice(6), [
    { name: "external-etcd-ca.crt", path: "/e/ca.pem" },
    { name: "external-etcd.crt", path: "/e/c.pem" },
    { name: "external-etcd.key", path: "/e/k.pem" },
  ]);
});

Deno.test("upload-certs: proxy token, encrypted Secret owned by it, RBAC, key printed", async () => {
  const { api, client } = setup();
  const out = new RecordingPrinter();
  await uploadCerts(client, {
    files: pkiFiles(),
    certificatesDir: PKI,
    certificateKey: KEY,
    random: seededRandom(42),
    now: new Date(Date.UTC(2025, 0, 1, 10, 0, 0)),
    crypto: webCryptoPort,
  }, out);
  assert.deepEqual(out.lines, [
    '[upload-certs] Storing the certificates in Secret "kubeadm-certs" in the "kube-system" Namespace',
    `[upload-certs] Using certificate key:\n${KEY}`,
  ]);

  const tokens = [...api.objects.values()].filter((o) =>
    o.metadata?.name?.startsWith("bootstrap-token-")
  ) as Secret[];
  assert.equal(tokens.length, 1);
  const tokenData = Object.fromEntries(
    Object.entries(tokens[0].data!).map(([k, v]) => [k, atob(v)]),
  );
  assert.deepEqual(Object.keys(tokenData).sort(), [
    "description",
    "expiration",
    "token-id",
    "token-secret",
  ]);
  assert.equal(tokenData.description, "Proxy for managing TTL for the kubeadm-certs secret");
  assert.equal(tokenData.expiration, "2025-01-01T12:00:00Z");

  const secret = api.get<Secret>("Secret", "kube-system", "kubeadm-certs")!;
  assert.deepEqual(secret.metadata?.ownerReferences, [{
    apiVersion: "v1",
    kind: "Secret",
    name: tokens[0].metadata!.name!,
    uid: tokens[0].metadata!.uid!,
    controller: true,
    blockOwnerDeletion: true,
  }]);
  assert.deepEqual(Object.keys(secret.data!), [
    "ca.crt",
    "ca.key",
    "etcd-ca.crt",
    "etcd-ca.key",
    "front-proxy-ca.crt",
    "front-proxy-ca.key",
    "sa.key",
    "sa.pub",
  ]);
  assert.equal(secret.data!["front-proxy-ca.key"], "", "missing file → empty value");
  const caKey = await decryptBytes(
    base64Decode(secret.data!["ca.key"]),
    fromHex(KEY),
    webCryptoPort,
  );
  assert.equal(new TextDecoder().decode(caKey), RSA_KEY);
  assert.ok(!atob(secret.data!["ca.key"]).includes("PRIVATE KEY"), "stored encrypted");

  const role = api.get<Role>("Role", "kube-system", "kubeadm:kubeadm-certs")!;
  assert.deepEqual(role.rules, [{
    verbs: ["get"],
    apiGroups: [""],
    resources: ["secrets"],
    resourceNames: ["kubeadm-certs"],
  }]);
  const rb = api.get<RoleBinding>("RoleBinding", "kube-system", "kubeadm:kubeadm-certs")!;
  assert.deepEqual(rb.subjects, [
    { kind: "Group", name: "system:bootstrappers:kubeadm:default-node-token" },
  ]);
});

Deno.test("download-certs decrypts back to planned files with the right modes", async () => {
  const { client } = setup();
  await uploadCerts(client, {
    files: pkiFiles(),
    certificatesDir: PKI,
    certificateKey: KEY,
    random: seededRandom(1),
    now: new Date(0),
    skipCertificateKeyPrint: true,
    crypto: webCryptoPort,
  }, new RecordingPrinter());
  const out = new RecordingPrinter();
  const files = await downloadCerts(
    client,
    { certificateKey: KEY, certificatesDir: "/new/pki", crypto: webCryptoPort },
    out,
  );
  assert.deepEqual(out.lines, [
    '[download-certs] Downloading the certificates in Secret "kubeadm-certs" in the "kube-system" Namespace',
  ]);
  assert.deepEqual(
    files.map((f) => [f.path, f.mode.toString(8), f.kind]),
    [
      ["/new/pki/ca.crt", "644", "certificate"],
      ["/new/pki/ca.key", "600", "key"],
      ["/new/pki/front-proxy-ca.crt", "644", "certificate"],
      ["/new/pki/sa.pub", "644", "public-key"],
      ["/new/pki/sa.key", "600", "key"],
      ["/new/pki/etcd/ca.crt", "644", "certificate"],
      ["/new/pki/etcd/ca.key", "600", "key"],
    ],
  );
  assert.equal(new TextDecoder().decode(files[1].data as Uint8Array), RSA_KEY);
});

Deno.test("download-certs errors: wrong key, expired Secret, missing entry, bad key text", async () => {
  const { api, client } = setup();
  const out = new RecordingPrinter();
  await assert.rejects(
    () =>
      downloadCerts(
        client,
        { certificateKey: KEY, certificatesDir: PKI, crypto: webCryptoPort },
        out,
      ),
    /error downloading the secret: Secret "kubeadm-certs" was not found in the "kube-system" Namespace\. This Secret might have expired\. Please, run `kubeadm init phase upload-certs --upload-certs` on a control plane to generate a new one/,
  );
  await uploadCerts(client, {
    files: pkiFiles(),
    certificatesDir: PKI,
    certificateKey: KEY,
    random: seededRandom(3),
    now: new Date(0),
    crypto: webCryptoPort,
  }, out);
  await assert.rejects(
    () =>
      downloadCerts(client, {
        certificateKey: "00".repeat(32),
        certificatesDir: PKI,
        crypto: webCryptoPort,
      }, out),
    /^KubeadmError: error decoding secret data with provided key: cipher: message authentication failed$/,
  );
  await assert.rejects(
    () =>
      downloadCerts(
        client,
        { certificateKey: "xyz", certificatesDir: PKI, crypto: webCryptoPort },
        out,
      ),
    /error decoding certificate key: encoding\/hex: invalid byte: U\+0078 'x'/,
  );
  await assert.rejects(
    () =>
      downloadCerts(client, {
        certificateKey: KEY,
        certificatesDir: PKI,
        externalEtcd: { endpoints: ["https://e:2379"], caFile: "/e/ca.pem" },
        crypto: webCryptoPort,
      }, out),
    /the Secret does not include the required certificate or key - name: external-etcd-ca.crt, path: \/e\/ca.pem/,
  );
  api.failNext({
    match: requestMatching("GET", "Secret"),
    status: 403,
    reason: "Forbidden",
    message: "no",
  });
  await assert.rejects(
    () =>
      downloadCerts(
        client,
        { certificateKey: KEY, certificatesDir: PKI, crypto: webCryptoPort },
        out,
      ),
    /^KubeadmError: error downloading the secret: unable to get Secret kube-system\/kubeadm-certs: no$/,
  );
});

Deno.test("downloaded entries that are neither keys nor certificates are rejected", () => {
  assert.throws(
    () => plannedFileFor("/x", new TextEncoder().encode("garbage")),
    /unknown data found in Secret entry/,
  );
  assert.equal(
    plannedFileFor(
      "/k",
      new TextEncoder().encode(
        "-----BEGIN EC PRIVATE KEY-----\nAA==\n-----END EC PRIVATE KEY-----\n",
      ),
    ).mode,
    0o600,
  );
});
