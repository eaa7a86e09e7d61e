import assert from "node:assert/strict";
import { tokenForCreate } from "../../../core/config/token_create.ts";
import { KubeadmError, ValidationError } from "../../../core/errors.ts";
import { webRandom } from "../../../adapters/web/random.ts";

Deno.test("tokenForCreate() applies upstream's defaults and generates a token", () => {
  const t = tokenForCreate({}, webRandom);
  assert.match(t.token!, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
  assert.deepEqual({ ...t, token: "x" }, {
    token: "x",
    ttl: "24h0m0s",
    usages: ["signing", "authentication"],
    groups: ["system:bootstrappers:kubeadm:default-node-token"],
  });
});

Deno.test("tokenForCreate() takes the argument and flags, normalising --ttl", () => {
  assert.deepEqual(
    tokenForCreate({
      token: "abcdef.0123456789abcdef",
      ttl: "2h",
      usages: ["authentication"],
      groups: ["system:bootstrappers:worker"],
      description: "for workers",
    }, webRandom),
    {
      token: "abcdef.0123456789abcdef",
      ttl: "2h0m0s",
      usages: ["authentication"],
      groups: ["system:bootstrappers:worker"],
      description: "for workers",
    },
  );
  assert.equal(tokenForCreate({ ttl: "0" }, webRandom).ttl, "0s");
});

Deno.test("tokenForCreate() rejects a malformed token without echoing its secret", () => {
  assert.throws(() => tokenForCreate({ token: "abcdef.0123456789ABCDEF" }, webRandom), (e) => {
    assert.ok(e instanceof KubeadmError && !(e instanceof ValidationError));
    assert.equal(e.exitCode, 1);
    assert.match(e.message, /^the bootstrap token "abcdef\.<redacted>" was not of the form/);
    assert.doesNotMatch(e.message, /0123456789ABCDEF/);
    return true;
  });
});

Deno.test("tokenForCreate() rejects a bad --ttl with pflag's wording", () => {
  assert.throws(
    () => tokenForCreate({ ttl: "5x" }, webRandom),
    /^KubeadmError: invalid argument "5x" for "--ttl" flag: time: unknown unit "x" in duration "5x"$/,
  );
});

Deno.test("tokenForCreate() validates usages and groups (exit status 3)", () => {
  assert.throws(() => tokenForCreate({ usages: ["signing", "bogus"] }, webRandom), (e) => {
    assert.ok(e instanceof ValidationError);
    assert.match(e.message, /invalid bootstrap token usage string: bogus/);
    return true;
  });
  assert.throws(
    () => tokenForCreate({ usages: ["signing"] }, webRandom),
    /token groups cannot be specified unless --usages includes "authentication"/,
  );
  assert.throws(
    () => tokenForCreate({ groups: ["admins"] }, webRandom),
    /bootstrap group "admins" is invalid/,
  );
});
