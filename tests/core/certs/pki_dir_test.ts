import { webKeys } from "../../support/platform.ts";
import assert from "node:assert/strict";
import { periodWarning, PkiDirectory } from "../../../core/certs/pki_dir.ts";
import { createSelfSignedCACert } from "../../../core/pki/cert.ts";
import { generateKeyPair } from "../../../core/pki/keys.ts";
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import { deterministicCryptoPort } from "../../../adapters/crypto/noble.ts";
import { ExistingFileError, PkiError } from "../../../core/errors.ts";
import { MemoryFileSystem } from "../../support/memory_fs.ts";
import { seededRandom } from "../../support/fixed_random.ts";
import type { CryptoPort } from "../../../core/ports/crypto.ts";

const PKI = "/etc/kubernetes/pki";

function pkiOf(files: MemoryFileSystem, crypto: CryptoPort = webCryptoPort) {
  return new PkiDirectory(files, PKI, crypto);
}

Deno.test("writeCertAndKey() writes the key (0600) then the certificate (0644); loaders read them back", async () => {
  const files = new MemoryFileSystem();
  const pki = pkiOf(files);
  const key = await generateKeyPair("ECDSA-P256", webKeys);
  const cert = await createSelfSignedCACert(
    { commonName: "etcd-ca", notBefore: new Date("2026-01-01T00:00:00Z") },
    key,
    seededRandom(1),
    webCryptoPort,
  );
  await pki.writeCertAndKey("etcd/ca", { cert, key });
  assert.deepEqual(files.writes.map((w) => [w.path, w.mode, w.kind]), [
    [`${PKI}/etcd/ca.key`, 0o600, "key"],
    [`${PKI}/etcd/ca.crt`, 0o644, "certificate"],
  ]);
  assert.deepEqual((await pki.loadCert("etcd/ca")).der, cert.der);
  assert.deepEqual((await pki.loadKey("etcd/ca")).spec, key.spec);
  const ca = await pki.loadCA("etcd/ca");
  assert.equal(ca.cert.subject.commonName, "etcd-ca");
  assert.equal(
    periodWarning("etcd/ca", cert, new Date("2025-12-31T00:00:00Z")),
    "WARNING: could not validate bounds for certificate etcd/ca: the certificate is not valid yet: NotBefore: 2026-01-01 00:00:00 +0000 UTC, NotAfter: 2035-12-30 00:00:00 +0000 UTC",
  );
  assert.equal(periodWarning("etcd/ca", cert, new Date("2026-02-01T00:00:00Z")), undefined);
});

Deno.test("loaders name the file in upstream's words", async () => {
  const pki = pkiOf(
    new MemoryFileSystem({ [`${PKI}/ca.crt`]: "junk", [`${PKI}/ca.key`]: "junk" }),
  );
  await assert.rejects(
    () => pki.loadCert("apiserver"),
    (e: unknown) =>
      e instanceof PkiError &&
      e.message ===
        "couldn't load the certificate file /etc/kubernetes/pki/apiserver.crt: open /etc/kubernetes/pki/apiserver.crt: no such file or directory",
  );
  await assert.rejects(
    () => pki.loadCert("ca"),
    /couldn't load the certificate file \/etc\/kubernetes\/pki\/ca\.crt: error reading \/etc\/kubernetes\/pki\/ca\.crt: data does not contain any valid RSA or ECDSA certificates/,
  );
  await assert.rejects(
    () => pki.loadKey("ca"),
    /couldn't load the private key file \/etc\/kubernetes\/pki\/ca\.key: error reading private key file \/etc\/kubernetes\/pki\/ca\.key: data does not contain a valid RSA or ECDSA private key/,
  );
  await assert.rejects(
    () => pki.loadCA("ca"),
    (e: unknown) =>
      e instanceof ExistingFileError &&
      e.message.startsWith("failure loading ca certificate authority: failed to load certificate:"),
  );
  await assert.rejects(
    () => pkiOf(new MemoryFileSystem()).loadCA("front-proxy-ca"),
    /couldn't load front-proxy-ca certificate authority from \/etc\/kubernetes\/pki/,
  );
});

