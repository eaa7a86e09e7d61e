// The crypto port: WebCrypto and the deterministic (noble) implementation make keys that
// openssl accepts, sign what the other verifies, and the deterministic one repeats itself.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { webCryptoPort } from "../../../core/pki/webcrypto.ts";
import { deterministicCryptoPort } from "../../../core/pki/noble.ts";
import type { CryptoPort, KeySpec } from "../../../core/pki/crypto.ts";
import {
  encodePrivateKeyPEM,
  encodePublicKeyPEM,
  generateKeyPair,
  parsePrivateKeyPEM,
} from "../../../core/pki/keys.ts";
import { verifySignature } from "../../../core/pki/signature.ts";
import { OID } from "../../../core/pki/oid.ts";
import { seededRandom } from "../../../core/host/seeded_random.ts";
import { webRandom } from "../../../core/host/ports.ts";
import { PkiError } from "../../../core/errors.ts";
import { opensslPubFromKey, runTool, tempFile } from "../../support/openssl.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const unhex = (s: string) => new Uint8Array(s.match(/../g)!.map((h) => parseInt(h, 16)));
const data = new TextEncoder().encode("kubeadm-ts signs this");
const PORTS: CryptoPort[] = [webCryptoPort, deterministicCryptoPort];
const EC_SPECS: [KeySpec, string][] = [
  [{ type: "ECDSA", namedCurve: "P-256" }, OID.ecdsaWithSHA256],
  [{ type: "ECDSA", namedCurve: "P-384" }, OID.ecdsaWithSHA384],
];

Deno.test("seededRandom() is the SHAKE256 stream of its seed, read in order", () => {
  const r = seededRandom("seed");
  const drawn = [...r.bytes(5), ...r.bytes(27)];
  const want = createHash("shake256", { outputLength: 32 })
    .update("kubeadm-ts seeded random v1\0seed").digest();
  assert.equal(hex(new Uint8Array(drawn)), want.toString("hex"));
  assert.notEqual(hex(seededRandom("seed2").bytes(32)), want.toString("hex"));
  assert.throws(() => seededRandom(""), /the random seed is empty/);
});

for (const maker of PORTS) {
  for (const [spec, sigOid] of EC_SPECS) {
    Deno.test(`${maker.name} ${spec.type === "ECDSA" && spec.namedCurve}: openssl accepts the key; both ports verify its signature; openssl too`, async () => {
      const key = await generateKeyPair(spec, { crypto: maker, random: webRandom });
      const pem = await encodePrivateKeyPEM(key);
      assert.equal(await opensslPubFromKey(pem), await encodePublicKeyPEM(key));
      const sig = await key.sign(data);
      for (const checker of PORTS) {
        assert.equal(await verifySignature(key.spki, sigOid, data, sig, checker), true);
        const tampered = data.slice();
        tampered[0] ^= 1;
        assert.equal(await verifySignature(key.spki, sigOid, tampered, sig, checker), false);
      }
      const digest = spec.type === "ECDSA" && spec.namedCurve === "P-384" ? "-sha384" : "-sha256";
      const [keyFile, sigFile, dataFile] = await Promise.all([
        tempFile(pem),
        tempFile(sig, ".sig"),
        tempFile(data, ".txt"),
      ]);
      const r = await runTool("openssl", [
        "dgst",
        digest,
        "-prverify",
        keyFile,
        "-signature",
        sigFile,
        dataFile,
      ]);
      assert.equal(r.code, 0, r.stderr);
      // Re-imported through either port, the key is the same key.
      for (const importer of PORTS) {
        const back = await parsePrivateKeyPEM(pem, "k", importer);
        assert.equal(hex(back.spki), hex(key.spki));
        assert.equal(await encodePrivateKeyPEM(back), pem);
      }
    });
  }
}

Deno.test("deterministic port: keys come from the random source, signatures repeat (RFC 6979)", async () => {
  const spec: KeySpec = { type: "ECDSA", namedCurve: "P-256" };
  const a = await deterministicCryptoPort.generateKeyPair(spec, seededRandom("k"));
  const b = await deterministicCryptoPort.generateKeyPair(spec, seededRandom("k"));
  const c = await deterministicCryptoPort.generateKeyPair(spec, seededRandom("other"));
  assert.equal(await encodePrivateKeyPEM(a), await encodePrivateKeyPEM(b));
  assert.notEqual(hex(a.spki), hex(c.spki));
  assert.equal(hex(await a.sign(data)), hex(await b.sign(data)));
});

Deno.test("deterministic port signs RFC 6979 A.2.5's P-256/SHA-256 'sample' vector exactly", async () => {
  const d = unhex("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721");
  const key = await deterministicCryptoPort.importPrivateKey({
    type: "ECDSA",
    namedCurve: "P-256",
    d,
  });
  const sig = await key.sign(new TextEncoder().encode("sample"));
  const r = "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716";
  const s = "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8";
  // DER: SEQUENCE { INTEGER r (leading 00: high bit), INTEGER s (leading 00) }
  assert.equal(hex(sig), `3046022100${r}022100${s}`);
});

Deno.test("deterministic port refuses to derive RSA keys and names the option; RSA keys it is given still sign", async () => {
  await assert.rejects(
    () =>
      generateKeyPair("RSA-2048", { crypto: deterministicCryptoPort, random: seededRandom("x") }),
    (e) =>
      e instanceof PkiError && e.field === "encryptionAlgorithm" && e.value === "RSA-2048" &&
      /cannot generate RSA-2048 keys/.test(e.message),
  );
  const rsa = await generateKeyPair("RSA-2048");
  const pem = await encodePrivateKeyPEM(rsa);
  const viaDet = await parsePrivateKeyPEM(pem, "k", deterministicCryptoPort);
  const sig = await viaDet.sign(data);
  assert.equal(hex(sig), hex(await rsa.sign(data)), "PKCS#1 v1.5 is deterministic");
  assert.equal(
    await verifySignature(
      rsa.spki,
      OID.sha256WithRSAEncryption,
      data,
      sig,
      deterministicCryptoPort,
    ),
    true,
  );
});

Deno.test("deterministic port rejects an EC key whose stored public point is not its own", async () => {
  const a = await generateKeyPair("ECDSA-P256");
  const b = await generateKeyPair("ECDSA-P256");
  const ma = await a.exportPrivate();
  const mb = await b.exportPrivate();
  assert(ma.type === "ECDSA" && mb.type === "ECDSA");
  await assert.rejects(
    () => deterministicCryptoPort.importPrivateKey({ ...ma, point: mb.point }),
    /does not match its public key/,
  );
});
