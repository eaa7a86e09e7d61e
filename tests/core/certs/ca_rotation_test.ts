import assert from "node:assert/strict";
import { webKeys } from "../../support/platform.ts";
import {
  caBundleFile,
  caPairFiles,
  caRotationSteps,
  checkNewCA,
  checkRotatableCA,
  doneMarker,
  kubeconfigTrust,
  kubeconfigWithTrust,
  NEW_CA,
  OLD_CA,
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

/** A directory at `stage`'s files, with the old and the new CA. */
async function directoryAt(ca: Certificate[], rotation: { old: CertAndKey; next: CertAndKey }) {
  const files = new MemoryFileSystem();
  const pki = new PkiDirectory(files, PKI, webCryptoPort);
  await pki.writeCertAndKey("ca", rotation.old);
  for (const f of await caPairFiles(pki, OLD_CA, rotation.old)) await files.write(f);
  for (const f of await caPairFiles(pki, NEW_CA, rotation.next)) await files.write(f);
  await files.write(caBundleFile(pki, ca));
  return pki;
}

function assertKubeadmError(e: unknown, field: string, message: RegExp): true {
  assert.ok(e instanceof KubeadmError, String(e));
  assert.equal(e.field, field);
  assert.match(e.message, message);
  return true;
}

Deno.test("checkRotatableCA() takes ca; refuses an unknown CA and those not rotated yet, naming --ca", () => {
  checkRotatableCA("ca");
  assert.throws(
    () => checkRotatableCA("kubernetes"),
    (e) => assertKubeadmError(e, "--ca", /unknown certificate authority "kubernetes"/),
  );
  for (const name of ["front-proxy-ca", "etcd-ca"]) {
    assert.throws(
      () => checkRotatableCA(name),
      (e) => assertKubeadmError(e, "--ca", new RegExp(`rotating the ${name} .* not supported yet`)),
    );
  }
});

Deno.test("rotationState() reads every stage back from ca.crt and the markers", async () => {
  const old = await testCA(1);
  const next = await testCA(2);
  const rotation = { old, next };
  const plain = new PkiDirectory(new MemoryFileSystem(), PKI, webCryptoPort);
  await plain.writeCertAndKey("ca", old);
  assert.equal((await rotationState(plain)).stage, "none");

  const cases: [Certificate[], string][] = [
    [[old.cert], "prepared"],
    [[old.cert, next.cert], "trusted"],
    [[next.cert, old.cert], "signed"],
    [[next.cert], "finished"],
  ];
  for (const [bundle, stage] of cases) {
    const pki = await directoryAt(bundle, rotation);
    const state = await rotationState(pki);
    assert.equal(state.stage, stage);
    assert.deepEqual(state.oldCA.der, old.cert.der);
    assert.deepEqual(state.newCA?.der, next.cert.der);
    assert.equal(state.trustDone, false);
  }
  const pki = await directoryAt([old.cert, next.cert], rotation);
  await pki.files.write({
    path: pki.path(doneMarker("trust")),
    data: "",
    mode: 0o600,
    kind: "other",
  });
  assert.equal((await rotationState(pki)).trustDone, true);

  // Another order, or a CA of neither: no stage, refused naming ca.crt.
  const other = await testCA(3);
  for (const bundle of [[old.cert, other.cert], [next.cert, next.cert]]) {
    await assert.rejects(
      rotationState(await directoryAt(bundle, rotation)),
      (e) => assertKubeadmError(e, `${PKI}/ca.crt`, /neither the old CA, the new one nor a bundle/),
    );
  }
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
