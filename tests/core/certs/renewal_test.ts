import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../../support/platform.ts";
import assert from "node:assert/strict";
import {
  caTargets,
  planRenewal,
  podsToRestart,
  type RenewalInput,
  renewalMessage,
  type RenewalPlan,
  renewTargets,
} from "../../../core/certs/renewal.ts";
import { PkiDirectory } from "../../../core/certs/pki_dir.ts";
import {
  createSignedCert,
  encodeCertificatePEM,
  keyMatchesCertificate,
  parseCertificatesPEM,
  verifyCertChain,
} from "../../../core/pki/cert.ts";
import {
  encodePrivateKeyPEM,
  generateKeyPair,
  parsePrivateKeyPEM,
} from "../../../core/pki/keys.ts";
import {
  embeddedBytes,
  embeddedText,
  parseKubeconfig,
} from "../../../core/kubeconfig/kubeconfig.ts";
import { type PlannedFile, writePlannedFiles } from "../../../core/ports/files.ts";
import { ExistingFileError, KubeadmError } from "../../../core/errors.ts";
import { KUBECONFIG_DIR, PKI_CREATED, PKI_DIR, pkiFixture } from "../../support/pki_fixture.ts";
import { MemoryFileSystem } from "../../support/memory_fs.ts";
import { seededRandom } from "../../support/fixed_random.ts";

const START = new Date("2026-09-01T10:00:00Z");
const ALL = renewTargets().map((t) => t.name);

function pkiOf(files: MemoryFileSystem): PkiDirectory {
  return new PkiDirectory(files, PKI_DIR, webCryptoPort);
}

function input(files: MemoryFileSystem, names = ALL, externalEtcd = false): RenewalInput {
  return {
    pki: pkiOf(files),
    kubeconfigDir: KUBECONFIG_DIR,
    settings: {
      encryptionAlgorithm: "ECDSA-P256",
      certificateValidityPeriod: "8760h0m0s",
      externalEtcd,
    },
    names,
    startTime: START,
    now: START,
    random: seededRandom(11),
  };
}

/** The certificate (and key) a target's file holds, PKI pair or kubeconfig. */
async function pairOf(files: MemoryFileSystem, name: string) {
  const target = renewTargets().find((t) => t.name === name)!;
  if (target.source.kind === "pki") {
    return {
      cert: await pkiOf(files).loadCert(target.source.baseName),
      key: await pkiOf(files).loadKey(target.source.baseName),
      ca: await pkiOf(files).loadCert(target.caBaseName),
    };
  }
  const cfg = parseKubeconfig(files.text(`${KUBECONFIG_DIR}/${target.source.fileName}`)!);
  const user = cfg.users[0].user;
  return {
    cert: parseCertificatesPEM(embeddedBytes(user["client-certificate-data"]!))[0],
    key: await parsePrivateKeyPEM(embeddedText(user["client-key-data"]!), webCryptoPort),
    ca: parseCertificatesPEM(embeddedBytes(cfg.clusters[0].cluster["certificate-authority-data"]!))[
      0
    ],
    kubeconfig: cfg,
  };
}

/** Every target's certificate verifies against its CA and matches its key. */
async function assertAllPairedAndValid(files: MemoryFileSystem, at: Date) {
  for (const name of ALL) {
    const { cert, key, ca } = await pairOf(files, name);
    assert.ok(await keyMatchesCertificate(key, cert), `${name}: key matches certificate`);
    await verifyCertChain(cert, [], ca, at, webCryptoPort);
  }
}

