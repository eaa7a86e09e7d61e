import assert from "node:assert/strict";
import { ApiError } from "../../../core/errors.ts";
import {
  apiErrorFromResponse,
  apiErrorFromTransport,
  isAlreadyExists,
  isConflict,
  isTransient,
} from "../../../core/kube/status.ts";

const cm = { kind: "ConfigMap", namespace: "kube-system", name: "x" };

Deno.test("a Status body gives reason and message", () => {
  const e = apiErrorFromResponse(
    409,
    JSON.stringify({
      kind: "Status",
      reason: "AlreadyExists",
      message: 'configmaps "x" already exists',
    }),
    "create",
    cm,
  );
  assert.equal(
    e.message,
    'unable to create ConfigMap kube-system/x: configmaps "x" already exists',
  );
  assert.ok(isAlreadyExists(e));
  assert.ok(!isConflict(e));
  assert.equal(e.code, "ERR_API");
});

Deno.test("a non-Status body falls back to the HTTP status", () => {
  const e = apiErrorFromResponse(503, "", "get", cm);
  assert.equal(e.reason, "ServiceUnavailable");
  assert.match(e.message, /the server responded with HTTP 503$/);
  const html = apiErrorFromResponse(502, "<html>bad gateway</html>", "get", cm);
  assert.match(html.message, /<html>bad gateway<\/html>$/);
  assert.equal(apiErrorFromResponse(409, "", "update", cm).reason, "Conflict");
});

Deno.test("transient classification", () => {
  const mk = (status: number, reason: string, message = "m") =>
    new ApiError(message, { status, reason });
  for (const s of [429, 500, 502, 503, 504]) assert.ok(isTransient(mk(s, "x")), String(s));
  for (const s of [400, 401, 403, 404, 409, 422]) assert.ok(!isTransient(mk(s, "x")), String(s));
  assert.ok(isTransient(mk(0, "ConnectionRefused")));
  assert.ok(isTransient(mk(0, "ConnectionReset")));
  assert.ok(isTransient(mk(0, "Timeout")));
  assert.ok(!isTransient(mk(0, "UnknownAuthority")));
  assert.ok(!isTransient(mk(0, "CertificateRequired")));
  assert.ok(isTransient(mk(422, "Invalid", "etcdserver: request timed out")));
  assert.ok(!isTransient(new Error("plain")));
});

Deno.test("transport errors keep their reason and gain the object", () => {
  const inner = new ApiError(
    'Get "https://h:6443/x": dial tcp h:6443: connect: connection refused',
    {
      status: 0,
      reason: "ConnectionRefused",
      hint: "h",
    },
  );
  const e = apiErrorFromTransport(inner, "get", cm);
  assert.equal(e.reason, "ConnectionRefused");
  assert.equal(e.hint, "h");
  assert.match(e.message, /^unable to get ConfigMap kube-system\/x: Get "https:\/\/h:6443\/x"/);
  const other = apiErrorFromTransport(new TypeError("boom"), "get", cm);
  assert.equal(other.reason, "ConnectionFailed");
  assert.equal(other.status, 0);
});
