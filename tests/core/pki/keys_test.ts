import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../../support/platform.ts";
import assert from "node:assert/strict";
import {
  encodePrivateKeyPEM,
  encodePublicKeyPEM,
  encryptionAlgorithmOf,
  exportSPKI,
  generateKeyPair,
  keySpecFor,
  parsePrivateKeyPEM,
  samePublicKey,
} from "../../../core/pki/keys.ts";
import { PkiError } from "../../../core/errors.ts";
import type { EncryptionAlgorithm } from "../../../core/config/types.ts";
import { openssl, opensslPubFromKey, runTool } from "../../support/openssl.ts";

Deno.test("keySpecFor() maps every encryptionAlgorithm (empty = RSA-2048)", () => {
  assert.deepEqual(keySpecFor("ECDSA-P256"), { type: "ECDSA", namedCurve: "P-256" });
  assert.deepEqual(keySpecFor("ECDSA-P384"), { type: "ECDSA", namedCurve: "P-384" });
  assert.deepEqual(keySpecFor("RSA-3072"), { type: "RSA", modulusLength: 3072 });
  assert.deepEqual(keySpecFor(""), { type: "RSA", modulusLength: 2048 });
  assert.equal(encryptionAlgorithmOf({ type: "RSA", modulusLength: 4096 }), "RSA-4096");
  assert.equal(encryptionAlgorithmOf({ type: "RSA", modulusLength: 1024 }), undefined);
  assert.throws(
    () => keySpecFor("DSA" as unknown as EncryptionAlgorithm),
    /cannot obtain key size from unknown RSA algorithm: "DSA"/,
  );
});

for (const alg of ["ECDSA-P256", "ECDSA-P384"] as const) {
  Deno.test(`encodePrivateKeyPEM() writes SEC1 "EC PRIVATE KEY" openssl accepts (${alg})`, async () => {
    const key = await generateKeyPair(alg, webKeys);
    const pem = await encodePrivateKeyPEM(key);
    assert.match(pem, /^-----BEGIN EC PRIVATE KEY-----\n/);
    const check = await runTool("openssl", ["ec", "-check", "-noout"], pem);
    assert.equal(check.code, 0, check.stderr);
    const text = await openssl(["ec", "-noout", "-text"], pem);
    assert.match(text, alg === "ECDSA-P256" ? /NIST CURVE: P-256/ : /NIST CURVE: P-384/);
    // The public key openssl derives equals ours.
    assert.equal(await opensslPubFromKey(pem), await encodePublicKeyPEM(key));
    // Round trip.
    const back = await parsePrivateKeyPEM(pem, webCryptoPort, "/x/ec.key");
    assert.deepEqual(back.spec, key.spec);
    assert.ok(await samePublicKey(await exportSPKI(back), await exportSPKI(key)));
    assert.equal(await encodePrivateKeyPEM(back), pem);
  });
}

Deno.test("RSA keys: PKCS#1 out, PKCS#1 and PKCS#8 in (one RSA-2048 key)", async () => {
  const key = await generateKeyPair("RSA-2048", webKeys);
  const pem = await encodePrivateKeyPEM(key);
  assert.match(pem, /^-----BEGIN RSA PRIVATE KEY-----\n/);
  const check = await runTool("openssl", ["rsa", "-check", "-noout"], pem);
  assert.equal(check.code, 0, check.stderr);
  assert.equal(await opensslPubFromKey(pem), await encodePublicKeyPEM(key));
  const back = await parsePrivateKeyPEM(pem, webCryptoPort);
  assert.deepEqual(back.spec, { type: "RSA", modulusLength: 2048 });
  assert.equal(await encodePrivateKeyPEM(back), pem);
  const pkcs8 = await openssl(["pkcs8", "-topk8", "-nocrypt"], pem);
  assert.match(pkcs8, /BEGIN PRIVATE KEY/);
  const fromPkcs8 = await parsePrivateKeyPEM(pkcs8, webCryptoPort);
  assert.equal(await encodePrivateKeyPEM(fromPkcs8), pem);
});

Deno.test("parsePrivateKeyPEM() reads openssl-made SEC1 and PKCS#8 EC keys", async () => {
  const sec1 = await openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout"]);
  const a = await parsePrivateKeyPEM(sec1, webCryptoPort);
  assert.deepEqual(a.spec, { type: "ECDSA", namedCurve: "P-256" });
  assert.equal(await encodePublicKeyPEM(a), await opensslPubFromKey(sec1));
  // With an "EC PARAMETERS" block first, as `openssl ecparam -genkey` writes by default.
  const withParams = await openssl(["ecparam", "-name", "secp384r1", "-genkey"]);
  assert.match(withParams, /EC PARAMETERS/);
  const b = await parsePrivateKeyPEM(withParams, webCryptoPort);
  assert.deepEqual(b.spec, { type: "ECDSA", namedCurve: "P-384" });
  const pkcs8 = await openssl(["pkcs8", "-topk8", "-nocrypt"], sec1);
  const c = await parsePrivateKeyPEM(pkcs8, webCryptoPort);
  assert.equal(await encodePrivateKeyPEM(c), await encodePrivateKeyPEM(a));
});

Deno.test("parsePrivateKeyPEM() rejects non-RSA/ECDSA keys and garbage with upstream's words", async () => {
  const ed = await openssl(["genpkey", "-algorithm", "ed25519"]);
  await assert.rejects(
    () => parsePrivateKeyPEM(ed, webCryptoPort, "/etc/kubernetes/pki/ca.key"),
    (e: unknown) =>
      e instanceof PkiError &&
      e.message ===
        "the private key file /etc/kubernetes/pki/ca.key is neither in RSA nor ECDSA format",
  );
  await assert.rejects(
    () => parsePrivateKeyPEM("not a key", webCryptoPort, "/k"),
    (e: unknown) =>
      e instanceof PkiError &&
      e.message ===
        "error reading private key file /k: data does not contain a valid RSA or ECDSA private key",
  );
  await assert.rejects(
    () =>
      parsePrivateKeyPEM(
        "-----BEGIN RSA PRIVATE KEY-----\nAQID\n-----END RSA PRIVATE KEY-----\n",
        webCryptoPort,
        "/k",
      ),
    /data does not contain a valid RSA or ECDSA private key/,
  );
});
