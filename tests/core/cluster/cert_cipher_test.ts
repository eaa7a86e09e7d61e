import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import {
  decryptBytes,
  encryptBytes,
  fromHex,
  generateCertificateKey,
  parseCertificateKey,
  toHex,
} from "../../../core/cluster/cert_cipher.ts";
import { replayRandom, seededRandom } from "../../support/fixed_random.ts";
import { deterministicCryptoPort } from "../../../adapters/crypto/noble.ts";
import { pureJsCryptoPort } from "../../../adapters/crypto/pure_js.ts";

const KEY = fromHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
const NONCE = Array.from({ length: 12 }, (_, i) => i);
const PLAIN = new TextEncoder().encode("-----BEGIN CERTIFICATE-----\n");
const SEALED_HEX =
  "000102030405060708090a0b6a2ffb36e8a7875cc40fb7c8f4bb2c24c59fc475a43e7251154ac88f7b942df1281ad3748d34b44746b16fba";

Deno.test("AES-256-GCM layout vector: nonce ‖ ciphertext ‖ tag", async () => {
  assert.equal(PLAIN.length, 28);
  const sealed = await encryptBytes(PLAIN, KEY, replayRandom(NONCE), webCryptoPort);
  assert.equal(toHex(sealed), SEALED_HEX);
  assert.equal(
    btoa(String.fromCharCode(...sealed)),
    "AAECAwQFBgcICQoLai/7Nuinh1zED7fI9LssJMWfxHWkPnJRFUrIj3uULfEoGtN0jTS0R0axb7o=",
  );
  assert.deepEqual(await decryptBytes(fromHex(SEALED_HEX), KEY, webCryptoPort), PLAIN);
});

Deno.test("the layout vector through the noble ports (the WebAssembly component's is pure-JS)", async () => {
  for (const port of [deterministicCryptoPort, pureJsCryptoPort]) {
    assert.equal(toHex(await encryptBytes(PLAIN, KEY, replayRandom(NONCE), port)), SEALED_HEX);
    assert.deepEqual(await decryptBytes(fromHex(SEALED_HEX), KEY, port), PLAIN);
    const tampered = fromHex(SEALED_HEX);
    tampered[20] ^= 0xff;
    await assert.rejects(
      () => decryptBytes(tampered, KEY, port),
      /^KubeadmError: cipher: message authentication failed$/,
    );
    await assert.rejects(
      () => encryptBytes(PLAIN, new Uint8Array(5), replayRandom(NONCE), port),
      /crypto\/aes: invalid key size 5/,
    );
  }
});

Deno.test("decrypt fails with another key, an empty key, tampering and short data", async () => {
  const sealed = fromHex(SEALED_HEX);
  const other = KEY.slice();
  other[0] ^= 1;
  await assert.rejects(
    () => decryptBytes(sealed, other, webCryptoPort),
    /^KubeadmError: cipher: message authentication failed$/,
  );
  await assert.rejects(
    () => decryptBytes(sealed, new Uint8Array(0), webCryptoPort),
    /crypto\/aes: invalid key size 0/,
  );
  const tampered = sealed.slice();
  tampered[20] ^= 0xff;
  await assert.rejects(
    () => decryptBytes(tampered, KEY, webCryptoPort),
    /message authentication failed/,
  );
  await assert.rejects(
    () => decryptBytes(new Uint8Array(11), KEY, webCryptoPort),
    /size of data is less than the nonce/,
  );
});

Deno.test("random round trip uses a fresh nonce each time", async () => {
  const random = seededRandom(7);
  const a = await encryptBytes(PLAIN, KEY, random, webCryptoPort);
  const b = await encryptBytes(PLAIN, KEY, random, webCryptoPort);
  assert.notDeepEqual(a.slice(0, 12), b.slice(0, 12));
  assert.deepEqual(await decryptBytes(a, KEY, webCryptoPort), PLAIN);
  assert.deepEqual(await decryptBytes(b, KEY, webCryptoPort), PLAIN);
});

Deno.test("certificate keys: 32 random bytes as lowercase hex, validated on input", () => {
  const key = generateCertificateKey(
    replayRandom(Array.from({ length: 32 }, (_, i) => 0xf0 + (i % 16))),
  );
  assert.equal(key.length, 64);
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.ok(key.startsWith("f0f1f2"));
  assert.deepEqual(parseCertificateKey(key.toUpperCase()).length, 32);
  assert.throws(
    () => parseCertificateKey("abcd"),
    /invalid certificate key size 2, the key must be an AES key of size 32/,
  );
  assert.throws(
    () => parseCertificateKey("zz"),
    /error decoding certificate key: encoding\/hex: invalid byte: U\+007A 'z'/,
  );
  assert.throws(() => parseCertificateKey("abc"), /encoding\/hex: odd length hex string/);
});
