import assert from "node:assert/strict";
import { webKeys } from "../../support/platform.ts";
import {
  caBundleFile,
  caPairFiles,
  caRotationSteps,
  checkNewCA,
  CLUSTER_CA,
  doneMarker,
  ETCD_CA,
  FRONT_PROXY_CA,
  kubeconfigTrust,
  kubeconfigWithTrust,
  newCAPath,
  oldCAPath,
  type RotatedCA,
  rotatedCA,
  rotationState,
  trustBundle,
} from "../../../core/certs/ca_rotation.ts";
import { type CertAndKey, PkiDirectory } from "../../../core/certs/pki_dir.ts";
import { KubeadmError } from "../../../core/errors.ts";
import {
  type Certificate,
  checkSignatureFrom,
  createSignedCert,
  encodeCertificatePEM,
} from "../../../core/pki/cert.ts";
import { generateKeyPair } from "../../../core/pki/keys.ts";
import {
  createKubeconfigWithCerts,
  embedData,
  emptyKubeconfig,
  parseKubeconfig,
  serializeKubeconfig,
} from "../../../core/kubeconfig/kubeconfig.ts";
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import { MemoryFileSystem } from "../../support/memory_fs.ts";
import { seededRandom } from "../../support/fixed_random.ts";
import { testCA } from "../../support/ca_rotation.ts";

const PKI = "/etc/kubernetes/pki";

/** A directory at `stage`'s files of `ca`'s rotation, with the old and the new CA. */
async function directoryAt(
  bundle: Certificate[],
  rotation: { old: CertAndKey; next: CertAndKey },
  ca: RotatedCA = CLUSTER_CA,
) {
  const files = new MemoryFileSystem();
  const pki = new PkiDirectory(files, PKI, webCryptoPort);
  await pki.writeCertAndKey(ca.baseName, rotation.old);
  for (const f of await caPairFiles(pki, oldCAPath(ca), rotation.old)) await files.write(f);
  for (const f of await caPairFiles(pki, newCAPath(ca), rotation.next)) await files.write(f);
  await files.write(caBundleFile(pki, ca, bundle));
  return pki;
}

function assertKubeadmError(e: unknown, field: string, message: RegExp): true {
  assert.ok(e instanceof KubeadmError, String(e));
  assert.equal(e.field, field);
  assert.match(e.message, message);
  return true;
}

Deno.test("rotatedCA() takes ca, front-proxy-ca and etcd-ca; refuses an unknown CA, naming --ca", () => {
  assert.equal(rotatedCA("ca"), CLUSTER_CA);
  assert.equal(rotatedCA("front-proxy-ca"), FRONT_PROXY_CA);
  assert.equal(rotatedCA("etcd-ca"), ETCD_CA);
  for (const name of ["kubernetes", "toString", "front-proxy", "etcd/ca"]) {
    assert.throws(
      () => rotatedCA(name),
      (e) => assertKubeadmError(e, "--ca", new RegExp(`unknown certificate authority "${name}"`)),
    );
  }
});

for (const ca of [CLUSTER_CA, FRONT_PROXY_CA, ETCD_CA]) {
  Deno.test(`rotationState(${ca.name}) reads every stage back from ${ca.baseName}.crt and the markers`, async () => {
    const old = await testCA(1);
    const next = await testCA(2);
    const rotation = { old, next };
    const plain = new PkiDirectory(new MemoryFileSystem(), PKI, webCryptoPort);
    await plain.writeCertAndKey(ca.baseName, old);
    assert.equal((await rotationState(plain, ca)).stage, "none");

    const cases: [Certificate[], string][] = [
      [[old.cert], "prepared"],
      [[old.cert, next.cert], "trusted"],
      [[next.cert, old.cert], "signed"],
      [[next.cert], "finished"],
    ];
    for (const [bundle, stage] of cases) {
      const pki = await directoryAt(bundle, rotation, ca);
      const state = await rotationState(pki, ca);
      assert.equal(state.stage, stage);
      assert.deepEqual(state.oldCA.der, old.cert.der);
      assert.deepEqual(state.newCA?.der, next.cert.der);
      assert.equal(state.trustDone, false);
    }
    const pki = await directoryAt([old.cert, next.cert], rotation, ca);
    await pki.files.write({
      path: pki.path(doneMarker(ca, "trust")),
      data: "",
      mode: 0o600,
      kind: "other",
    });
    assert.equal((await rotationState(pki, ca)).trustDone, true);

    // Another order, or a CA of neither: no stage, refused naming the CA's file.
    const other = await testCA(3);
    for (const bundle of [[old.cert, other.cert], [next.cert, next.cert]]) {
      await assert.rejects(
        rotationState(await directoryAt(bundle, rotation, ca), ca),
        (e) =>
          assertKubeadmError(
            e,
            `${PKI}/${ca.baseName}.crt`,
            /neither the old CA, the new one nor a bundle/,
          ),
      );
    }
  });
}

Deno.test("a front-proxy-ca rotation lives in its own folder: the cluster CA's stays none", async () => {
  const rotation = { old: await testCA(1), next: await testCA(2) };
  const pki = await directoryAt([rotation.old.cert, rotation.next.cert], rotation, FRONT_PROXY_CA);
  await pki.writeCertAndKey("ca", await testCA(4));
  assert.equal(oldCAPath(FRONT_PROXY_CA), "front-proxy-ca-rotation/old-ca");
  assert.equal((await rotationState(pki, FRONT_PROXY_CA)).stage, "trusted");
  assert.equal((await rotationState(pki, CLUSTER_CA)).stage, "none");
});

