import { webCryptoPort } from "../../../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../../../support/platform.ts";
import assert from "node:assert/strict";
import {
  certTree,
  prefetchKeys,
  runCert,
  runCertsHeader,
} from "../../../../core/phases/init/certs.ts";
import { checkExistingCerts, ensureCert } from "../../../../core/certs/tree.ts";
import { initWorkflow } from "../../../../core/phases/init/workflow.ts";
import { runWorkflow } from "../../../../core/workflow/runner.ts";
import type { InitData } from "../../../../core/phases/init/data.ts";

/** `init phase certs all`. */
const runAllCerts = (data: InitData) => runWorkflow(initWorkflow(), data, { only: "certs/all" });
import { ExistingFileError, PhaseError, PkiError } from "../../../../core/errors.ts";
import { keyPoolFor } from "../../../../core/pki/key_pool.ts";
import {
  createSelfSignedCACert,
  encodeCertificatePEM,
  parseCertificatesPEM,
} from "../../../../core/pki/cert.ts";
import { encodePrivateKeyPEM, generateKeyPair } from "../../../../core/pki/keys.ts";
import { initDataFixture } from "../../../support/init_data_fixture.ts";
import { MemoryFileSystem } from "../../../support/memory_fs.ts";
import {
  openssl,
  opensslPubFromCert,
  opensslPubFromKey,
  runTool,
  x509Text,
} from "../../../support/openssl.ts";
import { checkPkiDir, PKI_LEAVES as LEAVES } from "../../../support/pki_checks.ts";
import { seededRandom } from "../../../support/fixed_random.ts";

const PKI = "/etc/kubernetes/pki";
const START = new Date("2026-06-01T12:00:00Z");

function fixture(files = new MemoryFileSystem(), alg: "ECDSA-P256" | "RSA-2048" = "ECDSA-P256") {
  const f = initDataFixture({ files });
  f.data.cfg.cluster.encryptionAlgorithm = alg;
  f.data.startTime = START;
  f.data.clock = { now: () => new Date(START.getTime() + 60_000) };
  f.data.random = seededRandom(42);
  return f;
}

