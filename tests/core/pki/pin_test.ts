import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import { certificatePin, PinSet } from "../../../core/pki/pin.ts";
import { parseCertificatesPEM } from "../../../core/pki/cert.ts";
import { opensslSpkiSha256 } from "../../support/openssl.ts";
import { PIN_TEST_CERT, PIN_TEST_CERT2 } from "../../support/upstream_discovery_data.ts";

// Upstream cmd/kubeadm/app/util/pubkeypin/testdata/test-cert.pem and test-cert2.pem.
const TEST_CERT = PIN_TEST_CERT;
const TEST_CERT2 = PIN_TEST_CERT2;
const EXPECTED_HASH = "sha256:345959acb2c3b2feb87d281961c893f62a314207ef02599f1cc4a5fb255480b3";

Deno.test("certificatePin() matches upstream's vector and openssl's SPKI sha256", async () => {
  const [cert] = parseCertificatesPEM(TEST_CERT);
  const [cert2] = parseCertificatesPEM(TEST_CERT2);
  assert.equal(cert.subject.commonName, "kubeadm-keypins-test");
  assert.equal(await certificatePin(cert, webCryptoPort), EXPECTED_HASH);
  assert.equal(
    await certificatePin(cert2, webCryptoPort),
    "sha256:d1ef16989563fe7775f81a7dc55ce16a467ca9baedae2d081cb0a068b6a81971",
  );
  assert.equal(`sha256:${await opensslSpkiSha256(TEST_CERT)}`, EXPECTED_HASH);
  assert.equal(
    `sha256:${await opensslSpkiSha256(TEST_CERT2)}`,
    await certificatePin(cert2, webCryptoPort),
  );
});

Deno.test("PinSet follows upstream TestSet", async () => {
  const [cert] = parseCertificatesPEM(TEST_CERT);
  const [cert2] = parseCertificatesPEM(TEST_CERT2);
  const s = new PinSet(webCryptoPort);
  assert.throws(
    () => s.allow("xyz"),
    /^KubeadmError: invalid hash, expected "format:hex-value"\. Known format\(s\) are: sha256$/,
  );
  assert.ok(s.isEmpty());
  assert.throws(() => s.allow("0011223344"), /invalid hash, expected "format:hex-value"/);
  assert.throws(
    () => s.allow(EXPECTED_HASH + EXPECTED_HASH),
    /invalid hash, expected "format:hex-value"/,
  );
  await assert.rejects(() => s.checkAny([cert]), /none of the public keys/);
  s.allow(EXPECTED_HASH.toUpperCase());
  assert.ok(!s.isEmpty());
  await s.checkAny([cert]);
  await assert.rejects(
    () => s.checkAny([cert2]),
    (e: unknown) =>
      e instanceof Error &&
      e.message ===
        'none of the public keys "sha256:d1ef16989563fe7775f81a7dc55ce16a467ca9baedae2d081cb0a068b6a81971" are pinned',
  );
  // Any of several certificates may match; unmatched hashes are joined with ":".
  await s.checkAny([cert2, cert]);
  await assert.rejects(
    () => new PinSet(webCryptoPort).checkAny([cert, cert2]),
    /"sha256:345959[0-9a-f]+:sha256:d1ef[0-9a-f]+" are pinned/,
  );
});

Deno.test("PinSet.allow() reports format, length and hex errors with upstream's wording", () => {
  const s = new PinSet(webCryptoPort);
  assert.throws(
    () => s.allow("md5:abcd"),
    /^KubeadmError: unknown hash format "md5"\. Known format\(s\) are: sha256$/,
  );
  assert.throws(
    () => s.allow("sha256:abcd"),
    (e: unknown) =>
      e instanceof Error &&
      e.message === 'invalid hash "sha256:abcd", expected a 32 byte SHA-256 hash, found 2 bytes',
  );
  const bad = "sha256:" + "g".repeat(64);
  assert.throws(
    () => s.allow(bad),
    (e: unknown) =>
      e instanceof Error &&
      e.message ===
        `invalid hash "${bad}", could not decode SHA-256 from hex: encoding/hex: invalid byte: U+0067 'g'`,
  );
  const odd = "sha256:" + "a".repeat(65);
  assert.throws(
    () => s.allow(odd),
    /could not decode SHA-256 from hex: encoding\/hex: odd length hex string/,
  );
  assert.ok(s.isEmpty());
});
