import assert from "node:assert/strict";
import {
  cidrContains,
  cidrNthAddress,
  cidrSize,
  formatCIDR,
  parseCIDR,
  parseCIDRList,
} from "../../../core/net/cidr.ts";
import { KubeadmError } from "../../../core/errors.ts";

Deno.test("parseCIDR() masks host bits like Go's *net.IPNet", () => {
  assert.equal(formatCIDR(parseCIDR("10.96.0.5/12")!), "10.96.0.0/12");
  assert.equal(formatCIDR(parseCIDR("fd00:1:2::7/108")!), "fd00:1:2::/108");
  for (
    const bad of ["10.96.0.0", "10.96.0.0/33", "fd00::/129", "10.96.0.0/-1", "x/8", "10.0.0.0/1a"]
  ) {
    assert.equal(parseCIDR(bad), undefined, bad);
  }
});

Deno.test("parseCIDRList() splits dual-stack lists", () => {
  const list = parseCIDRList("10.96.0.0/12,fd00::/108")!;
  assert.deepEqual(list.map(formatCIDR), ["10.96.0.0/12", "fd00::/108"]);
  assert.equal(parseCIDRList("10.96.0.0/12,bad"), undefined);
});

Deno.test("cidrNthAddress() and cidrSize() count from the network address", () => {
  assert.equal(cidrNthAddress("10.96.0.0/12", 1), "10.96.0.1");
  assert.equal(cidrNthAddress("10.96.0.0/12", 10), "10.96.0.10");
  assert.equal(cidrNthAddress("10.96.0.0/12", 256), "10.96.1.0");
  assert.equal(cidrNthAddress("fd00::/108", 10), "fd00::a");
  assert.equal(cidrSize("10.96.0.0/12"), 1n << 20n);
  assert.equal(cidrSize("fd00::/64"), 1n << 64n);
  assert.throws(() => cidrNthAddress("10.0.0.0/30", 4), (e: unknown) =>
    e instanceof KubeadmError &&
    e.message ===
      `can't generate IP with index 4 from subnet. subnet too small. subnet: "10.0.0.0/30"`);
  assert.equal(cidrNthAddress("10.0.0.0/30", 3), "10.0.0.3");
});

Deno.test("cidrContains() checks membership per family", () => {
  assert.equal(cidrContains("10.96.0.0/12", "10.111.255.255"), true);
  assert.equal(cidrContains("10.96.0.0/12", "10.112.0.0"), false);
  assert.equal(cidrContains("fd00::/8", "fdff::1"), true);
  assert.equal(cidrContains("fd00::/8", "10.0.0.1"), false);
});
