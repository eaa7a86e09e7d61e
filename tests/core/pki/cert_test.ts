import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../../support/platform.ts";
import assert from "node:assert/strict";
import {
  certPeriodProblem,
  createSelfSignedCACert,
  createSignedCert,
  encodeCertificatePEM,
  keyMatchesCertificate,
  parseCertificate,
  parseCertificatesPEM,
  randomSerialNumber,
  verifyCertChain,
  verifyHostname,
} from "../../../core/pki/cert.ts";
import { newCertAndKey } from "../../support/test_pki.ts";
import { dedupeAltNames } from "../../../core/pki/extensions.ts";
import { encodePrivateKeyPEM, generateKeyPair } from "../../../core/pki/keys.ts";
import { formatName } from "../../../core/pki/name.ts";
import { PkiError } from "../../../core/errors.ts";
import { replayRandom, seededRandom } from "../../support/fixed_random.ts";
import {
  openssl,
  opensslPubFromCert,
  opensslPubFromKey,
  runTool,
  tempFile,
  x509Text,
} from "../../support/openssl.ts";

const start = new Date("2026-03-01T10:00:00.750Z");
const notBefore = new Date(start.getTime() - 5 * 60_000);
const random = seededRandom(7);

async function makeCA(
  alg: "ECDSA-P256" | "ECDSA-P384" | "RSA-2048" = "ECDSA-P256",
  cn = "kubernetes",
) {
  const key = await generateKeyPair(alg, webKeys);
  const cert = await createSelfSignedCACert(
    { commonName: cn, notBefore, notAfter: new Date(start.getTime() + 87600 * 3600_000) },
    key,
    random,
    webCryptoPort,
  );
  return { cert, key };
}

Deno.test("randomSerialNumber() stays in [1, 2^63-1) and rejects out-of-range draws", () => {
  // All-ones (masked to 2^63-1) and 2^63-2 are rejected; then 0 → serial 1.
  const r = replayRandom([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], [
    0x7f,
    0xff,
    0xff,
    0xff,
    0xff,
    0xff,
    0xff,
    0xfe,
  ], [
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
  ]);
  assert.equal(randomSerialNumber(r), 1n);
  const r2 = replayRandom([0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd]);
  assert.equal(randomSerialNumber(r2), (1n << 63n) - 2n);
  for (let i = 0; i < 50; i++) {
    const s = randomSerialNumber(random);
    assert.ok(s >= 1n && s < (1n << 63n) - 1n);
  }
});

Deno.test("createSelfSignedCACert() makes a kubeadm-shaped CA (ECDSA-P256), checked by openssl", async () => {
  const { cert, key } = await makeCA();
  const pem = encodeCertificatePEM(cert);
  const text = await x509Text(pem);
  assert.match(text, /Version: 3 \(0x2\)/);
  assert.match(text, /Signature Algorithm: ecdsa-with-SHA256/);
  assert.match(text, /Issuer: CN=kubernetes\n/);
  assert.match(text, /Subject: CN=kubernetes\n/);
  assert.match(
    text,
    /X509v3 Key Usage: critical\n\s+Digital Signature, Key Encipherment, Certificate Sign\n/,
  );
  assert.match(text, /X509v3 Basic Constraints: critical\n\s+CA:TRUE\n/);
  assert.match(text, /X509v3 Subject Key Identifier/);
  assert.doesNotMatch(text, /Authority Key Identifier/);
  assert.match(text, /X509v3 Subject Alternative Name: \n\s+DNS:kubernetes\n/);
  assert.match(text, /Not Before: Mar {2}1 09:55:00 2026 GMT/);
  assert.match(text, /Not After : Feb 27 10:00:00 2036 GMT/);
  // SKI = SHA-1 of the public key bits (what openssl computes by default for "hash").
  const skiHex = Array.from(
    cert.subjectKeyId!,
    (b) => b.toString(16).padStart(2, "0").toUpperCase(),
  ).join(":");
  assert.ok(text.includes(skiHex), "SKI must be SHA-1 of the key bits");
  // Self-verifies.
  const caFile = await tempFile(pem);
  const v = await runTool("openssl", ["verify", "-CAfile", caFile, caFile]);
  assert.equal(v.code, 0, v.stderr);
  assert.equal(
    await opensslPubFromCert(pem),
    await opensslPubFromKey(await encodePrivateKeyPEM(key)),
  );
  assert.equal(cert.isCA, true);
  assert.deepEqual(cert.keyUsage, ["digitalSignature", "keyEncipherment", "keyCertSign"]);
  // Raw DER: one RDN set, CN as PrintableString; X509KeyUsage bit string 03 02 02 a4.
  const hex = Array.from(cert.der, (b) => b.toString(16).padStart(2, "0")).join("");
  assert.ok(hex.includes("3015311330110603550403130a6b756265726e65746573"), "Name encoded like Go");
  assert.ok(hex.includes("0101ff0404030202a4"), "X509KeyUsage critical, minimal bit string");
});