Deno.test("renewTargets() lists every leaf and the four kubeconfigs upstream renews, sorted", () => {
  assert.deepEqual(ALL, [
    "admin.conf",
    "apiserver",
    "apiserver-etcd-client",
    "apiserver-kubelet-client",
    "controller-manager.conf",
    "etcd-healthcheck-client",
    "etcd-peer",
    "etcd-server",
    "front-proxy-client",
    "scheduler.conf",
    "super-admin.conf",
  ]);
  assert.ok(!ALL.includes("kubelet.conf"));
  assert.deepEqual(renewTargets(true).map((t) => t.name), [
    "admin.conf",
    "apiserver",
    "apiserver-kubelet-client",
    "controller-manager.conf",
    "front-proxy-client",
    "scheduler.conf",
    "super-admin.conf",
  ]);
  assert.deepEqual(caTargets().map((c) => c.name), ["ca", "etcd-ca", "front-proxy-ca"]);
  assert.deepEqual(caTargets(true).map((c) => c.name), ["ca", "front-proxy-ca"]);
  const peer = renewTargets().find((t) => t.name === "etcd-peer")!;
  assert.equal(peer.caBaseName, "etcd/ca");
  assert.equal(peer.longName, "certificate for etcd nodes to communicate with each other");
  const sched = renewTargets().find((t) => t.name === "scheduler.conf")!;
  assert.equal(
    sched.longName,
    "certificate embedded in the kubeconfig file for the scheduler manager to use",
  );
});

Deno.test("planRenewal() renews every target with a new key, same subject, SANs and usages", async () => {
  const { files } = await pkiFixture();
  const before = new Map<string, Awaited<ReturnType<typeof pairOf>>>();
  for (const name of ALL) before.set(name, await pairOf(files, name));
  const snapshot = files.snapshot();
  const plan = await planRenewal(input(files));
  assert.deepEqual(files.snapshot(), snapshot, "planning writes nothing");
  assert.deepEqual(plan.outcomes.map((o) => o.status), ALL.map(() => "renewed"));
  assert.deepEqual(
    plan.outcomes.map(renewalMessage),
    renewTargets().map((t) => `${t.longName} renewed`),
  );
  // Key before certificate for PKI pairs; one file per kubeconfig; upstream's modes.
  assert.deepEqual(
    plan.files.filter((f) => f.path.includes("/pki/apiserver.")).map((f) => [f.path, f.mode]),
    [[`${PKI_DIR}/apiserver.key`, 0o600], [`${PKI_DIR}/apiserver.crt`, 0o644]],
  );
  assert.equal(plan.files.length, 7 * 2 + 4);
  assert.ok(plan.files.filter((f) => f.kind === "kubeconfig").every((f) => f.mode === 0o600));

  await writePlannedFiles(files, plan.files);
  for (const name of ALL) {
    const old = before.get(name)!;
    const now = await pairOf(files, name);
    assert.deepEqual(now.cert.subject.attributes, old.cert.subject.attributes, `${name} subject`);
    assert.deepEqual(now.cert.dnsNames, old.cert.dnsNames, `${name} DNS SANs`);
    assert.deepEqual(now.cert.ipAddresses, old.cert.ipAddresses, `${name} IP SANs`);
    assert.deepEqual(now.cert.extKeyUsage, old.cert.extKeyUsage, `${name} usages`);
    assert.deepEqual(now.cert.keyUsage, old.cert.keyUsage, `${name} key usage`);
    assert.notDeepEqual(now.cert.spki, old.cert.spki, `${name} has a new key`);
    assert.notEqual(now.cert.serialNumber, old.cert.serialNumber);
    assert.equal(now.cert.notBefore.toISOString(), "2026-09-01T09:55:00.000Z");
    assert.equal(now.cert.notAfter.toISOString(), "2027-09-01T10:00:00.000Z");
    assert.deepEqual(now.cert.authorityKeyId, old.ca.subjectKeyId, `${name} AKI`);
    assert.ok(await keyMatchesCertificate(now.key, now.cert));
    await verifyCertChain(now.cert, [], now.ca, START, webCryptoPort);
  }
  // A kubeconfig keeps its server, names and context; CA data is ca.crt.
  const admin = (await pairOf(files, "admin.conf")).kubeconfig!;
  assert.equal(admin.clusters[0].cluster.server, "https://192.168.0.10:6443");
  assert.equal(admin["current-context"], "kubernetes-admin@kubernetes");
  assert.equal(
    embeddedText(admin.clusters[0].cluster["certificate-authority-data"]!),
    files.text(`${PKI_DIR}/ca.crt`),
  );
  assert.deepEqual(podsToRestart(plan), [
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "etcd",
  ]);
});

