import { webKeys } from "../../support/platform.ts";
import assert from "node:assert/strict";
import {
  loadCert,
  loadCertificateAuthority,
  loadKey,
  periodWarning,
  writeCertAndKey,
} from "../../../core/certs/pki_files.ts";
import { createSelfSignedCACert } from "../../../core/pki/cert.ts";
import { generateKeyPair } from "../../../core/pki/keys.ts";
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import { deterministicCryptoPort } from "../../../adapters/crypto/noble.ts";
import { ExistingFileError, PkiError } from "../../../core/errors.ts";
import { MemoryFileSystem } from "../../support/memory_fs.ts";
import { seededRandom } from "../../support/fixed_random.ts";

const PKI = "/etc/kubernetes/pki";

Deno.test("writeCertAndKey() writes the key (0600) then the certificate (0644); loaders read them back", async () => {
  const files = new MemoryFileSystem();
  const key = await generateKeyPair("ECDSA-P256", webKeys);
  const cert = await createSelfSignedCACert(
    { commonName: "etcd-ca", notBefore: new Date("2026-01-01T00:00:00Z") },
    key,
    seededRandom(1),
    webCryptoPort,
  );
  await writeCertAndKey(files, PKI, "etcd/ca", cert, key);
  assert.deepEqual(files.writes.map((w) => [w.path, w.mode, w.kind]), [
    [`${PKI}/etcd/ca.key`, 0o600, "key"],
    [`${PKI}/etcd/ca.crt`, 0o644, "certificate"],
  ]);
  assert.deepEqual((await loadCert(files, PKI, "etcd/ca")).der, cert.der);
  assert.deepEqual((await loadKey(files, PKI, "etcd/ca", webCryptoPort)).spec, key.spec);
  const ca = await loadCertificateAuthority(files, PKI, "etcd/ca", webCryptoPort);
  assert.equal(ca.cert.subject.commonName, "etcd-ca");
  assert.equal(
    periodWarning("etcd/ca", cert, new Date("2025-12-31T00:00:00Z")),
    "WARNING: could not validate bounds for certificate etcd/ca: the certificate is not valid yet: NotBefore: 2026-01-01 00:00:00 +0000 UTC, NotAfter: 2035-12-30 00:00:00 +0000 UTC",
  );
  assert.equal(periodWarning("etcd/ca", cert, new Date("2026-02-01T00:00:00Z")), undefined);
});

Deno.test("loaders name the file in upstream's words", async () => {
  const files = new MemoryFileSystem({ [`${PKI}/ca.crt`]: "junk", [`${PKI}/ca.key`]: "junk" });
  await assert.rejects(
    () => loadCert(files, PKI, "apiserver"),
    (e: unknown) =>
      e instanceof PkiError &&
      e.message ===
        "couldn't load the certificate file /etc/kubernetes/pki/apiserver.crt: open /etc/kubernetes/pki/apiserver.crt: no such file or directory",
  );
  await assert.rejects(
    () => loadCert(files, PKI, "ca"),
    /couldn't load the certificate file \/etc\/kubernetes\/pki\/ca\.crt: error reading \/etc\/kubernetes\/pki\/ca\.crt: data does not contain any valid RSA or ECDSA certificates/,
  );
  await assert.rejects(
    () => loadKey(files, PKI, "ca", webCryptoPort),
    /couldn't load the private key file \/etc\/kubernetes\/pki\/ca\.key: error reading private key file \/etc\/kubernetes\/pki\/ca\.key: data does not contain a valid RSA or ECDSA private key/,
  );
  await assert.rejects(
    () => loadCertificateAuthority(files, PKI, "ca", webCryptoPort),
    (e: unknown) =>
      e instanceof ExistingFileError &&
      e.message.startsWith("failure loading ca certificate authority: failed to load certificate:"),
  );
  await assert.rejects(
    () => loadCertificateAuthority(new MemoryFileSystem(), PKI, "front-proxy-ca", webCryptoPort),
    /couldn't load front-proxy-ca certificate authority from \/etc\/kubernetes\/pki/,
  );
});

Deno.test("what a run wrote loads back as written; each content parses once per port; bad files fail on every read", async () => {
  const files = new MemoryFileSystem();
  const key = await generateKeyPair("ECDSA-P256", webKeys);
  const cert = await createSelfSignedCACert(
    { commonName: "ca", notBefore: new Date("2026-01-01T00:00:00Z") },
    key,
    seededRandom(2),
    webCryptoPort,
  );
  await writeCertAndKey(files, PKI, "ca", cert, key, webCryptoPort);
  assert.equal(
    (await loadCertificateAuthority(files, PKI, "ca", webCryptoPort, "restore")).key,
    key,
  );
  assert.equal(await loadKey(files, PKI, "ca", webCryptoPort), key, "the key itself, no import");
  assert.deepEqual((await loadCert(files, PKI, "ca")).der, cert.der);
  // Another port parses the file itself, once: its key is its own, with the same public half.
  const other = await loadKey(files, PKI, "ca", deterministicCryptoPort);
  assert.notEqual(other, key);
  assert.deepEqual(other.spki, key.spki);
  assert.equal(await loadKey(files, PKI, "ca", deterministicCryptoPort), other);
  // A file that does not parse is never remembered: every read fails, naming its path.
  await files.write({ path: `${PKI}/bad.key`, data: "junk", mode: 0o600, kind: "key" });
  for (let i = 0; i < 2; i++) {
    await assert.rejects(() => loadKey(files, PKI, "bad", webCryptoPort), /bad\.key/);
  }
});
