import assert from "node:assert/strict";
import {
  encodeTokenSecretData,
  tokenFromSecret,
  tokenToSecret,
} from "../../../core/bootstraptoken/secret.ts";

const REF = new Date("1970-01-01T01:01:01Z");
const TOKEN = "abcdef.abcdef0123456789";

Deno.test("secret data: id and secret only", () => {
  assert.deepEqual(encodeTokenSecretData({ token: TOKEN }, REF), {
    "token-id": "abcdef",
    "token-secret": "abcdef0123456789",
  });
});

Deno.test("secret data: description, ttl, expires", () => {
  assert.equal(encodeTokenSecretData({ token: TOKEN, description: "foo" }, REF).description, "foo");
  assert.equal(
    encodeTokenSecretData({ token: TOKEN, ttl: "2h" }, REF).expiration,
    "1970-01-01T03:01:01Z",
  );
  assert.equal(
    encodeTokenSecretData({ token: TOKEN, expires: "1970-01-01T01:01:01Z" }, REF).expiration,
    "1970-01-01T01:01:01Z",
  );
  // expires wins over ttl
  assert.equal(
    encodeTokenSecretData({ token: TOKEN, ttl: "2h", expires: "1970-01-01T01:01:01Z" }, REF)
      .expiration,
    "1970-01-01T01:01:01Z",
  );
  // ttl 0 never expires
  assert.equal(encodeTokenSecretData({ token: TOKEN, ttl: "0s" }, REF).expiration, undefined);
});

Deno.test("secret data: usages and groups", () => {
  const data = encodeTokenSecretData({
    token: TOKEN,
    usages: ["authentication", "signing"],
    groups: ["system:bootstrappers", "system:bootstrappers:foo"],
  }, REF);
  assert.equal(data["usage-bootstrap-signing"], "true");
  assert.equal(data["usage-bootstrap-authentication"], "true");
  assert.equal(data["auth-extra-groups"], "system:bootstrappers,system:bootstrappers:foo");
});

Deno.test("secret round trip sorts usages", () => {
  const token = {
    token: TOKEN,
    description: "foo",
    expires: "1970-01-01T01:01:01Z",
    usages: ["signing", "authentication"],
    groups: ["system:bootstrappers:foo"],
  };
  const secret = tokenToSecret(token, REF);
  assert.equal(secret.metadata?.name, "bootstrap-token-abcdef");
  assert.equal(secret.metadata?.namespace, "kube-system");
  assert.equal(secret.type, "bootstrap.kubernetes.io/token");
  assert.equal(secret.data?.["token-id"], btoa("abcdef"));
  assert.deepEqual(tokenFromSecret(secret), { ...token, usages: ["authentication", "signing"] });
});

Deno.test("decoding rejects malformed secrets", () => {
  assert.throws(
    () => tokenFromSecret({ metadata: { name: "bootstrap-token-abcdef" }, stringData: {} }),
    /has no token-id data/,
  );
  assert.throws(
    () =>
      tokenFromSecret({
        metadata: { name: "bootstrap-token-zzzzzz" },
        stringData: { "token-id": "abcdef", "token-secret": "abcdef0123456789" },
      }),
    /name is not of the form/,
  );
  assert.throws(
    () =>
      tokenFromSecret({
        metadata: { name: "bootstrap-token-abcdef" },
        stringData: { "token-id": "abcdef" },
      }),
    /has no token-secret data/,
  );
  assert.throws(
    () =>
      tokenFromSecret({
        metadata: { name: "bootstrap-token-abcdef" },
        stringData: {
          "token-id": "abcdef",
          "token-secret": "abcdef0123456789",
          expiration: "soon",
        },
      }),
    /can't parse expiration/,
  );
});
