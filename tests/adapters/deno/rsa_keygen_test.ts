// The command line's RSA key generation (adapters/deno/rsa_keygen.ts): its Miller-Rabin test
// tells known primes from composites (Carmichael numbers and RSA moduli included), its keys
// are FIPS 186-5 A.1.3's and are accepted by openssl, by WebCrypto and by the crypto port's
// other signers, and keys asked for together come out in the order asked.
import assert from "node:assert/strict";
import {
  generateRsaComponents,
  generateRsaPkcs1,
  millerRabin,
  millerRabinRounds,
  modInverse,
  pkcs1OfComponents,
  randomPrime,
} from "../../../adapters/deno/rsa_keygen.ts";
import { denoCryptoPort } from "../../../adapters/deno/crypto.ts";
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import { webRandom } from "../../../adapters/web/random.ts";
import {
  encodePrivateKeyPEM,
  encodePublicKeyPEM,
  generateKeyPair,
  parsePrivateKeyPEM,
} from "../../../core/pki/keys.ts";
import { verifySignature } from "../../../core/pki/signature.ts";
import { OID } from "../../../core/pki/oid.ts";
import { opensslPubFromKey, runTool, tempFile } from "../../support/openssl.ts";

/** RFC 3526's 1536-bit MODP prime: 2^1536 - 2^1472 - 1 + 2^64 * (floor(2^1406 pi) + 741804). */
const MODP_1536 = BigInt(
  "0xFFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA237327FFFFFFFFFFFFFFFF",
);

Deno.test("Miller-Rabin: primes pass, composites (Carmichael numbers, RSA moduli) fail", () => {
  const primes = [5n, 7n, 65537n, (1n << 61n) - 1n, (1n << 127n) - 1n, (1n << 521n) - 1n];
  for (const p of [...primes, MODP_1536]) assert.equal(millerRabin(p, 20), true, `${p}`);
  // Carmichael numbers fool Fermat's test for every base coprime to them, not Miller-Rabin.
  const carmichael = [561n, 1105n, 41041n, 825265n, 321197185n, 5394826801n, 232250619601n];
  const composites = [
    ...carmichael,
    9n,
    25n,
    ((1n << 61n) - 1n) * ((1n << 89n) - 1n),
    MODP_1536 * ((1n << 127n) - 1n),
    (1n << 607n) + 1n,
  ];
  for (const n of composites) assert.equal(millerRabin(n, 20), false, `${n}`);
});

Deno.test("Miller-Rabin rounds follow Go's FIPS 186-5 table", () => {
  assert.deepEqual([1024, 1536, 2048, 4096].map(millerRabinRounds), [5, 4, 4, 3]);
});

Deno.test("a random prime has exactly the bits asked, its two top bits set, and p mod 65537 ≠ 1", async () => {
  for (let i = 0; i < 4; i++) {
    const p = await randomPrime(512);
    assert.equal(p >> 510n, 3n);
    assert.equal(p & 1n, 1n);
    assert.notEqual(p % 65537n, 1n);
    assert.equal(millerRabin(p, 20), true);
  }
});

Deno.test("modInverse inverts, and refuses what has no inverse", () => {
  assert.equal(modInverse(3n, 11n), 4n);
  assert.equal(modInverse(65537n, (1n << 127n) - 2n) * 65537n % ((1n << 127n) - 2n), 1n);
  assert.throws(() => modInverse(6n, 9n), /not invertible/);
});

