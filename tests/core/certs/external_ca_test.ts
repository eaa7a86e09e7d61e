import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import { externalCAChecker } from "../../../core/certs/external_ca.ts";
import { PkiDirectory } from "../../../core/certs/pki_dir.ts";
import type { MemoryFileSystem } from "../../support/memory_fs.ts";
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

/** Whether a CA is external, as a fresh run of `certs renew` or `check-expiration` sees it. */
function isExternal(files: MemoryFileSystem, ca: string): Promise<boolean> {
  return externalCAChecker(new PkiDirectory(files, PKI, webCryptoPort), NOW).isExternal(ca);
}

Deno.test("a CA is external when its certificate is present without its key and its leaves verify", async () => {
  const files = await pki();
  for (const ca of ["ca", "front-proxy-ca", "etcd/ca"]) {
    assert.equal(await isExternal(files, ca), false, ca);
    files.remove(`${PKI}/${ca}.key`);
    assert.equal(await isExternal(files, ca), true, ca);
  }
  files.remove(`${PKI}/ca.crt`);
  await assert.rejects(
    () => isExternal(files, "ca"),
    /for ca certificate authority: failure loading certificate for CA: /,
  );
});

Deno.test("an external CA's missing keys, foreign leaves and non-CA certificate are errors", async () => {
  const files = await pki();
  files.remove(`${PKI}/ca.key`);
  files.remove(`${PKI}/apiserver-kubelet-client.key`);
  await assert.rejects(
    () => isExternal(files, "ca"),
    (e: unknown) =>
      e instanceof ExistingFileError &&
      e.message.startsWith(
        "Error checking external CA condition for ca certificate authority: failure loading key for apiserver-kubelet-client: couldn't load the private key file /etc/kubernetes/pki/apiserver-kubelet-client.key",
      ),
  );
  files.put(`${PKI}/apiserver-kubelet-client.key`, files.text(`${PKI}/apiserver.key`)!);
  files.put(`${PKI}/apiserver-kubelet-client.crt`, files.text(`${PKI}/front-proxy-client.crt`)!);
  await assert.rejects(
    () => isExternal(files, "ca"),
    /certificate API server kubelet client is not signed by corresponding CA: x509: certificate signed by unknown authority/,
  );
  files.put(`${PKI}/ca.crt`, files.text(`${PKI}/apiserver.crt`)!);
  await assert.rejects(
    () => isExternal(files, "ca"),
    /for ca certificate authority: certificate CA is not a CA$/,
  );
});
