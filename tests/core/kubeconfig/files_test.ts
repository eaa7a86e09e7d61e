import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../../support/platform.ts";
import assert from "node:assert/strict";
import { buildClientCertKubeconfig } from "../../../core/kubeconfig/files.ts";
import { kubeconfigSpec, resolveKubeconfigSpec } from "../../../core/kubeconfig/specs.ts";
import { createSelfSignedCACert, parseCertificatesPEM } from "../../../core/pki/cert.ts";
import { generateKeyPair } from "../../../core/pki/keys.ts";
import { embeddedText, resolveContext } from "../../../core/kubeconfig/kubeconfig.ts";
import { initConfigFixture } from "../../support/init_config_fixture.ts";
import { seededRandom } from "../../support/fixed_random.ts";

Deno.test("buildClientCertKubeconfig() embeds the CA, a clientAuth cert and its key", async () => {
  const cfg = initConfigFixture();
  const caKey = await generateKeyPair("ECDSA-P256", webKeys);
  const caCert = await createSelfSignedCACert(
    { commonName: "kubernetes", notBefore: new Date("2026-01-01T00:00:00Z") },
    caKey,
    seededRandom(3),
    webCryptoPort,
  );
  const resolved = resolveKubeconfigSpec(kubeconfigSpec("admin"), cfg);
  const notAfter = new Date("2027-01-01T00:05:00Z");
  const { kubeconfig, clientCert } = await buildClientCertKubeconfig(
    resolved,
    "kubernetes",
    { cert: caCert, key: caKey },
    await generateKeyPair("ECDSA-P256", webKeys),
    seededRandom(4),
    webCryptoPort,
    { notAfter },
  );
  const cur = resolveContext(kubeconfig);
  assert.equal(cur.name, "kubernetes-admin@kubernetes");
  const [embedded] = parseCertificatesPEM(embeddedText(cur.user!["client-certificate-data"]!));
  assert.deepEqual(embedded.der, clientCert.der);
  assert.equal(embedded.subject.commonName, "kubernetes-admin");
  assert.deepEqual(embedded.subject.organization, ["kubeadm:cluster-admins"]);
  assert.deepEqual(embedded.extKeyUsage, ["clientAuth"]);
  assert.deepEqual(embedded.dnsNames, []);
  assert.equal(embedded.notBefore.getTime(), caCert.notBefore.getTime());
  assert.equal(embedded.notAfter.getTime(), notAfter.getTime());
  assert.match(embeddedText(cur.user!["client-key-data"]!), /^-----BEGIN EC PRIVATE KEY-----\n/);
});