Deno.test("runAllCerts() creates the whole PKI like upstream (ECDSA-P256), verified with openssl", async () => {
  const { data, out, files } = fixture();
  data.cfg.cluster.apiServer.certSANs = ["lb.example.com", "10.0.0.50", "not_valid"];
  await runAllCerts(data);
  assert.deepEqual(out.lines, [
    '[certs] Using certificateDir folder "/etc/kubernetes/pki"',
    '[certs] Generating "ca" certificate and key',
    '[certs] Generating "apiserver" certificate and key',
    "[certs] apiserver serving cert is signed for DNS names [cp-1 kubernetes kubernetes.default kubernetes.default.svc kubernetes.default.svc.cluster.local lb.example.com] and IPs [10.96.0.1 192.168.0.10 10.0.0.50]",
    '[certs] Generating "apiserver-kubelet-client" certificate and key',
    '[certs] Generating "front-proxy-ca" certificate and key',
    '[certs] Generating "front-proxy-client" certificate and key',
    '[certs] Generating "etcd/ca" certificate and key',
    '[certs] Generating "etcd/server" certificate and key',
    "[certs] etcd/server serving cert is signed for DNS names [cp-1 localhost] and IPs [192.168.0.10 127.0.0.1 ::1]",
    '[certs] Generating "etcd/peer" certificate and key',
    "[certs] etcd/peer serving cert is signed for DNS names [cp-1 localhost] and IPs [192.168.0.10 127.0.0.1 ::1]",
    '[certs] Generating "etcd/healthcheck-client" certificate and key',
    '[certs] Generating "apiserver-etcd-client" certificate and key',
    '[certs] Generating "sa" key and public key',
  ]);
  assert.deepEqual(out.warnings, [
    "[certificates] WARNING: 'not_valid' was not added to the 'apiserver' SAN, because it is not a valid IP or RFC-1123 compliant DNS entry",
  ]);
  // Files, modes and kinds.
  const expected = ["ca", "front-proxy-ca", "etcd/ca", ...LEAVES.map(([b]) => b)];
  for (const base of expected) {
    assert.equal(files.files.get(`${PKI}/${base}.crt`)?.mode, 0o644, base);
    assert.equal(files.files.get(`${PKI}/${base}.key`)?.mode, 0o600, base);
    assert.match(files.text(`${PKI}/${base}.key`)!, /^-----BEGIN EC PRIVATE KEY-----\n/);
  }
  assert.equal(files.files.get(`${PKI}/sa.key`)?.mode, 0o600);
  assert.equal(files.files.get(`${PKI}/sa.pub`)?.mode, 0o600);
  assert.equal(files.files.size, 2 * expected.length + 2);
  assert.match(files.text(`${PKI}/sa.pub`)!, /^-----BEGIN PUBLIC KEY-----\n/);
  assert.equal(await opensslPubFromKey(files.text(`${PKI}/sa.key`)!), files.text(`${PKI}/sa.pub`));

  const root = await files.dumpTo(await Deno.makeTempDir());
  await checkPkiDir(`${root}${PKI}`);
  const api = await x509Text(files.text(`${PKI}/apiserver.crt`)!);
  assert.match(api, /Subject: CN=kube-apiserver\n/);
  assert.match(api, /Not Before: Jun {2}1 11:55:00 2026 GMT/);
  assert.match(api, /Not After : Jun {2}1 12:00:00 2027 GMT/);
  assert.match(api, /TLS Web Server Authentication\n/);
  assert.match(
    api,
    /DNS:cp-1, DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc, DNS:kubernetes.default.svc.cluster.local, DNS:lb.example.com, IP Address:10.96.0.1, IP Address:192.168.0.10, IP Address:10.0.0.50/,
  );
  const kc = await x509Text(files.text(`${PKI}/apiserver-kubelet-client.crt`)!);
  // kubeadm v1.37: no O=kubeadm:cluster-admins (the kubeadm:apiserver-kubelet-client binding).
  assert.match(kc, /Subject: CN=kube-apiserver-kubelet-client\n/);
  assert.match(kc, /TLS Web Client Authentication\n/);
  assert.doesNotMatch(kc, /Subject Alternative Name/);
  const etcdServer = await x509Text(files.text(`${PKI}/etcd/server.crt`)!);
  assert.match(etcdServer, /Subject: CN=cp-1\n/);
  assert.match(etcdServer, /TLS Web Server Authentication, TLS Web Client Authentication/);
  const ca = await x509Text(files.text(`${PKI}/ca.crt`)!);
  assert.match(ca, /Not After : May 29 12:00:00 2036 GMT/);
  assert.match(ca, /CA:TRUE/);
  const hc = await x509Text(files.text(`${PKI}/etcd/healthcheck-client.crt`)!);
  assert.match(hc, /Subject: CN=kube-etcd-healthcheck-client\n/);
  await Deno.remove(root, { recursive: true });
});

Deno.test("running the certs phase twice changes no bytes and reuses every file", async () => {
  const { data, files, out } = fixture();
  await runAllCerts(data);
  const before = files.snapshot();
  const writes = files.writes.length;
  const created = [
    "creating a new certificate authority for ca",
    "creating a new certificate authority for front-proxy-ca",
    "creating a new certificate authority for etcd-ca",
    "creating new public/private key files for signing service account users",
  ];
  assert.deepEqual(out.messages(), created);
  assert.ok(out.logged.every((l) => l.level === 1 && l.source === "tree.ts"));
  const second = fixture(files);
  await runAllCerts(second.data);
  assert.deepEqual(files.snapshot(), before);
  // Upstream's -v=1 lines: a CA is announced only when created, the service-account key always.
  assert.deepEqual(second.out.messages(), created.slice(3));
  assert.equal(files.writes.length, writes);
  assert.deepEqual(second.out.lines, [
    '[certs] Using certificateDir folder "/etc/kubernetes/pki"',
    "[certs] Using existing ca certificate authority",
    "[certs] Using existing apiserver certificate and key on disk",
    "[certs] Using existing apiserver-kubelet-client certificate and key on disk",
    "[certs] Using existing front-proxy-ca certificate authority",
    "[certs] Using existing front-proxy-client certificate and key on disk",
    "[certs] Using existing etcd/ca certificate authority",
    "[certs] Using existing etcd/server certificate and key on disk",
    "[certs] Using existing etcd/peer certificate and key on disk",
    "[certs] Using existing etcd/healthcheck-client certificate and key on disk",
    "[certs] Using existing apiserver-etcd-client certificate and key on disk",
    '[certs] Using the existing "sa" key',
  ]);
  assert.deepEqual(second.out.warnings, []);
  // No certificate key was prefetched; only the still-missing kubeconfig files' keys.
  assert.deepEqual(keyPoolFor(second.data).pendingIds.filter((id) => id.startsWith("cert:")), []);
});

