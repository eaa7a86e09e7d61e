import assert from "node:assert/strict";
import { apiServerVirtualIP, clusterDNSIP } from "../../../core/net/service_ip.ts";
import { isDNS1123Subdomain, isWildcardDNS1123Subdomain } from "../../../core/net/dns_name.ts";

Deno.test("apiServerVirtualIP()/clusterDNSIP() use the first CIDR of the list", () => {
  assert.equal(apiServerVirtualIP("10.96.0.0/12"), "10.96.0.1");
  assert.equal(clusterDNSIP("10.96.0.0/12"), "10.96.0.10");
  assert.equal(apiServerVirtualIP("fd00::/108,10.96.0.0/12"), "fd00::1");
  assert.equal(apiServerVirtualIP("172.20.0.0/16"), "172.20.0.1");
  assert.throws(() => apiServerVirtualIP("nope"), /couldn't parse CIDR/);
  assert.throws(
    () => clusterDNSIP("10.0.0.0/29"),
    /unable to get the 10th IP address from the given CIDR: 10.0.0.0\/29/,
  );
});

Deno.test("isDNS1123Subdomain()/isWildcardDNS1123Subdomain() follow apimachinery", () => {
  assert.equal(isDNS1123Subdomain("kubernetes.default.svc"), true);
  assert.equal(isDNS1123Subdomain("Node1"), false);
  assert.equal(isDNS1123Subdomain("-a"), false);
  assert.equal(isDNS1123Subdomain("a".repeat(254)), false);
  assert.equal(isDNS1123Subdomain("*.example.com"), false);
  assert.equal(isWildcardDNS1123Subdomain("*.example.com"), true);
  assert.equal(isWildcardDNS1123Subdomain("*.*.example.com"), false);
});