Deno.test("an RSA-2048 key is FIPS 186-5 A.1.3's: n = pq of 2048 bits, d = e^-1 mod lcm(p-1, q-1), CRT values", async () => {
  const k = await generateRsaComponents(2048);
  const bits = (v: bigint) => v.toString(2).length;
  assert.equal(bits(k.n), 2048);
  assert.equal(k.p * k.q, k.n);
  assert.equal(k.e, 65537n);
  assert.ok(k.p > k.q && k.p - k.q > 1n << 924n);
  const pm1 = k.p - 1n, qm1 = k.q - 1n;
  const gcd = (a: bigint, b: bigint): bigint => b === 0n ? a : gcd(b, a % b);
  const lambda = pm1 / gcd(pm1, qm1) * qm1;
  assert.equal(k.e * k.d % lambda, 1n);
  assert.ok(k.d > 1n << 1024n && k.d < lambda);
  assert.equal(k.dp, k.d % pm1);
  assert.equal(k.dq, k.d % qm1);
  assert.equal(k.q * k.qi % k.p, 1n);
  assert.equal(millerRabin(k.p, 20) && millerRabin(k.q, 20), true);
  // Textbook RSA round trip on the components.
  const m = 0x1234567890abcdefn;
  const pow = (b: bigint, e: bigint, mod: bigint) => {
    let r = 1n;
    for (b %= mod; e > 0n; e >>= 1n, b = b * b % mod) if (e & 1n) r = r * b % mod;
    return r;
  };
  assert.equal(pow(pow(m, k.e, k.n), k.d, k.n), m);
});

for (const bits of [2048, 3072]) {
  Deno.test(`RSA-${bits} from the CLI's port: openssl checks the key (rsa -check), WebCrypto and openssl verify its signature`, async () => {
    const key = await generateKeyPair({ type: "RSA", modulusLength: bits }, {
      crypto: denoCryptoPort,
      random: webRandom,
    });
    assert.deepEqual(key.spec, { type: "RSA", modulusLength: bits });
    const pem = await encodePrivateKeyPEM(key);
    assert.match(pem, /^-----BEGIN RSA PRIVATE KEY-----\n/);
    const check = await runTool("openssl", ["rsa", "-check", "-noout", "-in", await tempFile(pem)]);
    assert.equal(check.code, 0, check.stderr);
    assert.match(check.stdout, /RSA key ok/);
    assert.equal(await opensslPubFromKey(pem), await encodePublicKeyPEM(key));
    const data = new TextEncoder().encode("kubeadm-ts signs this");
    const sig = await key.sign(data);
    assert.equal(
      await verifySignature(key.spki, OID.sha256WithRSAEncryption, data, sig, webCryptoPort),
      true,
    );
    const [pub, sigFile, dataFile] = await Promise.all([
      tempFile(await encodePublicKeyPEM(key)),
      tempFile(sig, ".sig"),
      tempFile(data, ".bin"),
    ]);
    const verified = await runTool("openssl", [
      "dgst",
      "-sha256",
      "-verify",
      pub,
      "-signature",
      sigFile,
      dataFile,
    ]);
    assert.equal(verified.code, 0, verified.stderr);
    // Read back from its PEM, it is the same key.
    const again = await parsePrivateKeyPEM(pem, webCryptoPort);
    assert.deepEqual(again.spki, key.spki);
  });
}

Deno.test("keys asked for together are made one after another, in the order asked", async () => {
  const done: number[] = [];
  await Promise.all(
    [0, 1, 2].map((i) => generateRsaPkcs1(1024).then(() => done.push(i))),
  );
  assert.deepEqual(done, [0, 1, 2]);
});

Deno.test("PKCS#1 of the components: version 0 and the eight integers in RFC 8017's order", () => {
  const der = pkcs1OfComponents({ n: 1n, e: 2n, d: 3n, p: 4n, q: 5n, dp: 6n, dq: 7n, qi: 8n });
  assert.deepEqual(
    [...der],
    [0x30, 27, ...[0, 1, 2, 3, 4, 5, 6, 7, 8].flatMap((v) => [0x02, 1, v])],
  );
});

Deno.test("the CLI's port hands ECDSA keys to WebCrypto", async () => {
  const key = await denoCryptoPort.generateKeyPair(
    { type: "ECDSA", namedCurve: "P-256" },
    webRandom,
  );
  assert.deepEqual(key.spec, { type: "ECDSA", namedCurve: "P-256" });
});
