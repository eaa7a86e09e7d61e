import assert from "node:assert/strict";
// Cases that came with the config API's own address helpers (now core/net).
import {
  formatCIDR,
  isDualStack,
  parseCIDR,
  parseCIDRList,
  rangeSize,
} from "../../../core/net/cidr.ts";
import { formatIP, parseIP } from "../../../core/net/ip.ts";
import { joinHostPort, parseHostPort } from "../../../core/net/host_port.ts";
import {
  apiServerVirtualIP as apiServerServiceIP,
  clusterDNSIPOrUndefined as clusterDNSIP,
} from "../../../core/net/service_ip.ts";

Deno.test("parses and formats IPs like Go", () => {
  assert.equal(formatIP(parseIP("10.0.0.1")!), "10.0.0.1");
  assert.equal(formatIP(parseIP("010.000.000.001")!), "10.0.0.1");
  assert.equal(formatIP(parseIP("2001:DB8:0:0:0:0:0:1")!), "2001:db8::1");
  assert.equal(formatIP(parseIP("::")!), "::");
  assert.equal(formatIP(parseIP("::ffff:1.2.3.4")!), "1.2.3.4");
  assert.equal(formatIP(parseIP("1:0:0:1:0:0:0:1")!), "1:0:0:1::1");
  for (
    const bad of [
      "",
      "1.2.3",
      "256.1.1.1",
      "1.2.3.4.5",
      "::1::",
      "1:2:3:4:5:6:7:8:9",
      "abc",
      "[::1]",
    ]
  ) {
    assert.equal(parseIP(bad), undefined, bad);
  }
});

Deno.test("CIDRs, range sizes and dual stack", () => {
  const c = parseCIDR("10.96.0.5/12")!;
  assert.equal(formatCIDR(c), "10.96.0.0/12");
  assert.equal(rangeSize(c), 1n << 20n);
  assert.equal(rangeSize(parseCIDR("10.0.0.0/1")!), 0n);
  assert.equal(rangeSize(parseCIDR("fd00::/64")!), (1n << 63n) - 1n);
  assert.equal(parseCIDR("10.0.0.0/33"), undefined);
  assert.equal(parseCIDR("10.0.0.0"), undefined);
  const list = parseCIDRList("10.96.0.0/12,fd00::/108")!;
  assert.ok(isDualStack(list));
  assert.equal(isDualStack(parseCIDRList("10.96.0.0/12,10.100.0.0/16")!), false);
  assert.equal(parseCIDRList("10.96.0.0/12,nope"), undefined);
});

Deno.test("derived service addresses", () => {
  assert.equal(clusterDNSIP("10.96.0.0/12"), "10.96.0.10");
  assert.equal(apiServerServiceIP("10.96.0.0/12"), "10.96.0.1");
  assert.equal(clusterDNSIP("fd00::/108,10.96.0.0/12"), "fd00::a");
  assert.equal(clusterDNSIP("garbage"), undefined);
});

Deno.test("host:port parsing as kubeadm's ParseHostPort", () => {
  assert.deepEqual(parseHostPort("cp.example.com:6443"), { host: "cp.example.com", port: "6443" });
  assert.deepEqual(parseHostPort("cp.example.com"), { host: "cp.example.com", port: "" });
  assert.deepEqual(parseHostPort("[fd00::1]:443"), { host: "fd00::1", port: "443" });
  assert.deepEqual(parseHostPort("fd00::1"), { host: "fd00::1", port: "" });
  assert.throws(() => parseHostPort("cp:0"), /port 0 must be a valid number between 1 and 65535/);
  assert.throws(
    () => parseHostPort("Bad_Host:6443"),
    /must be a valid IP address or a valid RFC-1123/,
  );
  assert.equal(joinHostPort("fd00::1", 6443), "[fd00::1]:6443");
  assert.equal(joinHostPort("cp", "6443"), "cp:6443");
});