Deno.test("an existing certificate signed by another CA is an ExistingFileError naming the file", async () => {
  const { data, files } = fixture();
  await runAllCerts(data);
  // Replace the CA (cert and key) with a different one: apiserver.crt no longer chains.
  const otherKey = await generateKeyPair("ECDSA-P256", webKeys);
  const otherCA = await createSelfSignedCACert(
    { commonName: "kubernetes", notBefore: START },
    otherKey,
    seededRandom(1),
    webCryptoPort,
  );
  files.put(`${PKI}/ca.crt`, encodeCertificatePEM(otherCA));
  files.put(`${PKI}/ca.key`, await encodePrivateKeyPEM(otherKey), 0o600);
  const again = fixture(files);
  await runCert(again.data, "ca");
  await assert.rejects(
    () => runCert(again.data, "apiserver"),
    (e: unknown) =>
      e instanceof ExistingFileError &&
      e.field === `${PKI}/apiserver.crt` &&
      e.message.startsWith(
        "[certs] certificate apiserver not signed by CA certificate ca: x509: certificate signed by unknown authority",
      ),
  );
});

Deno.test("files that do not fit are rejected: non-CA ca.crt, mismatched key, stray key, garbage", async () => {
  const { data, files } = fixture();
  await runAllCerts(data);
  // A leaf certificate where the CA should be.
  const notCA = fixture(
    new MemoryFileSystem({
      [`${PKI}/ca.crt`]: files.text(`${PKI}/apiserver.crt`)!,
      [`${PKI}/ca.key`]: files.text(`${PKI}/apiserver.key`)!,
    }),
  );
  await assert.rejects(
    () => runCert(notCA.data, "ca"),
    (e: unknown) =>
      e instanceof ExistingFileError && e.message === 'certificate "ca" is not a CA' &&
      e.field === `${PKI}/ca.crt`,
  );
  // A key that belongs to another certificate.
  files.put(`${PKI}/apiserver.key`, files.text(`${PKI}/apiserver-kubelet-client.key`)!, 0o600);
  await assert.rejects(
    () => runCert(fixture(files).data, "apiserver"),
    /the private key file \/etc\/kubernetes\/pki\/apiserver\.key does not match the certificate \/etc\/kubernetes\/pki\/apiserver\.crt/,
  );
  // A key without its certificate.
  files.remove(`${PKI}/apiserver.crt`);
  await assert.rejects(
    () => runCert(fixture(files).data, "apiserver"),
    (e: unknown) =>
      e instanceof ExistingFileError &&
      e.message ===
        'failed to write or validate certificate "apiserver": failure loading apiserver certificate: couldn\'t load the certificate file /etc/kubernetes/pki/apiserver.crt: open /etc/kubernetes/pki/apiserver.crt: no such file or directory',
  );
  // Garbage instead of a certificate.
  files.put(`${PKI}/front-proxy-client.crt`, "garbage");
  await assert.rejects(
    () => runCert(fixture(files).data, "front-proxy-client"),
    /failure loading front-proxy-client certificate: couldn't load the certificate file \/etc\/kubernetes\/pki\/front-proxy-client\.crt: error reading \/etc\/kubernetes\/pki\/front-proxy-client\.crt: data does not contain any valid RSA or ECDSA certificates/,
  );
  // A broken sa.key.
  files.put(`${PKI}/sa.key`, "garbage");
  await assert.rejects(
    () => runCert(fixture(files).data, "sa"),
    /file sa\.key existed but it could not be loaded properly/,
  );
});