Deno.test("planRenewal() of one certificate touches only its files and names its readers", async () => {
  const { files } = await pkiFixture();
  const plan = await planRenewal(input(files, ["etcd-peer"]));
  assert.deepEqual(plan.files.map((f) => f.path), [
    `${PKI_DIR}/etcd/peer.key`,
    `${PKI_DIR}/etcd/peer.crt`,
  ]);
  assert.deepEqual(podsToRestart(plan), ["etcd"]);
  const admin = await planRenewal(input(files, ["admin.conf"]));
  assert.deepEqual(podsToRestart(admin), []);
  const cm = await planRenewal(input(files, ["controller-manager.conf"]));
  assert.deepEqual(podsToRestart(cm), ["kube-controller-manager"]);
});

Deno.test("planRenewal() keeps an old subject (O=kubeadm:cluster-admins) and Go-known usages only", async () => {
  const { files } = await pkiFixture();
  const { cert: ca, key: caKey } = await pkiOf(files).loadCertAndKey("ca");
  const key = await generateKeyPair("ECDSA-P256", webKeys);
  const custom = await createSignedCert(
    {
      commonName: "kube-apiserver-kubelet-client",
      organization: ["kubeadm:cluster-admins", "extra-org"],
      usages: ["clientAuth", "1.3.6.1.5.5.7.3.3", "1.2.3.4.5"],
      dnsNames: ["b.example", "a.example"],
      ips: ["10.0.0.7"],
    },
    key,
    ca,
    caKey,
    seededRandom(3),
    webCryptoPort,
  );
  files.put(`${PKI_DIR}/apiserver-kubelet-client.crt`, encodeCertificatePEM(custom));
  files.put(`${PKI_DIR}/apiserver-kubelet-client.key`, await encodePrivateKeyPEM(key));
  const plan = await planRenewal(input(files, ["apiserver-kubelet-client"]));
  const o = plan.outcomes[0];
  assert.equal(o.status, "renewed");
  if (o.status !== "renewed") return;
  // One RDN holds both O values; DER sorts a SET OF, as Go does.
  assert.deepEqual(custom.subject.organization, ["extra-org", "kubeadm:cluster-admins"]);
  assert.deepEqual(o.cert.subject.der, custom.subject.der);
  assert.equal(o.cert.subject.commonName, "kube-apiserver-kubelet-client");
  assert.deepEqual(o.cert.extKeyUsage, ["clientAuth", "1.3.6.1.5.5.7.3.3"]);
  assert.deepEqual(o.cert.dnsNames, ["a.example", "b.example"]);
  assert.deepEqual(o.cert.ipAddresses, ["10.0.0.7"]);
});

Deno.test("planRenewal() reports missing files and skips targets of an external CA", async () => {
  const { files } = await pkiFixture();
  files.remove(`${PKI_DIR}/apiserver.crt`);
  files.remove(`${KUBECONFIG_DIR}/super-admin.conf`);
  files.remove(`${PKI_DIR}/front-proxy-ca.key`);
  const plan = await planRenewal(input(files));
  const by = new Map(plan.outcomes.map((o) => [o.target.name, o]));
  assert.equal(by.get("apiserver")!.status, "missing");
  assert.equal(
    renewalMessage(by.get("apiserver")!),
    "MISSING! certificate for serving the Kubernetes API",
  );
  assert.equal(by.get("super-admin.conf")!.status, "missing");
  assert.equal(by.get("front-proxy-client")!.status, "external");
  assert.equal(
    renewalMessage(by.get("front-proxy-client")!),
    "Detected external front-proxy-ca, certificate for the front proxy client can't be renewed",
  );
  assert.equal(by.get("etcd-server")!.status, "renewed");
  assert.ok(
    !plan.files.some((f) => f.path.includes("front-proxy") || f.path.includes("super-admin")),
  );
});

