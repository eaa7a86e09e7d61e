// The crypto port: WebCrypto and the noble implementations (deterministic, pure-JS) make keys
// that openssl accepts, sign what the others verify, and the noble ones repeat themselves.
import { webKeys } from "../../support/platform.ts";
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { ecdsaRawToDer, webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import { deterministicCryptoPort } from "../../../adapters/crypto/noble.ts";
import { pureJsCryptoPort } from "../../../adapters/crypto/pure_js.ts";
import { CURVE_ORDER } from "../../../core/pki/ec_curve.ts";
import type { CryptoPort, KeySpec } from "../../../core/ports/crypto.ts";
import { p256, p384, p521 } from "@noble/curves/nist.js";
import {
  encodePrivateKeyPEM,
  encodePublicKeyPEM,
  generateKeyPair,
  parsePrivateKeyPEM,
} from "../../../core/pki/keys.ts";
import { verifySignature } from "../../../core/pki/signature.ts";
import { OID } from "../../../core/pki/oid.ts";
import { seededRandom } from "../../../adapters/offline/random.ts";
import { webRandom } from "../../../adapters/web/random.ts";
import { PkiError } from "../../../core/errors.ts";
import { opensslPubFromKey, runTool, tempFile } from "../../support/openssl.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const unhex = (s: string) => new Uint8Array(s.match(/../g)!.map((h) => parseInt(h, 16)));
const data = new TextEncoder().encode("kubeadm-ts signs this");
const PORTS: CryptoPort[] = [webCryptoPort, deterministicCryptoPort, pureJsCryptoPort];
const EC_SPECS: [KeySpec, string][] = [
  [{ type: "ECDSA", namedCurve: "P-256" }, OID.ecdsaWithSHA256],
  [{ type: "ECDSA", namedCurve: "P-384" }, OID.ecdsaWithSHA384],
];

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
        const back = await parsePrivateKeyPEM(pem, importer, "k");
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
  const rsa = await generateKeyPair("RSA-2048", webKeys);
  const pem = await encodePrivateKeyPEM(rsa);
  const viaDet = await parsePrivateKeyPEM(pem, deterministicCryptoPort, "k");
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
  const a = await generateKeyPair("ECDSA-P256", webKeys);
  const b = await generateKeyPair("ECDSA-P256", webKeys);
  const ma = await a.exportPrivate();
  const mb = await b.exportPrivate();
  assert(ma.type === "ECDSA" && mb.type === "ECDSA");
  await assert.rejects(
    () => deterministicCryptoPort.importPrivateKey({ ...ma, point: mb.point }),
    /does not match its public key/,
  );
});

Deno.test("pure-JS port: the same ECDSA keys and signatures as the deterministic port", async () => {
  for (const namedCurve of ["P-256", "P-384"] as const) {
    const spec: KeySpec = { type: "ECDSA", namedCurve };
    const a = await deterministicCryptoPort.generateKeyPair(spec, seededRandom("same"));
    const b = await pureJsCryptoPort.generateKeyPair(spec, seededRandom("same"));
    assert.equal(await encodePrivateKeyPEM(a), await encodePrivateKeyPEM(b));
    assert.equal(hex(await a.sign(data)), hex(await b.sign(data)));
  }
});

Deno.test("pure-JS port checks ECDSA under another hash than the curve's, as WebCrypto does", async () => {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  const spec: KeySpec = { type: "ECDSA", namedCurve: "P-256" };
  for (const hash of ["SHA-1", "SHA-384", "SHA-512"] as const) {
    const raw = new Uint8Array(
      await crypto.subtle.sign({ name: "ECDSA", hash }, pair.privateKey, data),
    );
    const der = ecdsaRawToDer(raw);
    for (const port of PORTS) {
      assert.equal(await port.verify(spki, spec, hash, data, der), true, `${port.name} ${hash}`);
      const tampered = data.slice();
      tampered[1] ^= 1;
      assert.equal(await port.verify(spki, spec, hash, tampered, der), false, port.name);
    }
  }
});

Deno.test("pure-JS port refuses RSA (generate, import, check) with a PkiError naming what to use", async () => {
  await assert.rejects(
    () => generateKeyPair("RSA-2048", { crypto: pureJsCryptoPort, random: seededRandom("x") }),
    (e) =>
      e instanceof PkiError && e.field === "encryptionAlgorithm" && e.value === "RSA-2048" &&
      /pure-JavaScript crypto port \(the WebAssembly component\) cannot generate RSA-2048 keys/
        .test(e.message) &&
      /ECDSA-P256/.test(e.hint ?? ""),
  );
  const rsa = await generateKeyPair("RSA-2048", webKeys);
  const rsaPem = await encodePrivateKeyPEM(rsa);
  await assert.rejects(
    () => parsePrivateKeyPEM(rsaPem, pureJsCryptoPort, "k"),
    (e) => e instanceof PkiError && /cannot use RSA private keys/.test(e.message),
  );
  const sig = await rsa.sign(data);
  await assert.rejects(
    () => pureJsCryptoPort.verify(rsa.spki, rsa.spec, "SHA-256", data, sig),
    (e) => e instanceof PkiError && /cannot check RSA signatures/.test(e.message),
  );
});

