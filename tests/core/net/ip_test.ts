import assert from "node:assert/strict";
import {
  canonicalIP,
  formatIP,
  ipEqual,
  isIPv4,
  isIPv6,
  isLoopbackIP,
  parseIP,
} from "../../../core/net/ip.ts";

Deno.test("parseIP() reads IPv4 as 4 bytes, accepting leading zeros like ParseIPSloppy", () => {
  assert.deepEqual(parseIP("192.168.0.10"), new Uint8Array([192, 168, 0, 10]));
  assert.deepEqual(parseIP("010.001.0.1"), new Uint8Array([10, 1, 0, 1]));
  for (const bad of ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.-1", "a.b.c.d", " 1.2.3.4"]) {
    assert.equal(parseIP(bad), undefined, bad);
  }
});

Deno.test("parseIP() reads IPv6 forms and maps ::ffff:a.b.c.d to IPv4", () => {
  assert.equal(parseIP("::1")?.length, 16);
  assert.deepEqual(parseIP("::ffff:10.0.0.1"), new Uint8Array([10, 0, 0, 1]));
  assert.equal(formatIP(parseIP("64:ff9b::1.2.3.4")!), "64:ff9b::102:304");
  assert.equal(formatIP(parseIP("1:2:3:4:5:6:7::")!), "1:2:3:4:5:6:7:0");
  for (
    const bad of [
      ":::",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "12345::",
      ":1::",
      "1.2.3.4::",
      "::1%eth0",
      "[::1]",
    ]
  ) {
    assert.equal(parseIP(bad), undefined, bad);
  }
});

Deno.test("formatIP() prints RFC 5952 like Go's net.IP.String()", () => {
  const cases: [string, string][] = [
    ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
    ["2001:db8:0:1:0:0:0:1", "2001:db8:0:1::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
    ["0:0:0:0:0:0:0:0", "::"],
    ["FD00::A", "fd00::a"],
    ["0:0:0:0:0:0:0:1", "::1"],
  ];
  for (const [input, want] of cases) assert.equal(canonicalIP(input), want, input);
});

Deno.test("isIPv4()/isIPv6()/ipEqual()/isLoopbackIP() classify addresses", () => {
  assert.equal(isIPv4("10.0.0.1"), true);
  assert.equal(isIPv6("10.0.0.1"), false);
  assert.equal(isIPv6("fd00::1"), true);
  assert.equal(isIPv6("::ffff:1.2.3.4"), false);
  assert.equal(isIPv6("nope"), false);
  assert.equal(ipEqual(parseIP("::ffff:1.2.3.4")!, parseIP("1.2.3.4")!), true);
  assert.equal(isLoopbackIP(parseIP("127.0.0.53")!), true);
  assert.equal(isLoopbackIP(parseIP("::1")!), true);
  assert.equal(isLoopbackIP(parseIP("::2")!), false);
});