Deno.test("createSignedCert() makes leaves with SANs, EKUs, AKI, O before CN (ECDSA-P256)", async () => {
  const ca = await makeCA();
  const leafKey = await generateKeyPair("ECDSA-P256", webKeys);
  const cert = await createSignedCert(
    {
      commonName: "kube-apiserver",
      organization: ["b-org", "a-org"],
      dnsNames: ["node1", "kubernetes", "kubernetes.default", "node1"],
      ips: ["10.96.0.1", "192.168.0.10", "fd00::1", "10.96.0.1"],
      usages: ["serverAuth", "clientAuth"],
      notBefore,
      notAfter: new Date(start.getTime() + 8760 * 3600_000),
    },
    leafKey,
    ca.cert,
    ca.key,
    random,
    webCryptoPort,
  );
  const pem = encodeCertificatePEM(cert);
  const text = await x509Text(pem);
  // Several O values share one RDN SET, sorted in DER order; CN in its own later RDN.
  assert.match(text, /Subject: CN=kube-apiserver,O=b-org\+O=a-org\n/);
  assert.deepEqual(cert.subject.rdns, [[["2.5.4.10", "a-org"], ["2.5.4.10", "b-org"]], [[
    "2.5.4.3",
    "kube-apiserver",
  ]]]);
  assert.match(text, /X509v3 Key Usage: critical\n\s+Digital Signature, Key Encipherment\n/);
  assert.match(
    text,
    /X509v3 Extended Key Usage: \n\s+TLS Web Server Authentication, TLS Web Client Authentication\n/,
  );
  assert.match(text, /X509v3 Basic Constraints: critical\n\s+CA:FALSE\n/);
  assert.match(
    text,
    /DNS:kubernetes, DNS:kubernetes.default, DNS:node1, IP Address:10.96.0.1, IP Address:192.168.0.10, IP Address:FD00:0:0:0:0:0:0:1\n/,
  );
  assert.match(text, /X509v3 Authority Key Identifier/);
  assert.deepEqual(cert.authorityKeyId, ca.cert.subjectKeyId);
  assert.equal(cert.subjectKeyId, undefined);
  const caFile = await tempFile(encodeCertificatePEM(ca.cert));
  const leafFile = await tempFile(pem);
  for (const purpose of ["sslserver", "sslclient"]) {
    const v = await runTool("openssl", [
      "verify",
      "-purpose",
      purpose,
      "-CAfile",
      caFile,
      leafFile,
    ]);
    assert.equal(v.code, 0, v.stderr);
  }
  assert.deepEqual(cert.dnsNames, ["kubernetes", "kubernetes.default", "node1"]);
  assert.deepEqual(cert.ipAddresses, ["10.96.0.1", "192.168.0.10", "fd00::1"]);
  assert.equal(formatName(cert.subject), "CN=kube-apiserver,O=a-org+O=b-org");
  assert.ok(await keyMatchesCertificate(leafKey, cert));
  assert.ok(!(await keyMatchesCertificate(ca.key, cert)));
  await verifyCertChain(cert, [], ca.cert, start, webCryptoPort);
});

Deno.test("UTF8String is used when PrintableString cannot hold the value", async () => {
  const ca = await makeCA();
  const leaf = await newCertAndKey(
    ca.cert,
    ca.key,
    {
      commonName: "system:node:my_node",
      organization: ["system:nodes"],
      usages: ["clientAuth"],
    },
    "ECDSA-P256",
    random,
    webCryptoPort,
  );
  const text = await openssl(["asn1parse", "-inform", "DER"], leaf.cert.der);
  assert.match(text, /PRINTABLESTRING\s+:system:nodes/);
  assert.match(text, /UTF8STRING\s+:system:node:my_node/);
  // Leaf validity falls back to the CA's NotBefore and NotBefore + 1y.
  assert.equal(leaf.cert.notBefore.getTime(), ca.cert.notBefore.getTime());
  assert.equal(leaf.cert.notAfter.getTime() - leaf.cert.notBefore.getTime(), 365 * 24 * 3600_000);
  await assert.rejects(
    () =>
      createSignedCert(
        { commonName: "", usages: ["clientAuth"] },
        leaf.key,
        ca.cert,
        ca.key,
        random,
        webCryptoPort,
      ),
    /must specify a CommonName/,
  );
});