Deno.test("external CA: keyless ca.crt with provided leaves is used; nothing is written; missing leaves fail", async () => {
  const { data, files } = fixture();
  await runAllCerts(data);
  files.remove(`${PKI}/ca.key`);
  const ext = fixture(files);
  // `init phase certs`: the kubeconfig files (which an external CA requires) are not its business.
  ext.data.willRun = (phase) => phase.startsWith("certs/");
  const writes = files.writes.length;
  await runCertsHeader(ext.data);
  for (const name of ["ca", "apiserver", "apiserver-kubelet-client"]) await runCert(ext.data, name);
  assert.deepEqual(ext.out.lines, [
    '[certs] Using certificateDir folder "/etc/kubernetes/pki"',
    "[certs] Using existing ca keyless certificate authority",
    "[certs] Using existing apiserver certificate and key on disk",
    "[certs] Using existing apiserver-kubelet-client certificate and key on disk",
  ]);
  assert.equal(files.writes.length, writes);
  files.remove(`${PKI}/apiserver.crt`);
  files.remove(`${PKI}/apiserver.key`);
  await assert.rejects(
    () => runCert(fixture(files).data, "apiserver"),
    (e: unknown) =>
      e instanceof ExistingFileError &&
      e.message.startsWith(
        "couldn't load CA certificate ca: failure loading ca certificate authority: failed to load key:",
      ) &&
      /external CA mode/.test(e.hint ?? ""),
  );
  assert.equal(files.writes.length, writes);
});

Deno.test("a leaf without any CA tells the user to create the CA first", async () => {
  const { data } = fixture();
  await assert.rejects(
    () => runCert(data, "apiserver"),
    (e: unknown) =>
      e instanceof PkiError &&
      e.message ===
        "couldn't load CA certificate ca: couldn't load ca certificate authority from /etc/kubernetes/pki",
  );
});

Deno.test("external etcd: etcd certificates are skipped with upstream's lines", async () => {
  const { data, out, files } = fixture();
  data.cfg.cluster.etcd = { external: { endpoints: ["https://10.0.0.9:2379"] } };
  await runAllCerts(data);
  assert.ok(
    out.lines.includes(
      "[certs] External etcd mode: Skipping etcd/ca certificate authority generation",
    ),
  );
  assert.ok(
    out.lines.includes("[certs] External etcd mode: Skipping etcd/server certificate generation"),
  );
  assert.ok(
    out.lines.includes(
      "[certs] External etcd mode: Skipping apiserver-etcd-client certificate generation",
    ),
  );
  assert.equal([...files.files.keys()].filter((p) => p.includes("etcd")).length, 0);
  assert.equal(files.files.size, 5 * 2 + 2);
});

Deno.test("the header prefetches every missing key concurrently, including kubeconfig client keys", async () => {
  const { data } = fixture();
  await prefetchKeys(data);
  const ids = keyPoolFor(data).pendingIds.sort();
  assert.equal(ids.length, 11 + 5);
  assert.ok(
    ids.includes("cert:sa") && ids.includes("kubeconfig:admin.conf") &&
      ids.includes("cert:etcd-peer"),
  );
  await runAllCerts(data);
  assert.deepEqual(keyPoolFor(data).pendingIds.sort(), [
    "kubeconfig:admin.conf",
    "kubeconfig:controller-manager.conf",
    "kubeconfig:kubelet.conf",
    "kubeconfig:scheduler.conf",
    "kubeconfig:super-admin.conf",
  ]);
  const skipping = fixture();
  skipping.data.cfg.init.skipPhases = ["kubeconfig", "certs/etcd-ca"];
  await prefetchKeys(skipping.data);
  assert.equal(
    keyPoolFor(skipping.data).pendingIds.some((id) => id.startsWith("kubeconfig:")),
    false,
  );
  assert.equal(keyPoolFor(skipping.data).pendingIds.includes("cert:etcd-ca"), false);
});

