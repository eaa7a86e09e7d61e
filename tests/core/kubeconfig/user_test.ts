import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import { longValidityWarning, userKubeconfig } from "../../../core/kubeconfig/user.ts";
import {
  embeddedBytes,
  embeddedText,
  parseKubeconfig,
} from "../../../core/kubeconfig/kubeconfig.ts";
import { PkiDirectory } from "../../../core/certs/pki_dir.ts";
import {
  keyMatchesCertificate,
  parseCertificatesPEM,
  verifyCertChain,
} from "../../../core/pki/cert.ts";
import { parsePrivateKeyPEM } from "../../../core/pki/keys.ts";
import { KubeadmError } from "../../../core/errors.ts";
import { PKI_DIR, pkiFixture } from "../../support/pki_fixture.ts";
import { seededRandom } from "../../support/fixed_random.ts";

const START = new Date("2026-04-01T12:00:00Z");
const HOUR = 3600 * 1000;

Deno.test("userKubeconfig() makes a client-certificate kubeconfig for the control-plane endpoint", async () => {
  const { files, cfg } = await pkiFixture();
  const warnings: string[] = [];
  const text = await userKubeconfig({
    cfg,
    files,
    clientName: "jane",
    organizations: ["team-a", "ops"],
    validityMs: 48 * HOUR,
    startTime: START,
    now: START,
    random: seededRandom(1),
    warn: (l) => warnings.push(l),
    crypto: webCryptoPort,
  });
  assert.deepEqual(warnings, []);
  assert.doesNotMatch(text, /preferences/);
  const kc = parseKubeconfig(text);
  assert.equal(kc["current-context"], "jane@kubernetes");
  assert.equal(kc.clusters[0].cluster.server, "https://192.168.0.10:6443");
  const ca = await new PkiDirectory(files, PKI_DIR, webCryptoPort).loadCert("ca");
  assert.equal(
    embeddedText(kc.clusters[0].cluster["certificate-authority-data"]!),
    files.text(`${PKI_DIR}/ca.crt`),
  );
  const user = kc.users[0];
  assert.equal(user.name, "jane");
  const cert = parseCertificatesPEM(embeddedBytes(user.user["client-certificate-data"]!))[0];
  assert.equal(cert.subject.commonName, "jane");
  assert.deepEqual([...cert.subject.organization].sort(), ["ops", "team-a"]);
  assert.deepEqual(cert.extKeyUsage, ["clientAuth"]);
  assert.equal(cert.notAfter.toISOString(), "2026-04-03T12:00:00.000Z");
  assert.equal(cert.notBefore.getTime(), ca.notBefore.getTime(), "NotBefore is the CA's");
  await verifyCertChain(cert, [], ca, START, webCryptoPort);
  const key = await parsePrivateKeyPEM(embeddedText(user.user["client-key-data"]!), webCryptoPort);
  assert.ok(await keyMatchesCertificate(key, cert));
  assert.equal(key.spec.type, "ECDSA", "key per encryptionAlgorithm");
});

Deno.test("userKubeconfig() with a token embeds the token and no certificate", async () => {
  const { files, cfg } = await pkiFixture();
  cfg.cluster.controlPlaneEndpoint = "lb.example.test";
  const kc = parseKubeconfig(
    await userKubeconfig({
      cfg,
      files,
      clientName: "bot",
      organizations: [],
      token: "abcdef.0123456789abcdef",
      validityMs: 8760 * HOUR,
      startTime: START,
      now: START,
      random: seededRandom(2),
      crypto: webCryptoPort,
    }),
  );
  assert.deepEqual(kc.users, [{ name: "bot", user: { token: "abcdef.0123456789abcdef" } }]);
  assert.equal(kc.clusters[0].cluster.server, "https://lb.example.test:6443");
});

Deno.test("userKubeconfig() needs the CA key, names it, and warns about long validity", async () => {
  const { files, cfg } = await pkiFixture();
  files.remove(`${PKI_DIR}/ca.key`);
  await assert.rejects(
    () =>
      userKubeconfig({
        cfg,
        files,
        clientName: "bot",
        organizations: [],
        token: "t",
        validityMs: 8760 * HOUR,
        startTime: START,
        now: START,
        random: seededRandom(2),
        crypto: webCryptoPort,
      }),
    (e: unknown) =>
      e instanceof KubeadmError &&
      e.message ===
        "couldn't create a kubeconfig; the CA files couldn't be loaded: failed to load key: couldn't load the private key file /etc/kubernetes/pki/ca.key: open /etc/kubernetes/pki/ca.key: no such file or directory" &&
      e.field === `${PKI_DIR}/ca.key`,
  );
  assert.equal(longValidityWarning(8760 * HOUR), undefined);
  assert.equal(
    longValidityWarning(9000 * HOUR),
    "WARNING: the specified certificate validity period 9000h0m0s is longer than the default duration 8760h0m0s, this may increase security risks.",
  );
});
