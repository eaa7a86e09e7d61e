import assert from "node:assert/strict";
import {
  joinHostPort,
  parseHostPort,
  parsePort,
  splitHostPort,
} from "../../../core/net/host_port.ts";

Deno.test("joinHostPort() brackets IPv6 hosts", () => {
  assert.equal(joinHostPort("10.0.0.1", 6443), "10.0.0.1:6443");
  assert.equal(joinHostPort("fd00::1", "6443"), "[fd00::1]:6443");
  assert.equal(joinHostPort("lb.example.com", 443), "lb.example.com:443");
});

Deno.test("splitHostPort() follows Go's net.SplitHostPort", () => {
  assert.deepEqual(splitHostPort("a:1"), { host: "a", port: "1" });
  assert.deepEqual(splitHostPort("[::1]:80"), { host: "::1", port: "80" });
  assert.deepEqual(splitHostPort("a:"), { host: "a", port: "" });
  assert.throws(() => splitHostPort("a"), /missing port in address/);
  assert.throws(() => splitHostPort("::1"), /too many colons in address/);
  assert.throws(() => splitHostPort("[::1]"), /missing port in address/);
  assert.throws(() => splitHostPort("[::1"), /missing '\]' in address/);
});

Deno.test("parsePort() accepts 1..65535 only", () => {
  assert.equal(parsePort("6443"), 6443);
  for (const bad of ["0", "65536", "-1", "+1", "", "12a"]) {
    assert.throws(
      () => parsePort(bad),
      /port must be a valid number between 1 and 65535, inclusive/,
      bad,
    );
  }
});

Deno.test("parseHostPort() accepts host with optional port, IPs and DNS subdomains", () => {
  assert.deepEqual(parseHostPort("cp.example.com"), { host: "cp.example.com", port: "" });
  assert.deepEqual(parseHostPort("cp.example.com:8443"), { host: "cp.example.com", port: "8443" });
  assert.deepEqual(parseHostPort("10.0.0.1:6443"), { host: "10.0.0.1", port: "6443" });
  assert.deepEqual(parseHostPort("[fd00::1]:6443"), { host: "fd00::1", port: "6443" });
  assert.deepEqual(parseHostPort("fd00::1"), { host: "fd00::1", port: "" });
  assert.throws(
    () => parseHostPort("cp:99999"),
    (e: unknown) =>
      e instanceof Error &&
      e.message ===
        "hostport cp:99999: port 99999 must be a valid number between 1 and 65535, inclusive",
  );
  assert.throws(
    () => parseHostPort("Bad_Host"),
    (e: unknown) =>
      e instanceof Error &&
      e.message ===
        "hostport Bad_Host: host 'Bad_Host' must be a valid IP address or a valid RFC-1123 DNS subdomain",
  );
});