Deno.test("planRenewal() with external etcd reports the etcd certificates missing", async () => {
  const { files } = await pkiFixture();
  const plan = await planRenewal(input(files, ["etcd-server", "apiserver"], true));
  assert.deepEqual(plan.outcomes.map((o) => o.status), ["missing", "renewed"]);
  assert.equal(renewalMessage(plan.outcomes[0]), "MISSING! certificate for serving etcd");
});

async function assertRefused(
  files: MemoryFileSystem,
  names: string[],
  message: RegExp,
  field?: string,
  hint?: RegExp,
): Promise<void> {
  const snapshot = files.snapshot();
  await assert.rejects(() => planRenewal(input(files, names)), (e: unknown) => {
    assert.ok(e instanceof KubeadmError, String(e));
    assert.match(e.message, message);
    if (field) assert.equal(e.field, field);
    if (hint) assert.match(e.hint ?? "", hint);
    return true;
  });
  assert.deepEqual(files.snapshot(), snapshot, "nothing written");
}

Deno.test("planRenewal() refuses bad input with upstream's errors, naming the file", async () => {
  const { files } = await pkiFixture();
  await assertRefused(
    files,
    ["apiserver", "bogus"],
    /^bogus is not a valid certificate for this cluster$/,
  );

  // A CA key that is not the CA certificate's key.
  const good = files.text(`${PKI_DIR}/ca.key`)!;
  files.put(
    `${PKI_DIR}/ca.key`,
    await encodePrivateKeyPEM(await generateKeyPair("ECDSA-P256", webKeys)),
  );
  await assertRefused(
    files,
    ALL,
    /^the private key file \/etc\/kubernetes\/pki\/ca\.key does not match the certificate \/etc\/kubernetes\/pki\/ca\.crt$/,
    `${PKI_DIR}/ca.key`,
    /^restore the key \/etc\/kubernetes\/pki\/ca\.crt was issued for from a backup of \/etc\/kubernetes\/pki or from another control-plane node; do not remove or regenerate the ca certificate authority: /,
  );
  files.put(`${PKI_DIR}/ca.key`, good);

  // A missing CA key whose leaves do not verify: not a usable external CA.
  const etcdKey = files.text(`${PKI_DIR}/etcd/ca.key`)!;
  const peerKey = files.text(`${PKI_DIR}/etcd/peer.key`)!;
  files.remove(`${PKI_DIR}/etcd/ca.key`);
  files.remove(`${PKI_DIR}/etcd/peer.key`);
  await assertRefused(
    files,
    ["etcd-server"],
    /^Error checking external CA condition for etcd\/ca certificate authority: failure loading key for etcd\/peer: couldn't load the private key file \/etc\/kubernetes\/pki\/etcd\/peer\.key: open \/etc\/kubernetes\/pki\/etcd\/peer\.key: no such file or directory$/,
    `${PKI_DIR}/etcd/peer.key`,
  );
  files.put(`${PKI_DIR}/etcd/ca.key`, etcdKey);
  files.put(`${PKI_DIR}/etcd/peer.key`, peerKey);

  // A missing CA certificate.
  const caCrt = files.text(`${PKI_DIR}/front-proxy-ca.crt`)!;
  files.remove(`${PKI_DIR}/front-proxy-ca.crt`);
  await assertRefused(
    files,
    ["front-proxy-client"],
    /^Error checking external CA condition for front-proxy-ca certificate authority: failure loading certificate for front-proxy CA: couldn't load the certificate file \/etc\/kubernetes\/pki\/front-proxy-ca\.crt: open/,
    `${PKI_DIR}/front-proxy-ca.crt`,
  );
  files.put(`${PKI_DIR}/front-proxy-ca.crt`, caCrt);

  // An unreadable kubeconfig and an unreadable certificate.
  const admin = files.text(`${KUBECONFIG_DIR}/admin.conf`)!;
  files.put(`${KUBECONFIG_DIR}/admin.conf`, "apiVersion: v1\nkind: [oops");
  await assertRefused(
    files,
    ALL,
    /^failed to load kubeConfig file \/etc\/kubernetes\/admin\.conf: /,
    `${KUBECONFIG_DIR}/admin.conf`,
  );
  files.put(
    `${KUBECONFIG_DIR}/admin.conf`,
    admin.replace(/client-certificate-data: \S+/, 'client-certificate-data: ""'),
  );
  await assertRefused(
    files,
    ["admin.conf"],
    /^kubeConfig file \/etc\/kubernetes\/admin\.conf does not have an embedded client certificate$/,
  );
  files.put(
    `${KUBECONFIG_DIR}/admin.conf`,
    admin.replace(/current-context: .*/, "current-context: other"),
  );
  await assertRefused(
    files,
    ["admin.conf"],
    /^invalid kubeConfig file \/etc\/kubernetes\/admin\.conf: missing context other$/,
  );
  files.put(`${KUBECONFIG_DIR}/admin.conf`, admin);
  files.put(`${PKI_DIR}/apiserver.crt`, "not a certificate");
  await assertRefused(
    files,
    ["apiserver"],
    /^failed to load existing certificate apiserver: error reading \/etc\/kubernetes\/pki\/apiserver\.crt: data does not contain any valid RSA or ECDSA certificates$/,
    `${PKI_DIR}/apiserver.crt`,
  );
});

