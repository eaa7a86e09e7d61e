// The kubelet's bootstrap CSR name: SHA-512/256 (checked against published vectors and
// WebCrypto's SHA-512 for the shared compression function) and a vector computed with Go's
// crypto/sha512 + crypto/x509 from the kubelet's algorithm (pkg/kubelet/certificate/bootstrap).
import assert from "node:assert/strict";
import {
  kubeletClientUsages,
  kubeletCsrName,
  nodeCommonName,
  NODES_ORGANIZATION,
} from "../../../core/tlsbootstrap/csr_name.ts";
import { sha512, sha512_256 } from "../../../core/tlsbootstrap/sha512_256.ts";
import { base64Decode } from "../../../core/text/base64.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("SHA-512/256 matches the FIPS 180-4 examples", () => {
  assert.equal(
    hex(sha512_256(new TextEncoder().encode("abc"))),
    "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23",
  );
  assert.equal(
    hex(sha512_256(new Uint8Array(0))),
    "c672b8d1ef56ed28ab87c3622c5114069bdd3ad7b8f9737498d0c01ecef0967a",
  );
  assert.equal(
    hex(
      sha512_256(
        new TextEncoder().encode(
          "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
        ),
      ),
    ),
    "3928e184fb8690f840da3988121d31be65cb9d3ef83ee6146feac861e19b563a",
  );
});

Deno.test("the SHA-512 core agrees with WebCrypto on every padding boundary", async () => {
  for (const n of [0, 1, 55, 111, 112, 113, 127, 128, 129, 239, 240, 256, 1000]) {
    const data = new Uint8Array(n).map((_, i) => (i * 31 + 7) & 0xff);
    const want = new Uint8Array(await crypto.subtle.digest("SHA-512", data));
    assert.equal(hex(sha512(data)), hex(want), `length ${n}`);
  }
});

// P-256 key with scalar 0x1f2e3d4c5b6a7988 0102030405060708 090a0b0c0d0e0f10 1112131415161718;
// names computed by Go 1.26 with the kubelet's digestedName algorithm.
const SPKI = base64Decode(
  "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAElFuvv+Sbv/5cM9Sc0IPadc6AWq8fKoLPsBDgloFjWCpA9/aSoyUGniLMD+BMDmgyL0RZ5FEG1UMl7iO4xmvRhA==",
);

Deno.test("the CSR name of an ECDSA key (the kubelet's usages)", () => {
  const usages = kubeletClientUsages({ type: "ECDSA", namedCurve: "P-256" });
  assert.deepEqual(usages, ["digital signature", "client auth"]);
  assert.equal(
    kubeletCsrName(SPKI, nodeCommonName("worker-1"), [NODES_ORGANIZATION], usages),
    "node-csr-H8TKm1ZsNinthuvJTUcZuMrKSB4PB0Cfq3ifHwn-yQM",
  );
});

Deno.test("the CSR name with key encipherment (RSA usages order)", () => {
  assert.deepEqual(
    kubeletClientUsages({ type: "RSA", modulusLength: 2048 }),
    ["digital signature", "client auth", "key encipherment"],
  );
  assert.equal(
    kubeletCsrName(SPKI, "system:node:worker-1", ["system:nodes"], [
      "digital signature",
      "client auth",
      "key encipherment",
    ]),
    "node-csr-iyQ3n_xBdxAEvHk2Ze01-xw-FmPOld-lcDa_6Ru3ylw",
  );
});

Deno.test("every input part changes the name", () => {
  const base = kubeletCsrName(SPKI, "system:node:a", ["system:nodes"], ["client auth"]);
  assert.notEqual(kubeletCsrName(SPKI, "system:node:b", ["system:nodes"], ["client auth"]), base);
  assert.notEqual(kubeletCsrName(SPKI, "system:node:a", ["x"], ["client auth"]), base);
  assert.notEqual(kubeletCsrName(SPKI, "system:node:a", ["system:nodes"], []), base);
  // The delimiter keeps "CN:ab,O:c" apart from "CN:a,O:bc".
  assert.notEqual(
    kubeletCsrName(SPKI, "ab", ["c"], []),
    kubeletCsrName(SPKI, "a", ["bc"], []),
  );
});