Deno.test("RSA-2048: ca, apiserver and sa use PKCS#1 keys and sha256WithRSAEncryption", async () => {
  const { data, files } = fixture(new MemoryFileSystem(), "RSA-2048");
  data.cfg.init.skipPhases = ["kubeconfig"];
  for (const name of ["ca", "apiserver", "sa"]) await runCert(data, name);
  for (const base of ["ca", "apiserver", "sa"]) {
    assert.match(files.text(`${PKI}/${base}.key`)!, /^-----BEGIN RSA PRIVATE KEY-----\n/);
    const check = await runTool(
      "openssl",
      ["rsa", "-check", "-noout"],
      files.text(`${PKI}/${base}.key`)!,
    );
    assert.equal(check.code, 0, check.stderr);
  }
  const root = await files.dumpTo(await Deno.makeTempDir());
  const v = await runTool("openssl", [
    "verify",
    "-CAfile",
    `${root}${PKI}/ca.crt`,
    `${root}${PKI}/apiserver.crt`,
  ]);
  assert.equal(v.code, 0, v.stderr);
  assert.match(
    await x509Text(files.text(`${PKI}/apiserver.crt`)!),
    /Signature Algorithm: sha256WithRSAEncryption/,
  );
  assert.match(
    await openssl(["rsa", "-pubin", "-noout", "-text"], files.text(`${PKI}/sa.pub`)!),
    /Public-Key: \(2048 bit\)/,
  );
  const [cert] = parseCertificatesPEM(files.text(`${PKI}/apiserver.crt`)!);
  assert.equal(
    await opensslPubFromKey(files.text(`${PKI}/apiserver.key`)!),
    await opensslPubFromCert(encodeCertificatePEM(cert)),
  );
  await Deno.remove(root, { recursive: true });
});

// Issue 9, finding 6: a CA key that does not match its certificate is refused before anything
// is signed, naming both files, and nothing is written.

/** A PKI from runAllCerts() whose `<ca>.key` is replaced by an unrelated key. */
async function pkiWithForeignCaKey(ca: string) {
  const { data, files } = fixture();
  await runAllCerts(data);
  files.put(
    `${PKI}/${ca}.key`,
    await encodePrivateKeyPEM(await generateKeyPair("ECDSA-P256", webKeys)),
    0o600,
  );
  return files;
}

function mismatch(ca: string, hint = /or remove both files to have them generated$/) {
  return (e: unknown) =>
    e instanceof ExistingFileError && e.field === `${PKI}/${ca}.key` &&
    e.message.includes(
      `the private key file ${PKI}/${ca}.key does not match the certificate ${PKI}/${ca}.crt`,
    ) && hint.test(e.hint ?? "");
}

for (
  const [leaf, ca] of [["apiserver", "ca"], ["front-proxy-client", "front-proxy-ca"], [
    "etcd/peer",
    "etcd/ca",
  ]]
) {
  Deno.test(`init phase certs ${leaf}: a ${ca}.key not matching ${ca}.crt is refused before signing`, async () => {
    const files = await pkiWithForeignCaKey(ca);
    files.remove(`${PKI}/${leaf}.crt`);
    files.remove(`${PKI}/${leaf}.key`);
    const before = files.snapshot();
    const f = fixture(files);
    await assert.rejects(async () => {
      await runCertsHeader(f.data);
      await runCert(f.data, leaf);
    }, mismatch(ca));
    assert.deepEqual(files.snapshot(), before, "nothing written");
  });
}

Deno.test("outside init (a joining control plane's tree) a mismatched CA key is only to be restored", async () => {
  const files = await pkiWithForeignCaKey("ca");
  files.remove(`${PKI}/apiserver.crt`);
  files.remove(`${PKI}/apiserver.key`);
  const before = files.snapshot();
  // The tree as join builds it: no `recovery`, so the default advice is to restore.
  const { recovery: _init, ...tree } = certTree(fixture(files).data);
  for (
    const run of [() => checkExistingCerts(tree, ["ca"]), () => ensureCert(tree, "apiserver")]
  ) {
    await assert.rejects(
      run,
      mismatch(
        "ca",
        /^restore the key \/etc\/kubernetes\/pki\/ca\.crt was issued for from a backup of \/etc\/kubernetes\/pki or from another control-plane node; do not remove or regenerate the ca certificate authority: /,
      ),
    );
  }
  assert.deepEqual(files.snapshot(), before, "nothing written");
});

Deno.test("init phase certs all: a mismatched front-proxy CA pair fails before any file is written", async () => {
  const files = await pkiWithForeignCaKey("front-proxy-ca");
  // Only the CAs are left: every leaf would be generated.
  for (const [leaf] of LEAVES) {
    files.remove(`${PKI}/${leaf}.crt`);
    files.remove(`${PKI}/${leaf}.key`);
  }
  const before = files.snapshot();
  // The header refuses the pair, before the sub-phases write anything.
  await assert.rejects(
    () => runAllCerts(fixture(files).data),
    (e: unknown) =>
      e instanceof PhaseError && e.phase === "certs" && mismatch("front-proxy-ca")(e.cause),
  );
  assert.deepEqual(files.snapshot(), before, "nothing written, not even the ca-signed leaves");
});

