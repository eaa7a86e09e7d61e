// The HTTPS proxy decision, as Go's ProxyFromEnvironment makes it.
import assert from "node:assert/strict";
import { httpsProxyFor } from "../../../core/preflight/proxy_env.ts";

function env(vars: Record<string, string>) {
  return (name: string) => vars[name];
}

Deno.test("HTTPS_PROXY (or https_proxy) is used for https; HTTP_PROXY is not", () => {
  assert.equal(httpsProxyFor(env({ HTTPS_PROXY: "http://p:3128" }), "10.0.0.1"), "http://p:3128");
  assert.equal(httpsProxyFor(env({ https_proxy: "p:3128" }), "10.0.0.1"), "http://p:3128");
  assert.equal(httpsProxyFor(env({ HTTP_PROXY: "http://p:3128" }), "10.0.0.1"), undefined);
  assert.equal(httpsProxyFor(env({}), "10.0.0.1"), undefined);
  assert.equal(
    httpsProxyFor(env({ HTTPS_PROXY: "socks5://p:1080" }), "example.com"),
    "socks5://p:1080",
  );
});

Deno.test("localhost and loopback addresses never use the proxy", () => {
  const e = env({ HTTPS_PROXY: "http://p:3128" });
  assert.equal(httpsProxyFor(e, "localhost"), undefined);
  assert.equal(httpsProxyFor(e, "127.0.0.53"), undefined);
  assert.equal(httpsProxyFor(e, "::1"), undefined);
});

Deno.test("NO_PROXY: *, CIDRs, IPs with ports, domains and subdomains", () => {
  const with_ = (noProxy: string, host: string, port = "443") =>
    httpsProxyFor(env({ HTTPS_PROXY: "http://p:3128", NO_PROXY: noProxy }), host, port);
  assert.equal(with_("*", "anything.example"), undefined);
  assert.equal(with_("10.96.0.0/12", "10.96.0.1"), undefined);
  assert.equal(with_("10.96.0.0/12", "10.112.0.1"), "http://p:3128");
  assert.equal(with_("fd00::/8", "fd01::1"), undefined);
  assert.equal(with_("10.0.0.1", "10.0.0.1"), undefined);
  assert.equal(with_("10.0.0.1:6443", "10.0.0.1", "443"), "http://p:3128");
  assert.equal(with_("10.0.0.1:443", "10.0.0.1", "443"), undefined);
  assert.equal(with_("example.com", "example.com"), undefined);
  assert.equal(with_("example.com", "api.example.com"), undefined);
  assert.equal(with_(".example.com", "example.com"), "http://p:3128");
  assert.equal(with_(".example.com", "api.example.com"), undefined);
  assert.equal(with_("*.example.com", "api.example.com"), undefined);
  assert.equal(with_(" Example.COM , other", "API.example.com"), undefined);
  assert.equal(with_("ample.com", "example.com"), "http://p:3128");
  assert.equal(
    httpsProxyFor(env({ HTTPS_PROXY: "http://p:3128", no_proxy: "10.0.0.0/8" }), "10.1.1.1"),
    undefined,
  );
});