/** A file system that fails the n-th write (0-based), as a crash at that point would. */
class FailingFileSystem extends MemoryFileSystem {
  constructor(source: MemoryFileSystem, private failAt: number) {
    super();
    for (const [p, f] of source.files) this.files.set(p, f);
  }
  override write(file: PlannedFile): Promise<void> {
    if (this.failAt-- === 0) return Promise.reject(new Error(`killed before ${file.path}`));
    return super.write(file);
  }
}

Deno.test("a renewal killed at any write and run again leaves every certificate valid and paired", async () => {
  const { files } = await pkiFixture();
  const first: RenewalPlan = await planRenewal(input(files));
  for (let n = 0; n < first.files.length; n++) {
    const fs = new FailingFileSystem(files, n);
    const plan = await planRenewal(input(fs));
    await assert.rejects(() => writePlannedFiles(fs, plan.files), /killed before/);
    // Every certificate file is whole: the old or the new one, never partial.
    for (const name of ALL) await pairOf(fs, name).then((p) => assert.ok(p.cert));
    // Run again to completion.
    const again = await planRenewal({ ...input(fs), startTime: new Date(START.getTime() + 1000) });
    assert.deepEqual(again.outcomes.map((o) => o.status), ALL.map(() => "renewed"));
    await writePlannedFiles(fs, again.files);
    await assertAllPairedAndValid(fs, START);
  }
  // Without a failure, the fixture itself is consistent to begin with.
  await assertAllPairedAndValid(files, PKI_CREATED);
});

// Review of issue 16: in a running cluster a mismatched CA key must never be answered with
// "remove both files to have them generated" (a new CA breaks every node and kubeconfig).
for (
  const [ca, target] of [["ca", "apiserver"], ["front-proxy-ca", "front-proxy-client"], [
    "etcd/ca",
    "etcd-peer",
  ]]
) {
  Deno.test(`planRenewal() with a ${ca}.key not matching ${ca}.crt advises restoring it, never regenerating the CA`, async () => {
    const { files } = await pkiFixture();
    files.put(
      `${PKI_DIR}/${ca}.key`,
      await encodePrivateKeyPEM(await generateKeyPair("ECDSA-P256", webKeys)),
    );
    const snapshot = files.snapshot();
    await assert.rejects(() => planRenewal(input(files, [target])), (e: unknown) => {
      assert.ok(e instanceof ExistingFileError, String(e));
      assert.equal(e.field, `${PKI_DIR}/${ca}.key`);
      assert.match(
        e.hint!,
        new RegExp(`^restore the key ${PKI_DIR}/${ca}\\.crt was issued for from a backup`),
      );
      assert.match(
        e.hint!,
        new RegExp(`do not remove or regenerate the ${ca} certificate authority`),
      );
      assert.doesNotMatch(e.hint!, /remove both files|have them generated|init phase certs/);
      return true;
    });
    assert.deepEqual(files.snapshot(), snapshot, "nothing written");
  });
}
