// The detached JWS against two independent implementations: jose (CompactSign) and openssl's
// HMAC, over assorted contents, ids and secrets (incl. UTF-8 and the empty secret).
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import { CompactSign, compactVerify } from "jose";
import {
  computeDetachedSignature,
  detachedTokenIsValid,
  jwsHeaderSegment,
} from "../../../core/discovery/jws.ts";
import { base64UrlEncode } from "../../../core/text/base64.ts";
import { runTool } from "../../support/openssl.ts";
import { EXPECTED_KUBECONFIG } from "../../support/upstream_discovery_data.ts";

const enc = new TextEncoder();
const CASES: [string, string, string][] = [
  [
    "Hello from the other side. I must have called a thousand times.",
    "joshua",
    "my voice is my passcode",
  ],
  [EXPECTED_KUBECONFIG, "123456", "abcdef1234567890"],
  ["grüße, 日本, \u{1F600}\n", "abcdef", "0123456789abcdef"],
  ["", "abcdef", "0123456789abcdef"],
  ["x".repeat(100_000), "zzzzzz", "a".repeat(40)],
];

function padded(secret: string): Uint8Array {
  const s = enc.encode(secret);
  const k = new Uint8Array(Math.max(32, s.length));
  k.set(s);
  return k;
}

Deno.test("detached signatures equal jose's compact JWS with the payload removed", async () => {
  for (const [content, id, secret] of CASES) {
    const jws = await new CompactSign(enc.encode(content))
      .setProtectedHeader({ alg: "HS256", kid: id })
      .sign(padded(secret));
    const [h, , s] = jws.split(".");
    assert.equal(await computeDetachedSignature(content, id, secret, webCryptoPort), `${h}..${s}`);
    // And the attached form verifies with jose.
    const { protectedHeader } = await compactVerify(jws, padded(secret), { algorithms: ["HS256"] });
    assert.deepEqual(protectedHeader, { alg: "HS256", kid: id });
  }
});

Deno.test("detached signatures equal openssl's HMAC-SHA256 over header.payload", async () => {
  for (const [content, id, secret] of CASES.slice(0, 4)) {
    const input = `${jwsHeaderSegment(id)}.${base64UrlEncode(enc.encode(content))}`;
    const hex = Array.from(padded(secret), (b) => b.toString(16).padStart(2, "0")).join("");
    const r = await runTool(
      "openssl",
      ["dgst", "-sha256", "-mac", "HMAC", "-macopt", `hexkey:${hex}`, "-binary"],
      input,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      await computeDetachedSignature(content, id, secret, webCryptoPort),
      `${jwsHeaderSegment(id)}..${base64UrlEncode(r.stdoutBytes)}`,
    );
  }
});

Deno.test("the header is exactly go-jose's bytes and base64url has no padding", () => {
  assert.equal(
    new TextDecoder().decode(
      Uint8Array.from(atob(jwsHeaderSegment("abcdef")), (c) => c.charCodeAt(0)),
    ),
    '{"alg":"HS256","kid":"abcdef"}',
  );
  assert.equal(base64UrlEncode(new Uint8Array([0xfb, 0xff])), "-_8");
  assert.equal(base64UrlEncode(new Uint8Array([])), "");
  assert.doesNotMatch(jwsHeaderSegment("a"), /=/);
});

Deno.test("a signature made with a different secret or id is invalid", async () => {
  const sig = await computeDetachedSignature(
    "content",
    "abcdef",
    "0123456789abcdef",
    webCryptoPort,
  );
  assert.ok(
    await detachedTokenIsValid(sig, "content", "abcdef", "0123456789abcdef", webCryptoPort),
  );
  assert.ok(
    !await detachedTokenIsValid(sig, "content", "abcdeg", "0123456789abcdef", webCryptoPort),
  );
  assert.ok(
    !await detachedTokenIsValid(sig, "content", "abcdef", "0123456789abcdeg", webCryptoPort),
  );
  assert.ok(
    !await detachedTokenIsValid(sig, "Content", "abcdef", "0123456789abcdef", webCryptoPort),
  );
  assert.ok(
    !await detachedTokenIsValid("", "content", "abcdef", "0123456789abcdef", webCryptoPort),
  );
  // The attached (payload-carrying) form is not accepted: whole-string comparison.
  const [h, s] = sig.split("..");
  const attached = `${h}.${base64UrlEncode(enc.encode("content"))}.${s}`;
  assert.ok(
    !await detachedTokenIsValid(attached, "content", "abcdef", "0123456789abcdef", webCryptoPort),
  );
});