Deno.test("AES-GCM: every port seals to the same bytes and opens the others'; tampering is refused", async () => {
  const key = unhex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  const nonce = unhex("cafebabefacedbaddecaf888");
  const plain = new TextEncoder().encode("-----BEGIN EC PRIVATE KEY-----\n".repeat(9));
  const sealed = await Promise.all(PORTS.map((p) => p.sealAesGcm(key, nonce, plain)));
  assert.equal(sealed[0].length, plain.length + 16);
  for (const s of sealed) assert.equal(hex(s), hex(sealed[0]));
  for (const p of PORTS) {
    assert.deepEqual(await p.openAesGcm(key, nonce, sealed[0]), plain, p.name);
    const tampered = sealed[0].slice();
    tampered[3] ^= 1;
    await assert.rejects(() => p.openAesGcm(key, nonce, tampered), p.name);
    await assert.rejects(() => p.openAesGcm(key.slice(1), nonce, sealed[0]), p.name);
  }
});

Deno.test("digests and HMACs: every port gives node:crypto's bytes, for every hash and an empty input", async () => {
  const key = new TextEncoder().encode("0123456789abcdef".padEnd(32, "\0"));
  const hashes = [["SHA-1", "sha1"], ["SHA-256", "sha256"], ["SHA-384", "sha384"], [
    "SHA-512",
    "sha512",
  ]] as const;
  for (const [hash, node] of hashes) {
    for (const input of [data, new Uint8Array(0)]) {
      const digest = createHash(node).update(input).digest("hex");
      const mac = createHmac(node, key).update(input).digest("hex");
      for (const p of PORTS) {
        assert.equal(hex(await p.digest(hash, input)), digest, `${p.name} ${hash}`);
        assert.equal(hex(await p.hmac(hash, key, input)), mac, `${p.name} HMAC ${hash}`);
      }
    }
  }
});

Deno.test("WebCrypto port: an ECDSA key's public point is its scalar's, keys differ, scalars lie in [1, n-1]", async () => {
  const curves = { "P-256": p256, "P-384": p384, "P-521": p521 } as const;
  for (const curve of ["P-256", "P-384", "P-521"] as const) {
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const key = await webCryptoPort.generateKeyPair(
        { type: "ECDSA", namedCurve: curve },
        webRandom,
      );
      const m = await key.exportPrivate();
      assert.equal(m.type, "ECDSA");
      if (m.type !== "ECDSA") return;
      const d = BigInt("0x" + hex(m.d));
      assert.ok(d >= 1n && d < CURVE_ORDER[curve], `${curve} scalar out of range`);
      assert.equal(hex(m.point!), hex(curves[curve].getPublicKey(m.d, false)));
      seen.add(hex(m.d));
    }
    assert.equal(seen.size, 4);
  }
});

Deno.test("WebCrypto port: where the engine cannot import a bare EC scalar, it generates the key itself", async () => {
  const subtle = crypto.subtle as SubtleCrypto & { importKey: SubtleCrypto["importKey"] };
  const original = subtle.importKey;
  let refused = 0;
  // As Safari: a PKCS#8 EC key without its public point does not import.
  Object.defineProperty(subtle, "importKey", {
    configurable: true,
    value: (...args: Parameters<SubtleCrypto["importKey"]>) => {
      if (args[0] === "pkcs8" && (args[2] as EcKeyImportParams).name === "ECDSA") {
        refused++;
        return Promise.reject(new DOMException("not supported", "NotSupportedError"));
      }
      return original.apply(subtle, args);
    },
  });
  try {
    const key = await webCryptoPort.generateKeyPair(
      { type: "ECDSA", namedCurve: "P-256" },
      webRandom,
    );
    assert.equal(refused, 1);
    const m = await key.exportPrivate();
    assert.equal(m.type, "ECDSA");
    if (m.type !== "ECDSA") return;
    assert.equal(hex(m.point!), hex(p256.getPublicKey(m.d, false)));
    const signature = await key.sign(data);
    assert.ok(p256.verify(signature, data, m.point!, { format: "der", lowS: false }));
    // Once refused, the engine is not asked again.
    await webCryptoPort.generateKeyPair({ type: "ECDSA", namedCurve: "P-384" }, webRandom);
    assert.equal(refused, 1);
  } finally {
    delete (subtle as unknown as Record<string, unknown>).importKey;
  }
  assert.equal(crypto.subtle.importKey, original);
});
