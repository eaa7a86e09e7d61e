import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../../support/platform.ts";
import assert from "node:assert/strict";
import { createCSR, encodeCSRPEM, parseCSR } from "../../../core/pki/csr.ts";
import { verifyCSRSignature } from "../../support/test_pki.ts";
import { encodePublicKeyPEM, generateKeyPair } from "../../../core/pki/keys.ts";
import { openssl, runTool, tempFile } from "../../support/openssl.ts";

Deno.test("createCSR() makes a PKCS#10 request openssl verifies, with subject and SANs", async () => {
  const key = await generateKeyPair("ECDSA-P256", webKeys);
  const csr = await createCSR({
    commonName: "system:node:node1",
    organization: ["system:nodes"],
    dnsNames: ["node1", "node1"],
    ips: ["10.0.0.5"],
  }, key);
  const pem = encodeCSRPEM(csr);
  assert.match(pem, /^-----BEGIN CERTIFICATE REQUEST-----\n/);
  const v = await runTool("openssl", ["req", "-verify", "-noout", "-in", await tempFile(pem)]);
  assert.equal(v.code, 0, v.stderr);
  const text = await openssl(["req", "-noout", "-text", "-nameopt", "RFC2253"], pem);
  assert.match(text, /Subject: CN=system:node:node1,O=system:nodes\n/);
  assert.match(text, /DNS:node1, IP Address:10.0.0.5\n/);
  assert.equal(await openssl(["req", "-noout", "-pubkey"], pem), await encodePublicKeyPEM(key));
  assert.ok(await verifyCSRSignature(csr, webCryptoPort));
  const back = parseCSR(pem);
  assert.equal(back.subject.commonName, "system:node:node1");
  assert.deepEqual(back.subject.organization, ["system:nodes"]);
  assert.deepEqual(back.dnsNames, ["node1"]);
  assert.deepEqual(back.ipAddresses, ["10.0.0.5"]);
});

Deno.test("parseCSR() reads openssl requests without extensions; tampering breaks the signature", async () => {
  const keyPem = await openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout"]);
  const pem = await openssl([
    "req",
    "-new",
    "-key",
    await tempFile(keyPem),
    "-subj",
    "/O=g1/O=g2/CN=alice",
  ]);
  const csr = parseCSR(pem);
  assert.equal(csr.subject.commonName, "alice");
  assert.deepEqual(csr.subject.organization, ["g1", "g2"]);
  assert.deepEqual(csr.dnsNames, []);
  assert.ok(await verifyCSRSignature(csr, webCryptoPort));
  const bare = await createCSR(
    { commonName: "bare" },
    await generateKeyPair("ECDSA-P256", webKeys),
  );
  assert.deepEqual(Array.from(bare.info.slice(-2)), [0xa0, 0x00], "empty attributes like Go");
  const tampered = { ...csr, info: csr.info.slice() };
  tampered.info[tampered.info.length - 1] ^= 1;
  assert.equal(await verifyCSRSignature(tampered, webCryptoPort), false);
});
