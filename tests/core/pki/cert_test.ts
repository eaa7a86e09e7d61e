import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../../support/platform.ts";
import assert from "node:assert/strict";
import {
  type Certificate,
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
import { cloneNode, editDer, type Node, prim, seq } from "../../support/der_tree.ts";
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

// Findings of scripts/fuzz-der (issue 25): parseCertificate() accepted certificates openssl
// refuses (and Go too), and others Go refuses; each is refused now, in Go's words. A column
// says whether `openssl x509` refuses it as well (null: not asked).
Deno.test("parseCertificate() refuses what Go or openssl refuses, with Go's messages", async () => {
  const ca = await makeCA();
  const leaf = await createSignedCert(
    { commonName: "leaf", dnsNames: ["a.example"], ips: ["10.0.0.1"], usages: ["serverAuth"] },
    await generateKeyPair("ECDSA-P256", webKeys),
    ca.cert,
    ca.key,
    random,
    webCryptoPort,
  );
  const tbs = (r: Node) => r.children![0].children!;
  const exts = (r: Node) => tbs(r)[7].children![0].children!; // keyUsage, EKU, BC, AKI, SAN
  const extValue = (r: Node, i: number) => exts(r)[i].children!.at(-1)!.inner!.nodes[0];
  const cn = (r: Node) => tbs(r)[5].children![0].children![0].children!; // [OID, value]
  const ctx = (tag: number, content: number[]): Node => ({
    cls: 2,
    constructed: false,
    tag,
    content: Uint8Array.from(content),
  });
  const cases: [string, (r: Node) => void, string, boolean | null][] = [
    [
      "an element after the extensions",
      (r) => {
        tbs(r).push(prim(5, []));
      },
      "x509: malformed tbs certificate",
      true,
    ],
    [
      "an element after the signature",
      (r) => {
        r.children!.push(prim(5, []));
      },
      "x509: malformed certificate",
      true,
    ],
    [
      "a byte after the certificate",
      () => {},
      "x509: trailing data",
      null,
    ],
    [
      "a serial with a superfluous zero",
      (r) => {
        tbs(r)[1].content = Uint8Array.from([0, 1]);
      },
      "x509: malformed serial number",
      true,
    ],
    [
      "an empty serial",
      (r) => {
        tbs(r)[1].content = new Uint8Array(0);
      },
      "x509: malformed serial number",
      true,
    ],
    [
      "a constructed serial",
      (r) => {
        tbs(r)[1] = { ...seq(), tag: 2 };
      },
      "x509: malformed serial number",
      true,
    ],
    [
      "an AlgorithmIdentifier of three elements",
      (r) => {
        for (const ai of [tbs(r)[2], r.children![1]]) ai.children!.push(prim(5, []), prim(5, []));
      },
      "x509: malformed parameters",
      true,
    ],
    [
      "three times in the validity",
      (r) => {
        tbs(r)[4].children!.push(prim(23, "260101000000Z"));
      },
      "x509: malformed validity",
      true,
    ],
    [
      "an element after an extension's value",
      (r) => {
        exts(r)[0].children!.push(prim(5, []));
      },
      "x509: malformed extension",
      true,
    ],
    [
      "an element after the extensions' SEQUENCE",
      (r) => {
        tbs(r)[7].children!.push(prim(5, []));
      },
      "x509: malformed extensions",
      true,
    ],
    [
      "an element after an attribute's value",
      (r) => {
        cn(r).push(prim(5, []));
      },
      "x509: invalid RDNSequence: invalid attribute",
      true,
    ],
    [
      "a BMPString of odd length",
      (r) => {
        cn(r)[1] = prim(30, [0, 0x61, 0]);
      },
      "x509: invalid RDNSequence: invalid attribute value: invalid BMPString",
      true,
    ],
    [
      "a UTF8String that is not UTF-8",
      (r) => {
        cn(r)[1] = prim(12, [0xc3, 0x28]);
      },
      "x509: invalid RDNSequence: invalid attribute value: invalid UTF-8 string",
      true,
    ],
    [
      "an attribute type with a non-minimal arc",
      (r) => {
        cn(r)[0] = prim(6, [0x2a, 0x80, 0x01]);
      },
      "x509: invalid RDNSequence: invalid attribute type",
      true,
    ],
    [
      "an INTEGER as attribute value",
      (r) => {
        cn(r)[1] = prim(2, [1]);
      },
      "x509: invalid RDNSequence: invalid attribute value: unsupported string type: 2",
      true,
    ],
    [
      "a critical flag of two octets",
      (r) => {
        exts(r)[0].children![1].content = Uint8Array.from([0xff, 0xff]);
      },
      "x509: malformed extension critical field",
      true,
    ],
    [
      "a subject longer than 1 MiB (openssl's X509_NAME_MAX)",
      (r) => {
        cn(r)[1] = prim(19, new Uint8Array(1024 * 1024).fill(0x61));
      },
      "x509: invalid RDNSequence: longer than 1 MiB",
      true,
    ],
    [
      "a long-form length for a short element",
      (r) => {
        tbs(r)[1].length = Uint8Array.from([0x81, tbs(r)[1].content!.length]);
      },
      "x509: malformed tbs certificate",
      false,
    ],
    [
      "a SEQUENCE in the high-tag-number form",
      (r) => {
        tbs(r)[3].id = Uint8Array.from([0x3f, 0x10]);
      },
      "x509: malformed tbs certificate",
      false,
    ],
    [
      "an indefinite length",
      (r) => {
        tbs(r)[4].indefinite = { eoc: true };
      },
      "x509: malformed tbs certificate",
      false,
    ],
    [
      "version 4",
      (r) => {
        tbs(r)[0].children![0].content = Uint8Array.from([3]);
      },
      "x509: invalid version",
      false,
    ],
    [
      "a negative serial",
      (r) => {
        tbs(r)[1].content = Uint8Array.from([0x80, 1]);
      },
      "x509: negative serial number",
      false,
    ],
    [
      "other signature algorithms inside and out",
      (r) => {
        r.children![1].children![0] = prim(6, [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03]);
      },
      "x509: inner and outer signature algorithm identifiers don't match",
      false,
    ],
    [
      "a 13th month",
      (r) => {
        tbs(r)[4].children![0] = prim(23, "261301000000Z");
      },
      "x509: malformed UTCTime",
      false,
    ],
    [
      "a GeneralizedTime with a fraction",
      (r) => {
        tbs(r)[4].children![1] = prim(24, "20500101000000.5Z");
      },
      "x509: malformed GeneralizedTime",
      false,
    ],
    [
      "a time of another type",
      (r) => {
        tbs(r)[4].children![1] = prim(4, "20500101000000Z");
      },
      "x509: unsupported time format",
      true,
    ],
    [
      "a critical flag of 0x01",
      (r) => {
        exts(r)[0].children![1].content = Uint8Array.from([1]);
      },
      "x509: malformed extension critical field",
      false,
    ],
    [
      "an extension twice",
      (r) => {
        exts(r).push(cloneNode(exts(r)[1]));
      },
      'x509: certificate contains duplicate extension with OID "2.5.29.37"',
      false,
    ],
    [
      "a key usage with an unused bit set",
      (r) => {
        extValue(r, 0).content = Uint8Array.from([5, 0xa1]);
      },
      "x509: invalid key usage",
      false,
    ],
    [
      "a negative pathLen",
      (r) => {
        extValue(r, 2).children!.push(prim(2, [0xff]));
      },
      "x509: invalid basic constraints",
      false,
    ],
    [
      "a critical authority key identifier",
      (r) => {
        exts(r)[3].children!.splice(1, 0, prim(1, [0xff]));
      },
      "x509: authority key identifier incorrectly marked critical",
      false,
    ],
    [
      "an IP SAN of 5 octets",
      (r) => {
        extValue(r, 4).children!.push(ctx(7, [1, 2, 3, 4, 5]));
      },
      "x509: cannot parse IP address of length 5",
      false,
    ],
    [
      "a DNS SAN that is not ASCII",
      (r) => {
        extValue(r, 4).children!.push(ctx(2, [0xc3, 0xa9]));
      },
      "x509: SAN dNSName is malformed",
      false,
    ],
    [
      "an EKU that is not an OID",
      (r) => {
        extValue(r, 1).children!.push(prim(2, [1]));
      },
      "x509: invalid extended key usages",
      false,
    ],
    [
      "a UniversalString",
      (r) => {
        cn(r)[1] = prim(28, [0xff, 0xff, 0xff, 0xff]);
      },
      "x509: invalid RDNSequence: invalid attribute value: unsupported string type: 28",
      true,
    ],
    [
      "a PrintableString with @",
      (r) => {
        cn(r)[1] = prim(19, "a@b");
      },
      "x509: invalid RDNSequence: invalid attribute value: invalid PrintableString",
      false,
    ],
    [
      "an attribute type arc above 2^31",
      (r) => {
        cn(r)[0] = prim(6, [0x2a, 0x90, 0x80, 0x80, 0x80, 0x01]);
      },
      "x509: invalid RDNSequence: invalid attribute type",
      false,
    ],
    [
      "an EC point of the wrong length",
      (r) => {
        tbs(r)[6].children![1].content = Uint8Array.from([0, 4, 1, 2, 3]);
      },
      "invalid P256 point encoding",
      false,
    ],
    [
      "an EC point off its curve (openssl x509 does not look)",
      (r) => {
        const bits = tbs(r)[6].children![1].content!;
        bits[bits.length - 1] ^= 1; // y's last bit
      },
      "P256 point not on curve",
      false,
    ],
    [
      "an EC point with a coordinate not below the field prime",
      (r) => {
        const bits = tbs(r)[6].children![1].content!;
        bits.fill(0xff, 2, 34); // x = 2^256 - 1 > p
      },
      "invalid P256Element encoding",
      null,
    ],
    [
      "an EC key without its curve",
      (r) => {
        tbs(r)[6].children![0].children!.pop();
      },
      "x509: invalid ECDSA parameters",
      false,
    ],
    [
      "a curve OID as the key algorithm, a truncated OID as its parameters (fuzz case 41747)",
      (r) => {
        tbs(r)[6].children![0].children = [
          prim(6, [0x2a, 0x86, 0x48, 0xce, 0x3d, 3, 1, 7]),
          prim(6, [0x0c, 0x74, 0x7b, 0x43, 0xb1]),
        ];
      },
      "x509: unknown public key algorithm",
      true,
    ],
    [
      "a key algorithm OID of 587 bytes (fuzz cases 21753, 29333)",
      (r) => {
        tbs(r)[6].children![0].children = [prim(6, [0x2a, ...new Array(586).fill(5)])];
      },
      "x509: unknown public key algorithm",
      true,
    ],
    [
      "a well-formed unknown key algorithm (openssl x509 keeps it unread)",
      (r) => {
        tbs(r)[6].children![0].children = [prim(6, [0x2a, 3, 4]), prim(5, [])];
      },
      "x509: unknown public key algorithm",
      false,
    ],
    [
      "an EC point under RSASSA-PSS (its keys are read as RSA)",
      (r) => {
        tbs(r)[6].children![0].children = [prim(6, [0x2a, 0x86, 0x48, 0x86, 0xf7, 13, 1, 1, 10])];
      },
      "x509: invalid RSA public key",
      null,
    ],
    [
      "a truncated OID as signature parameters",
      (r) => {
        for (const ai of [tbs(r)[2], r.children![1]]) ai.children!.push(prim(6, [0x2a, 0x81]));
      },
      "x509: malformed parameters",
      true,
    ],
    [
      "a NULL with content as signature parameters",
      (r) => {
        for (const ai of [tbs(r)[2], r.children![1]]) ai.children!.push(prim(5, [0]));
      },
      "x509: malformed parameters",
      true,
    ],
  ];
  for (const [what, edit, message, opensslRefuses] of cases) {
    let der = editDer(leaf.der, edit);
    if (message === "x509: trailing data") der = Uint8Array.from([...der, 0]);
    assert.throws(() => parseCertificate(der), { name: "PkiError", message }, what);
    if (opensslRefuses !== null) {
      const r = await runTool("openssl", ["x509", "-inform", "DER", "-noout"], der);
      assert.equal(r.code !== 0, opensslRefuses, `openssl on ${what}`);
    }
  }
});

Deno.test("parseCertificate() accepts what Go and openssl accept at the edges", async () => {
  const ca = await makeCA();
  const tbs = (r: Node) => r.children![0].children!;
  const exts = (r: Node) => tbs(r)[7].children![0].children!; // keyUsage, BC, SKI, SAN
  const cases: [string, (r: Node) => void, (c: Certificate) => void][] = [
    ["a v1 certificate with extensions (Go ignores them)", (r) => {
      tbs(r).shift();
    }, (c) => {
      assert.equal(c.version, 1);
      assert.equal(c.isCA, false);
      assert.deepEqual(c.present, []);
    }],
    ["a UTCTime with an offset", (r) => {
      tbs(r)[4].children![0] = prim(23, "260301120000-0130");
    }, (c) => assert.equal(c.notBefore.toISOString(), "2026-03-01T13:30:00.000Z")],
    ["a UTCTime without seconds", (r) => {
      tbs(r)[4].children![0] = prim(23, "2603011200Z");
    }, (c) => assert.equal(c.notBefore.toISOString(), "2026-03-01T12:00:00.000Z")],
    ["a GeneralizedTime before 2050", (r) => {
      tbs(r)[4].children![0] = prim(24, "20260301120000Z");
    }, (c) => assert.equal(c.notBefore.toISOString(), "2026-03-01T12:00:00.000Z")],
    ["serial 0", (r) => {
      tbs(r)[1].content = Uint8Array.from([0]);
    }, (c) => assert.equal(c.serialNumber, 0n)],
    ["a critical flag FALSE written out", (r) => {
      exts(r)[2].children!.splice(1, 0, prim(1, [0]));
    }, (c) => assert.ok(c.subjectKeyId)],
    ["an unknown critical extension holding anything", (r) => {
      exts(r).push(seq(prim(6, [0x2a, 3]), prim(1, [0xff]), prim(4, [1, 2, 3])));
    }, (c) => assert.deepEqual(c.present.at(-1), { oid: "1.2.3", critical: true })],
    ["RSASSA-PSS-shaped signature parameters (a SEQUENCE, unread)", (r) => {
      for (const ai of [tbs(r)[2], r.children![1]]) ai.children!.push(seq());
    }, (c) => assert.equal(c.signatureAlgorithm, "1.2.840.10045.4.3.2")],
    ["an empty RDN", (r) => {
      tbs(r)[5].children!.push({ cls: 0, constructed: true, tag: 17, children: [] });
    }, (c) => assert.equal(c.subject.commonName, "kubernetes")],
  ];
  for (const [what, edit, check] of cases) {
    const der = editDer(ca.cert.der, edit);
    check(parseCertificate(der));
    const r = await runTool("openssl", ["x509", "-inform", "DER", "-noout"], der);
    assert.equal(r.code, 0, `openssl on ${what}: ${r.stderr}`);
  }
});