Deno.test("sa.pub not matching sa.key is refused, naming both files", async () => {
  const { data, files } = fixture();
  await runAllCerts(data);
  const other = await generateKeyPair("ECDSA-P256", webKeys);
  const { encodePublicKeyPEM } = await import("../../../../core/pki/keys.ts");
  files.put(`${PKI}/sa.pub`, await encodePublicKeyPEM(other));
  await assert.rejects(
    () => runCert(fixture(files).data, "sa"),
    (e: unknown) =>
      e instanceof ExistingFileError && e.field === `${PKI}/sa.pub` &&
      e.message.includes(
        `the public key file ${PKI}/sa.pub does not match the private key file ${PKI}/sa.key`,
      ) && /restore the matching pair or remove both files to have them generated$/.test(e.hint!),
  );
  // Outside init the cluster's tokens are signed with sa.key: restore, never regenerate.
  const { recovery: _init, ...tree } = certTree(fixture(files).data);
  await assert.rejects(
    () => ensureCert(tree, "sa"),
    (e: unknown) =>
      e instanceof ExistingFileError && e.field === `${PKI}/sa.pub` &&
      /restore the matching pair from a backup .*; do not remove or regenerate the service-account key pair: /
        .test(e.hint!) &&
      !/have them generated/.test(e.hint!),
  );
});

Deno.test("certs all refuses an unloadable sa.key before writing anything (found by scripts/fuzz)", async () => {
  const files = new MemoryFileSystem();
  files.put(`${PKI}/sa.key`, "garbage", 0o600);
  const before = [...files.files.keys()];
  await assert.rejects(
    () => runAllCerts(fixture(files).data),
    (e: unknown) =>
      e instanceof PhaseError && e.phase === "certs" &&
      /file sa\.key existed but it could not be loaded properly/.test(e.message),
  );
  assert.deepEqual([...files.files.keys()], before);
});

/** A valid tree (seed 42) and another cluster's (seed 7, ECDSA-P384: other CAs, other key type). */
const trees = (async () => {
  const ours = fixture();
  await runAllCerts(ours.data);
  const other = fixture(new MemoryFileSystem(), "ECDSA-P256");
  other.data.cfg.cluster.encryptionAlgorithm = "ECDSA-P384";
  other.data.random = seededRandom(7);
  await runAllCerts(other.data);
  return { ours: ours.files, other: other.files };
})();

/**
 * Broken existing files that `init phase certs all` used to refuse only after writing the
 * certificates ahead of them (found by scripts/fuzz): each starts from ca.crt and ca.key alone,
 * so before the fix ca-signed leaves (and other CAs) were written first.
 */