Deno.test("what a run wrote loads back as written; each content parses once per port; bad files fail on every read", async () => {
  const files = new MemoryFileSystem();
  const pki = pkiOf(files);
  const key = await generateKeyPair("ECDSA-P256", webKeys);
  const cert = await createSelfSignedCACert(
    { commonName: "ca", notBefore: new Date("2026-01-01T00:00:00Z") },
    key,
    seededRandom(2),
    webCryptoPort,
  );
  await pki.writeCertAndKey("ca", { cert, key });
  assert.equal((await pki.loadCA("ca", "restore")).key, key);
  assert.equal(await pki.loadKey("ca"), key, "the key itself, no import");
  assert.deepEqual((await pki.loadCert("ca")).der, cert.der);
  // Another port parses the file itself, once: its key is its own, with the same public half.
  const deterministic = pkiOf(files, deterministicCryptoPort);
  const other = await deterministic.loadKey("ca");
  assert.notEqual(other, key);
  assert.deepEqual(other.spki, key.spki);
  assert.equal(await deterministic.loadKey("ca"), other);
  // A file that does not parse is never remembered: every read fails, naming its path.
  await files.write({ path: `${PKI}/bad.key`, data: "junk", mode: 0o600, kind: "key" });
  for (let i = 0; i < 2; i++) {
    await assert.rejects(() => pki.loadKey("bad"), /bad\.key/);
  }
});

Deno.test("a PkiDirectory names every file of the directory by its base name", async () => {
  const pki = new PkiDirectory(
    new MemoryFileSystem({ [`${PKI}/ca.crt`]: "x" }),
    `${PKI}/`,
    webCryptoPort,
  );
  assert.equal(pki.certPath("etcd/ca"), `${PKI}/etcd/ca.crt`);
  assert.equal(pki.keyPath("sa"), `${PKI}/sa.key`);
  assert.equal(pki.publicKeyPath("sa"), `${PKI}/sa.pub`);
  assert.equal(pki.csrPath("apiserver"), `${PKI}/apiserver.csr`);
  assert.equal(pki.path("sa.pub"), `${PKI}/sa.pub`);
  assert.equal(await pki.hasCertOrKey("ca"), true);
  assert.equal(await pki.isKeyless("ca"), true, "a certificate without its key");
  assert.equal(await pki.isKeyless("front-proxy-ca"), false, "neither file");
});

Deno.test("a walk reads each file once, reads again what it writes, and sees no other writes", async () => {
  const files = new MemoryFileSystem();
  const reads: string[] = [];
  const read = files.read.bind(files);
  files.read = (path: string) => {
    reads.push(path.slice(PKI.length + 1));
    return read(path);
  };
  const key = await generateKeyPair("ECDSA-P256", webKeys);
  const cert = await createSelfSignedCACert(
    { commonName: "kubernetes", notBefore: new Date("2026-01-01T00:00:00Z") },
    key,
    seededRandom(2),
    webCryptoPort,
  );
  const walk = pkiOf(files).walk();
  assert.equal(await walk.hasCertOrKey("ca"), false);
  assert.equal(await walk.isKeyless("ca"), false);
  assert.deepEqual(reads, ["ca.crt", "ca.key"]);
  await walk.writeCertAndKey("ca", { cert, key });
  assert.equal((await walk.loadCA("ca")).cert.subject.commonName, "kubernetes");
  assert.equal(await walk.hasCertOrKey("ca"), true);
  assert.deepEqual(reads, ["ca.crt", "ca.key", "ca.crt", "ca.key"]);
  // Others' writes are not seen by a walk already under way; a new walk or the directory sees them.
  await files.write({ path: `${PKI}/sa.key`, data: "x", mode: 0o600, kind: "key" });
  const before = pkiOf(files).walk();
  assert.equal(await before.has("sa.pub"), false);
  await files.write({ path: `${PKI}/sa.pub`, data: "y", mode: 0o600, kind: "public-key" });
  assert.equal(await before.has("sa.pub"), false);
  assert.equal(await pkiOf(files).has("sa.pub"), true);
  assert.equal(await pkiOf(files).walk().has("sa.pub"), true);
});