Deno.test("trustBundle(): the signing CA first at every stage", async () => {
  const old = (await testCA(1)).cert;
  const next = (await testCA(2)).cert;
  assert.deepEqual(trustBundle("prepared", old, next), [old]);
  assert.deepEqual(trustBundle("trusted", old, next), [old, next]);
  assert.deepEqual(trustBundle("signed", old, next), [next, old]);
  assert.deepEqual(trustBundle("finished", old, next), [next]);
});

Deno.test("checkNewCA() refuses a leaf, a key of another certificate and the CA in use, naming the flag", async () => {
  const current = await testCA(1);
  const next = await testCA(2);
  await checkNewCA(next, current.cert);
  await assert.rejects(
    checkNewCA({ cert: next.cert, key: current.key }, current.cert),
    (e) => assertKubeadmError(e, "--ca-key", /does not match the certificate of --ca-cert/),
  );
  await assert.rejects(
    checkNewCA(current, current.cert),
    (e) => assertKubeadmError(e, "--ca-cert", /the CA the cluster uses now/),
  );
  const leafKey = await generateKeyPair("ECDSA-P256", webKeys);
  const leaf = await createSignedCert(
    { commonName: "leaf", usages: ["serverAuth"] },
    leafKey,
    next.cert,
    next.key,
    seededRandom(4),
    webCryptoPort,
  );
  await assert.rejects(
    checkNewCA({ cert: leaf, key: leafKey }, current.cert),
    (e) => assertKubeadmError(e, "--ca-cert", /not a certificate authority/),
  );
  assert.equal(await checkSignatureFrom(leaf, next.cert, webCryptoPort), true);
  assert.equal(await checkSignatureFrom(leaf, current.cert, webCryptoPort), false);
});

Deno.test("kubeconfigWithTrust() sets the current context's cluster CA, and cluster-info's only cluster; unchanged is undefined", async () => {
  const old = (await testCA(1)).cert;
  const next = (await testCA(2)).cert;
  const admin = serializeKubeconfig(
    createKubeconfigWithCerts(
      "https://10.0.0.1:6443",
      "kubernetes",
      "kubernetes-admin",
      encodeCertificatePEM(old),
      "KEY",
      "CERT",
    ),
    { nullEmptyLists: true },
  );
  const bundle = [old, next];
  const updated = kubeconfigWithTrust(admin, bundle, "admin.conf")!;
  assert.equal(
    kubeconfigTrust(parseKubeconfig(updated, "admin.conf", { clientcmd: true })),
    encodeCertificatePEM(bundle),
  );
  assert.equal(kubeconfigWithTrust(updated, bundle, "admin.conf"), undefined);
  // The user's credentials are kept.
  assert.match(updated, new RegExp(embedData("CERT")));

  const clusterInfo = serializeKubeconfig({
    ...emptyKubeconfig(),
    clusters: [{
      name: "",
      cluster: {
        server: "https://10.0.0.1:6443",
        "certificate-authority-data": embedData(encodeCertificatePEM(old)),
      },
    }],
  }, { nullEmptyLists: true });
  const published = kubeconfigWithTrust(clusterInfo, [next], "cluster-info")!;
  assert.equal(
    kubeconfigTrust(parseKubeconfig(published, "cluster-info", { clientcmd: true })),
    encodeCertificatePEM(next),
  );
  assert.throws(
    () =>
      kubeconfigWithTrust(
        serializeKubeconfig(emptyKubeconfig()),
        [next],
        "empty.conf",
      ),
    (e) => assertKubeadmError(e, "empty.conf", /names no cluster/),
  );
});

Deno.test("caRotationSteps(front-proxy-ca): the control plane's phases only, naming its files and ConfigMap key", () => {
  const steps = caRotationSteps(FRONT_PROXY_CA);
  assert.deepEqual(steps.map((s) => s.phase), ["prepare", "trust", "reissue", "finish"]);
  assert.ok(steps.every((s) => s.on !== "every node"));
  assert.match(steps[0].does, /front-proxy-ca-rotation\//);
  assert.match(steps[1].does, /front-proxy-ca\.crt trust old and new/);
  assert.match(steps[1].does, /requestheader-client-ca-file/);
  assert.match(steps[2].does, /re-issue front-proxy-client/);
  assert.match(
    steps[3].does,
    /requestheader-client-ca-file of extension-apiserver-authentication to the new CA alone/,
  );
});

Deno.test("caRotationSteps(etcd-ca): the control plane's phases, etcd's leaves, no ConfigMap", () => {
  const steps = caRotationSteps(ETCD_CA);
  assert.deepEqual(steps.map((s) => s.phase), ["prepare", "trust", "reissue", "finish"]);
  assert.match(steps[1].does, /etcd\/ca\.crt trust old and new/);
  assert.match(steps[1].does, /restart kube-apiserver and etcd$/);
  assert.match(
    steps[2].does,
    /re-issue apiserver-etcd-client, etcd-healthcheck-client, etcd-peer, etcd-server with it/,
  );
  assert.doesNotMatch(steps[3].does, /extension-apiserver-authentication/);
});

Deno.test("caRotationSteps(): prepare, trust, node, reissue, node, finish, node", () => {
  assert.deepEqual(caRotationSteps().map((s) => s.phase), [
    "prepare",
    "trust",
    "node",
    "reissue",
    "node",
    "finish",
    "node",
  ]);
});
