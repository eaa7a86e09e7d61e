import assert from "node:assert/strict";
import { certificatePin, PinSet } from "../../../core/pki/pin.ts";
import { parseCertificatesPEM } from "../../../core/pki/cert.ts";
import { opensslSpkiSha256 } from "../../support/openssl.ts";

// Upstream cmd/kubeadm/app/util/pubkeypin/testdata/test-cert.pem and test-cert2.pem.
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIDRDCCAiygAwIBAgIJAJgVaCXvC6HkMA0GCSqGSIb3DQEBBQUAMB8xHTAbBgNV
BAMTFGt1YmVhZG0ta2V5cGlucy10ZXN0MCAXDTE3MDcwNTE3NDMxMFoYDzIxMTcw
NjExMTc0MzEwWjAfMR0wGwYDVQQDExRrdWJlYWRtLWtleXBpbnMtdGVzdDCCASIw
DQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAK0ba8mHU9UtYlzM1Own2Fk/XGjR
J4uJQvSeGLtz1hID1IA0dLwruvgLCPadXEOw/f/IWIWcmT+ZmvIHZKa/woq2iHi5
+HLhXs7aG4tjKGLYhag1hLjBI7icqV7ovkjdGAt9pWkxEzhIYClFMXDjKpMSynu+
YX6nZ9tic1cOkHmx2yiZdMkuriRQnpTOa7bb03OC1VfGl7gHlOAIYaj4539WCOr8
+ACTUMJUFEHcRZ2o8a/v6F9GMK+7SC8SJUI+GuroXqlMAdhEv4lX5Co52enYaClN
+D9FJLRpBv2YfiCQdJRaiTvCBSxEFz6BN+PtP5l2Hs703ZWEkOqCByM6HV8CAwEA
AaOBgDB+MB0GA1UdDgQWBBRQgUX8MhK2rWBWQiPHWcKzoWDH5DBPBgNVHSMESDBG
gBRQgUX8MhK2rWBWQiPHWcKzoWDH5KEjpCEwHzEdMBsGA1UEAxMUa3ViZWFkbS1r
ZXlwaW5zLXRlc3SCCQCYFWgl7wuh5DAMBgNVHRMEBTADAQH/MA0GCSqGSIb3DQEB
BQUAA4IBAQCaAUif7Pfx3X0F08cxhx8/Hdx4jcJw6MCq6iq6rsXM32ge43t8OHKC
pJW08dk58a3O1YQSMMvD6GJDAiAfXzfwcwY6j258b1ZlI9Ag0VokvhMl/XfdCsdh
AWImnL1t4hvU5jLaImUUMlYxMcSfHBGAm7WJIZ2LdEfg6YWfZh+WGbg1W7uxLxk6
y4h5rWdNnzBHWAGf7zJ0oEDV6W6RSwNXtC0JNnLaeIUm/6xdSddJlQPwUv8YH4jX
c1vuFqTnJBPcb7W//R/GI2Paicm1cmns9NLnPR35exHxFTy+D1yxmGokpoPMdife
aH+sfuxT8xeTPb3kjzF9eJTlnEquUDLM
-----END CERTIFICATE-----
`;
const TEST_CERT2 = `-----BEGIN CERTIFICATE-----
MIID9jCCAt6gAwIBAgIJAN5MXZDic7qYMA0GCSqGSIb3DQEBBQUAMFkxCzAJBgNV
BAYTAkFVMRMwEQYDVQQIEwpTb21lLVN0YXRlMSEwHwYDVQQKExhJbnRlcm5ldCBX
aWRnaXRzIFB0eSBMdGQxEjAQBgNVBAMTCXRlc3RDZXJ0MjAgFw0xNzA3MjQxNjA0
MDFaGA8yMTE3MDYzMDE2MDQwMVowWTELMAkGA1UEBhMCQVUxEzARBgNVBAgTClNv
bWUtU3RhdGUxITAfBgNVBAoTGEludGVybmV0IFdpZGdpdHMgUHR5IEx0ZDESMBAG
A1UEAxMJdGVzdENlcnQyMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA
0brwpJYN2ytPWzRBtZSVc3dhkQlA59AzxzqeLLkano0Pxo9NIc3T/y58nnRI8uaS
I1P7BzUfJTiUEvmAtX8NggqKK4ld/gPrU+IRww1CUYS4KCkA/0d0ctPy0JwBCjD+
b57G3rmNE8c+0jns6J96ZzNtqmv6N+ZlFBAXm1p4S+k0kGi5+hoQ6H7SYXjk2lG+
r/8jPQEjy/NSdw1dcCA0Nc6o+hPr32927dS6J9KOhBeXNYUNdbuDDmroM9/gN2e/
YMSA1olLeDPQ7Xvhk0PIyEDnHh83AffPCx5yM3htVRGddjIsPAVUJEL3z5leJtxe
fzyPghOhHJY0PXqznDQTcwIDAQABo4G+MIG7MB0GA1UdDgQWBBRP0IJqv/5rQ4Uf
SByl77dJeEapRDCBiwYDVR0jBIGDMIGAgBRP0IJqv/5rQ4UfSByl77dJeEapRKFd
pFswWTELMAkGA1UEBhMCQVUxEzARBgNVBAgTClNvbWUtU3RhdGUxITAfBgNVBAoT
GEludGVybmV0IFdpZGdpdHMgUHR5IEx0ZDESMBAGA1UEAxMJdGVzdENlcnQyggkA
3kxdkOJzupgwDAYDVR0TBAUwAwEB/zANBgkqhkiG9w0BAQUFAAOCAQEA0RIMHc10
wHHPMh9UflqBgDMF7gfbOL0juJfGloAOcohWWfMZBBJ0CQKMy3xRyoK3HmbW1eeb
iATjesw7t4VEAwf7mgKAd+eTfWYB952uq5qYJ2TI28mSofEq1Wz3RmrNkC1KCBs1
u+YMFGwyl6necV9zKCeiju4jeovI1GA38TvH7MgYln6vMJ+FbgOXj7XCpek7dQiY
KGaeSSH218mGNQaWRQw2Sm3W6cFdANoCJUph4w18s7gjtFpfV63s80hXRps+vEyv
jEQMEQpG8Ss7HGJLGLBw/xAmG0e//XS/o2dDonbGbvzToFByz8OGxjMhk6yV6hdd
+iyvsLAw/MYMSA==
-----END CERTIFICATE-----
`;
const EXPECTED_HASH = "sha256:345959acb2c3b2feb87d281961c893f62a314207ef02599f1cc4a5fb255480b3";

Deno.test("certificatePin() matches upstream's vector and openssl's SPKI sha256", async () => {
  const [cert] = parseCertificatesPEM(TEST_CERT);
  const [cert2] = parseCertificatesPEM(TEST_CERT2);
  assert.equal(cert.subject.commonName, "kubeadm-keypins-test");
  assert.equal(await certificatePin(cert), EXPECTED_HASH);
  assert.equal(
    await certificatePin(cert2),
    "sha256:d1ef16989563fe7775f81a7dc55ce16a467ca9baedae2d081cb0a068b6a81971",
  );
  assert.equal(`sha256:${await opensslSpkiSha256(TEST_CERT)}`, EXPECTED_HASH);
  assert.equal(`sha256:${await opensslSpkiSha256(TEST_CERT2)}`, await certificatePin(cert2));
});

Deno.test("PinSet follows upstream TestSet", async () => {
  const [cert] = parseCertificatesPEM(TEST_CERT);
  const [cert2] = parseCertificatesPEM(TEST_CERT2);
  const s = new PinSet();
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
    () => new PinSet().checkAny([cert, cert2]),
    /"sha256:345959[0-9a-f]+:sha256:d1ef[0-9a-f]+" are pinned/,
  );
});

Deno.test("PinSet.allow() reports format, length and hex errors with upstream's wording", () => {
  const s = new PinSet();
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
