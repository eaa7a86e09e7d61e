import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import {
  usingExternalCA,
  usingExternalEtcdCA,
  usingExternalFrontProxyCA,
} from "../../../core/certs/external_ca.ts";
import { initWorkflow } from "../../../core/phases/init/workflow.ts";
import { runWorkflow } from "../../../core/workflow/runner.ts";
import { ExistingFileError } from "../../../core/errors.ts";
import { initDataFixture } from "../../support/init_data_fixture.ts";
import { seededRandom } from "../../support/fixed_random.ts";

const PKI = "/etc/kubernetes/pki";
const NOW = new Date("2026-06-01T12:01:00Z");

async function pki() {
  const f = initDataFixture();
  f.data.cfg.cluster.encryptionAlgorithm = "ECDSA-P256";
  f.data.startTime = new Date("2026-06-01T12:00:00Z");
  f.data.clock = { now: () => NOW };
  f.data.random = seededRandom(5);
  f.data.cfg.init.skipPhases = ["kubeconfig"];
  await runWorkflow(initWorkflow(), f.data, { only: "certs/all" });
  return f.files;
}

Deno.test("usingExternalCA() is false with a CA key or without a CA, true for a keyless CA with valid leaves", async () => {
  const files = await pki();
  assert.equal(await usingExternalCA(files, PKI, NOW, { crypto: webCryptoPort }), false);
  assert.equal(await usingExternalFrontProxyCA(files, PKI, NOW, { crypto: webCryptoPort }), false);
  assert.equal(await usingExternalEtcdCA(files, PKI, NOW, { crypto: webCryptoPort }), false);
  files.remove(`${PKI}/ca.key`);
  files.remove(`${PKI}/front-proxy-ca.key`);
  files.remove(`${PKI}/etcd/ca.key`);
  assert.equal(await usingExternalCA(files, PKI, NOW, { crypto: webCryptoPort }), true);
  assert.equal(await usingExternalFrontProxyCA(files, PKI, NOW, { crypto: webCryptoPort }), true);
  assert.equal(await usingExternalEtcdCA(files, PKI, NOW, { crypto: webCryptoPort }), true);
  files.remove(`${PKI}/ca.crt`);
  assert.equal(await usingExternalCA(files, PKI, NOW, { crypto: webCryptoPort }), false);
});

Deno.test("usingExternalCA() rejects missing keys, foreign leaves and non-CA certificates", async () => {
  const files = await pki();
  files.remove(`${PKI}/ca.key`);
  files.remove(`${PKI}/apiserver-kubelet-client.key`);
  await assert.rejects(
    () => usingExternalCA(files, PKI, NOW, { crypto: webCryptoPort }),
    (e: unknown) =>
      e instanceof ExistingFileError &&
      e.message.startsWith(
        "failure loading key for apiserver-kubelet-client: couldn't load the private key file /etc/kubernetes/pki/apiserver-kubelet-client.key",
      ),
  );
  files.put(`${PKI}/apiserver-kubelet-client.key`, files.text(`${PKI}/apiserver.key`)!);
  files.put(`${PKI}/apiserver-kubelet-client.crt`, files.text(`${PKI}/front-proxy-client.crt`)!);
  await assert.rejects(
    () => usingExternalCA(files, PKI, NOW, { crypto: webCryptoPort }),
    /certificate API server kubelet client is not signed by corresponding CA: x509: certificate signed by unknown authority/,
  );
  files.put(`${PKI}/ca.crt`, files.text(`${PKI}/apiserver.crt`)!);
  await assert.rejects(
    () => usingExternalCA(files, PKI, NOW, { crypto: webCryptoPort }),
    /^ExistingFileError: certificate CA is not a CA$/,
  );
});