Deno.test("RSA-2048 CA signs an ECDSA leaf with sha256WithRSAEncryption; P-384 signs with SHA-384", async () => {
  const rsa = await makeCA("RSA-2048");
  const leaf = await newCertAndKey(
    rsa.cert,
    rsa.key,
    { commonName: "c", usages: ["clientAuth"] },
    "ECDSA-P256",
    random,
    webCryptoPort,
  );
  assert.match(
    await x509Text(encodeCertificatePEM(leaf.cert)),
    /Signature Algorithm: sha256WithRSAEncryption/,
  );
  const v = await runTool("openssl", [
    "verify",
    "-CAfile",
    await tempFile(encodeCertificatePEM(rsa.cert)),
    await tempFile(encodeCertificatePEM(leaf.cert)),
  ]);
  assert.equal(v.code, 0, v.stderr);
  await verifyCertChain(leaf.cert, [], rsa.cert, start, webCryptoPort);
  const p384 = await makeCA("ECDSA-P384");
  assert.match(
    await x509Text(encodeCertificatePEM(p384.cert)),
    /Signature Algorithm: ecdsa-with-SHA384/,
  );
  const leaf2 = await newCertAndKey(
    p384.cert,
    p384.key,
    { commonName: "c", usages: ["clientAuth"] },
    "ECDSA-P384",
    random,
    webCryptoPort,
  );
  await verifyCertChain(leaf2.cert, [], p384.cert, start, webCryptoPort);
  // An RSA signature checked against the wrong CA names the candidate like Go does.
  const otherRsaCaName = await makeCA("ECDSA-P256", "kubernetes");
  const rsaLeaf = await newCertAndKey(
    rsa.cert,
    rsa.key,
    { commonName: "c", usages: ["clientAuth"] },
    "ECDSA-P256",
    random,
    webCryptoPort,
  );
  await assert.rejects(
    () => verifyCertChain(rsaLeaf.cert, [], otherRsaCaName.cert, start, webCryptoPort),
    (e: unknown) =>
      e instanceof PkiError &&
      e.message ===
        'x509: certificate signed by unknown authority (possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "kubernetes")',
  );
});

