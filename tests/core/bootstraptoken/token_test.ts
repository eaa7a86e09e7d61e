import assert from "node:assert/strict";
import {
  generateToken,
  groupNameError,
  isValidToken,
  isValidTokenId,
  parseToken,
  randomTokenString,
  redactToken,
  tokenIdFromSecretName,
  tokenSecretName,
  usagesError,
} from "../../../core/bootstraptoken/token.ts";
import { counterRandom, streamRandom } from "../../support/config.ts";

Deno.test("token format: upstream valid vectors", () => {
  for (
    const t of [
      "abcdef.1234567890123456",
      "123456.aabbccddeeffgghh",
      "abcdef.abcdef0123456789",
      "123456.1234560123456789",
    ]
  ) {
    assert.ok(isValidToken(t), t);
    assert.deepEqual(parseToken(t), { id: t.slice(0, 6), secret: t.slice(7) });
  }
});

Deno.test("token format: upstream invalid vectors", () => {
  for (
    const t of [
      "",
      ".",
      "1234567890123456789012",
      "12345.1234567890123456",
      ".1234567890123456",
      "123456.",
      "123456:1234567890.123456",
      "abcdef:1234567890123456",
      "Abcdef.1234567890123456",
      "123456.AABBCCDDEEFFGGHH",
      "123456.AABBCCD-EEFFGGHH",
      "abc*ef.1234567890123456",
      "abcdef.1234567890123456ghijklmn",
      "abcdef.1234567890123456\n",
    ]
  ) {
    assert.equal(isValidToken(t), false, JSON.stringify(t));
    assert.throws(() => parseToken(t), /was not of the form/);
  }
});

Deno.test("parseToken error never contains the secret half", () => {
  try {
    parseToken("abcdef.ABCDEFGHIJKLMNOP");
    assert.fail("expected an error");
  } catch (e) {
    const msg = (e as Error).message;
    assert.ok(!msg.includes("ABCDEFGHIJKLMNOP"), msg);
    assert.ok(msg.includes("abcdef.<redacted>"), msg);
  }
});

Deno.test("token ids", () => {
  for (const id of ["abcdef", "123456"]) assert.ok(isValidTokenId(id));
  for (const id of ["", "1234567890123456789012", "12345", "Abcdef", "ABCDEF", "abcdef."]) {
    assert.equal(isValidTokenId(id), false, id);
  }
});

Deno.test("secret names", () => {
  assert.equal(tokenSecretName("abcdef"), "bootstrap-token-abcdef");
  assert.equal(tokenSecretName(""), "bootstrap-token-");
  assert.equal(tokenIdFromSecretName("bootstrap-token-abc123"), "abc123");
  for (
    const n of [
      "",
      "abc123",
      "bootstrap-token-",
      "bootstrap-token-abc",
      "bootstrap-token-abc123ghi",
      "bootstrap-token-ABC123",
    ]
  ) {
    assert.equal(tokenIdFromSecretName(n), undefined, n);
  }
});

Deno.test("generation uses rejection sampling (derived vector §12.6)", () => {
  // 0→'0', 35→'z', 36→'0', 251→'z', 252 and 255 rejected, 71→'z'.
  const random = streamRandom([0, 35, 36, 251, 252, 255, 71]);
  assert.equal(randomTokenString(random, 5), "0z0zz");
});

Deno.test("generation reads 2×length bytes per batch, id first then secret", () => {
  const random = streamRandom([]);
  const token = generateToken(random);
  assert.equal(token, "000000.0000000000000000");
  assert.equal(random.requested, 12 + 32);
});

Deno.test("generated tokens are valid and differ", () => {
  const random = counterRandom(7);
  const a = generateToken(random);
  const b = generateToken(random);
  assert.ok(isValidToken(a) && isValidToken(b));
  assert.notEqual(a, b);
});

Deno.test("redactToken keeps only the id", () => {
  assert.equal(redactToken("abcdef.0123456789abcdef"), "abcdef.<redacted>");
  assert.equal(redactToken("abcdefghijk.0123"), "<redacted>");
  assert.equal(redactToken("abc"), "abc");
  assert.equal(redactToken("averylongsecretwithoutdot"), "<redacted>");
});

Deno.test("usages validation", () => {
  assert.equal(usagesError(["signing"]), undefined);
  assert.equal(usagesError(["authentication"]), undefined);
  assert.equal(usagesError(["authentication", "signing"]), undefined);
  assert.equal(
    usagesError(["authentication", "foo"]),
    "invalid bootstrap token usage string: foo, valid usage options: signing,authentication",
  );
  assert.equal(
    usagesError(["foo", "bar"]),
    "invalid bootstrap token usage string: bar,foo, valid usage options: signing,authentication",
  );
});

Deno.test("group name validation", () => {
  for (
    const g of [
      "system:bootstrappers:foo",
      "system:bootstrappers:foo:bar:baz",
      "system:bootstrappers:foo-bar-42",
    ]
  ) {
    assert.equal(groupNameError(g), undefined, g);
  }
  for (
    const g of [
      "system:bootstrappers:Foo",
      "foo",
      "system:bootstrappers:",
      "system:bootstrappers: ",
      "system:bootstrappers:*",
      "system:bootstrappers:foo:",
      "system:bootstrappers:foo-",
      "<script>alert(1)</script>",
      `system:bootstrappers:${"x".repeat(300)}`,
    ]
  ) {
    assert.match(groupNameError(g) ?? "", /is invalid \(must match/, g);
  }
});