const BROKEN_FILES: {
  name: string;
  files: (t: Awaited<typeof trees>) => Record<string, string>;
  field: string;
  message: RegExp;
}[] = [
  {
    name: "a garbage leaf certificate (front-proxy-client.crt)",
    files: (t) => ({
      "front-proxy-client.crt": "garbage",
      "front-proxy-client.key": t.ours.text(`${PKI}/front-proxy-client.key`)!,
    }),
    field: "front-proxy-client.crt",
    message: /^failure loading front-proxy-client certificate: /,
  },
  {
    name: "a truncated non-first CA certificate (etcd/ca.crt)",
    files: (t) => {
      const pem = t.ours.text(`${PKI}/etcd/ca.crt`)!;
      return { "etcd/ca.crt": pem.slice(0, pem.length / 2) };
    },
    field: "etcd/ca.crt",
    message: /^failure loading etcd\/ca certificate: /,
  },
  {
    name: "a non-first CA key without its certificate (front-proxy-ca.key)",
    files: (t) => ({ "front-proxy-ca.key": t.ours.text(`${PKI}/front-proxy-ca.key`)! }),
    field: "front-proxy-ca.key",
    message: /^failure loading front-proxy-ca certificate: .*no such file or directory$/,
  },
  {
    name: "a leaf key without its certificate (apiserver-etcd-client.key)",
    files: (t) => ({
      "apiserver-etcd-client.key": t.ours.text(`${PKI}/apiserver-etcd-client.key`)!,
    }),
    field: "apiserver-etcd-client.key",
    message: /^failed to write or validate certificate "apiserver-etcd-client": /,
  },
  {
    name: "a leaf signed by another CA (etcd/peer of another cluster)",
    files: (t) => ({
      "etcd/ca.crt": t.ours.text(`${PKI}/etcd/ca.crt`)!,
      "etcd/ca.key": t.ours.text(`${PKI}/etcd/ca.key`)!,
      "etcd/peer.crt": t.other.text(`${PKI}/etcd/peer.crt`)!,
      "etcd/peer.key": t.other.text(`${PKI}/etcd/peer.key`)!,
    }),
    field: "etcd/peer.crt",
    message: /^\[certs\] certificate etcd\/peer not signed by CA certificate etcd\/ca: /,
  },
  {
    name: "a leaf key of another type (front-proxy-client.key, P-384)",
    files: (t) => ({
      "front-proxy-ca.crt": t.ours.text(`${PKI}/front-proxy-ca.crt`)!,
      "front-proxy-ca.key": t.ours.text(`${PKI}/front-proxy-ca.key`)!,
      "front-proxy-client.crt": t.ours.text(`${PKI}/front-proxy-client.crt`)!,
      "front-proxy-client.key": t.other.text(`${PKI}/front-proxy-client.key`)!,
    }),
    field: "front-proxy-client.key",
    message: /does not match the certificate \/etc\/kubernetes\/pki\/front-proxy-client\.crt$/,
  },
  {
    name: "a leaf whose CA this run generates (etcd/server without etcd/ca)",
    files: (t) => ({
      "etcd/server.crt": t.ours.text(`${PKI}/etcd/server.crt`)!,
      "etcd/server.key": t.ours.text(`${PKI}/etcd/server.key`)!,
    }),
    field: "etcd/server.crt",
    message:
      /^\[certs\] certificate etcd\/server not signed by CA certificate etcd\/ca: \/etc\/kubernetes\/pki\/etcd\/ca\.crt does not exist, so this run generates a new etcd\/ca CA$/,
  },
];

for (const c of BROKEN_FILES) {
  Deno.test(`init phase certs all refuses ${c.name} before writing anything`, async () => {
    const t = await trees;
    const files = new MemoryFileSystem();
    for (const base of ["ca.crt", "ca.key"]) {
      files.put(`${PKI}/${base}`, t.ours.text(`${PKI}/${base}`)!);
    }
    for (const [base, text] of Object.entries(c.files(t))) files.put(`${PKI}/${base}`, text);
    const before = files.snapshot();
    await assert.rejects(
      () => runAllCerts(fixture(files).data),
      (e: unknown) =>
        e instanceof PhaseError && e.phase === "certs" && e.cause instanceof ExistingFileError &&
        e.cause.field === `${PKI}/${c.field}` && c.message.test(e.cause.message) &&
        (e.cause.hint ?? "") !== "",
    );
    assert.deepEqual(files.snapshot(), before, "nothing written");
  });
}

Deno.test("init phase certs all still reuses a valid tree as is, and completes a partial one", async () => {
  const t = await trees;
  const full = new MemoryFileSystem();
  for (const [path, f] of t.ours.files) full.put(path, f.data, f.mode);
  const before = full.snapshot();
  const again = fixture(full);
  await runAllCerts(again.data);
  assert.deepEqual(full.snapshot(), before, "nothing rewritten");
  assert.ok(again.out.lines.every((l) => !l.includes("Generating")), again.out.lines.join("\n"));
  // Only etcd/ca's leaves (and nothing else) are missing: they are signed by the existing CA.
  for (const leaf of ["etcd/server", "etcd/peer"]) {
    full.remove(`${PKI}/${leaf}.crt`);
    full.remove(`${PKI}/${leaf}.key`);
  }
  const partial = fixture(full);
  await runAllCerts(partial.data);
  assert.deepEqual(
    partial.out.lines.filter((l) => l.includes("Generating")),
    [
      '[certs] Generating "etcd/server" certificate and key',
      '[certs] Generating "etcd/peer" certificate and key',
    ],
  );
});