Deno.test("verifyCertChain() rejects other CAs, non-CAs and expired certificates; follows intermediates", async () => {
  const ca = await makeCA();
  const other = await makeCA("ECDSA-P256", "other-ca");
  const leaf = await newCertAndKey(
    ca.cert,
    ca.key,
    { commonName: "x", usages: ["clientAuth"] },
    "ECDSA-P256",
    random,
    webCryptoPort,
  );
  await assert.rejects(
    () => verifyCertChain(leaf.cert, [], other.cert, start, webCryptoPort),
    /^PkiError: x509: certificate signed by unknown authority$/,
  );
  await assert.rejects(
    () =>
      verifyCertChain(
        leaf.cert,
        [],
        ca.cert,
        new Date(start.getTime() + 2 * 365 * 24 * 3600_000),
        webCryptoPort,
      ),
    /x509: certificate has expired or is not yet valid: current time 2028-02-29T10:00:00Z is after 2027-03-01T09:55:00Z/,
  );
  await assert.rejects(
    () => verifyCertChain(leaf.cert, [], ca.cert, new Date("2026-01-01T00:00:00Z"), webCryptoPort),
    /is before 2026-03-01T09:55:00Z/,
  );
  // Intermediate CA in the chain.
  const interKey = await generateKeyPair("ECDSA-P256", webKeys);
  const inter = await createSignedCert(
    { commonName: "inter", notBefore },
    interKey,
    ca.cert,
    ca.key,
    random,
    webCryptoPort,
    true,
  );
  assert.equal(inter.isCA, true);
  const leaf2 = await newCertAndKey(
    inter,
    interKey,
    { commonName: "y", usages: ["serverAuth"] },
    "ECDSA-P256",
    random,
    webCryptoPort,
  );
  await verifyCertChain(leaf2.cert, [inter], ca.cert, start, webCryptoPort);
  await assert.rejects(
    () => verifyCertChain(leaf2.cert, [], ca.cert, start, webCryptoPort),
    /unknown authority/,
  );
  // A leaf posing as a CA cannot sign.
  const fake = await createSignedCert(
    { commonName: "x", usages: ["clientAuth"] },
    leaf.key,
    leaf.cert,
    leaf.key,
    random,
    webCryptoPort,
  );
  await assert.rejects(
    () => verifyCertChain(fake, [], leaf.cert, start, webCryptoPort),
    /unknown authority \(possibly because of/,
  );
});

Deno.test("parseCertificatesPEM() reads bundles and rejects text without certificates", async () => {
  const a = await makeCA();
  const b = await makeCA("ECDSA-P256", "front-proxy-ca");
  const certs = parseCertificatesPEM("# bundle\n" + encodeCertificatePEM([a.cert, b.cert]));
  assert.deepEqual(certs.map((c) => c.subject.commonName), ["kubernetes", "front-proxy-ca"]);
  assert.throws(
    () => parseCertificatesPEM("nothing"),
    /data does not contain any valid RSA or ECDSA certificates/,
  );
  assert.throws(
    () => parseCertificate(new Uint8Array([0x30, 0x03, 1, 2, 3])),
    /x509: malformed certificate/,
  );
  // openssl-made certificate parses.
  const key = await openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout"]);
  const ext = await openssl([
    "req",
    "-x509",
    "-key",
    await tempFile(key),
    "-subj",
    "/O=Acme/CN=external-ca",
    "-days",
    "30",
    "-addext",
    "subjectAltName=DNS:ext.example.com,IP:10.1.2.3",
  ]);
  const [parsed] = parseCertificatesPEM(ext);
  assert.equal(parsed.subject.commonName, "external-ca");
  assert.deepEqual(parsed.subject.organization, ["Acme"]);
  assert.equal(parsed.isCA, true);
  assert.deepEqual(parsed.dnsNames, ["ext.example.com"]);
  assert.deepEqual(parsed.ipAddresses, ["10.1.2.3"]);
  assert.ok(parsed.subjectKeyId && parsed.subjectKeyId.length === 20);
});

Deno.test("verifyHostname() and certPeriodProblem() follow Go", async () => {
  const ca = await makeCA();
  const { cert } = await newCertAndKey(
    ca.cert,
    ca.key,
    {
      commonName: "s",
      dnsNames: ["*.example.com", "node1"],
      ips: ["10.0.0.1", "fd00::1"],
      usages: ["serverAuth"],
      notBefore,
      notAfter: new Date(start.getTime() + 3600_000),
    },
    "ECDSA-P256",
    random,
    webCryptoPort,
  );
  verifyHostname(cert, "a.example.com");
  verifyHostname(cert, "NODE1");
  verifyHostname(cert, "*.example.com");
  verifyHostname(cert, "10.0.0.1");
  verifyHostname(cert, "[fd00::1]");
  assert.throws(
    () => verifyHostname(cert, "a.b.example.com"),
    /x509: certificate is valid for \*\.example\.com, node1, not a\.b\.example\.com/,
  );
  assert.throws(
    () => verifyHostname(cert, "10.0.0.2"),
    /x509: certificate is valid for 10\.0\.0\.1, fd00::1, not 10\.0\.0\.2/,
  );
  assert.equal(certPeriodProblem(cert, start), undefined);
  assert.equal(
    certPeriodProblem(cert, new Date(start.getTime() + 7200_000)),
    "the certificate has expired: NotBefore: 2026-03-01 09:55:00 +0000 UTC, NotAfter: 2026-03-01 11:00:00 +0000 UTC",
  );
});

Deno.test("dedupeAltNames() sorts DNS names and keeps first-seen IP order", () => {
  assert.deepEqual(
    dedupeAltNames(["b", "a", "b"], [
      "10.0.0.2",
      "::ffff:10.0.0.2",
      "10.0.0.1",
      "FD00::1",
      "fd00::1",
    ]),
    {
      dnsNames: ["a", "b"],
      ips: ["10.0.0.2", "10.0.0.1", "fd00::1"],
    },
  );
});

Deno.test("createSignedCert refuses a CA key that is not the CA certificate's key", async () => {
  const caKey = await generateKeyPair("ECDSA-P256", webKeys);
  const ca = await createSelfSignedCACert(
    { commonName: "kubernetes", notBefore: new Date("2026-01-01T00:00:00Z") },
    caKey,
    seededRandom(3),
    webCryptoPort,
  );
  const leafKey = await generateKeyPair("ECDSA-P256", webKeys);
  const cfg = { commonName: "leaf", usages: ["serverAuth" as const] };
  const stranger = await generateKeyPair("ECDSA-P256", webKeys);
  await assert.rejects(
    () => createSignedCert(cfg, leafKey, ca, stranger, seededRandom(4), webCryptoPort),
    (e: unknown) =>
      e instanceof PkiError &&
      e.message === "x509: provided PrivateKey doesn't match parent's PublicKey",
  );
  // The matching key still signs.
  assert.equal(
    (await createSignedCert(cfg, leafKey, ca, caKey, seededRandom(4), webCryptoPort)).subject
      .commonName,
    "leaf",
  );
});
