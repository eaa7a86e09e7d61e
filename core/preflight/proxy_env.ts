/**
 * Which proxy an HTTPS request would use, decided from the environment the way Go's
 * `http.ProxyFromEnvironment` (wrapped by apimachinery's `NewProxierWithNoProxyCIDR`) does.
 *
 * Rules: `HTTPS_PROXY`/`https_proxy` is the proxy for `https` URLs (there is no fallback to
 * `HTTP_PROXY`); `localhost` and loopback addresses never use a proxy; `NO_PROXY`/`no_proxy`
 * entries are `*`, CIDRs, IPs (optionally with a port) or domain suffixes (`foo.com` matches
 * `foo.com` and `x.foo.com`, `.foo.com` only subdomains, `*.foo.com` like `.foo.com`).
 *
 * @module
 */
import { cidrContains, parseCIDR } from "../net/cidr.ts";
import { ipEqual, isLoopbackIP, parseIP } from "../net/ip.ts";

/** Reads one environment variable. */
export type EnvLookup = (name: string) => string | undefined;

function envAny(env: EnvLookup, ...names: string[]): string {
  for (const n of names) {
    const v = env(n);
    if (v !== undefined && v !== "") return v;
  }
  return "";
}

function splitHostPortLoose(hostport: string): { host: string; port: string } {
  if (hostport.startsWith("[")) {
    const end = hostport.indexOf("]");
    if (end > 0) {
      const rest = hostport.slice(end + 1);
      return { host: hostport.slice(1, end), port: rest.startsWith(":") ? rest.slice(1) : "" };
    }
  }
  const i = hostport.lastIndexOf(":");
  if (i > 0 && hostport.indexOf(":") === i) {
    return { host: hostport.slice(0, i), port: hostport.slice(i + 1) };
  }
  return { host: hostport, port: "" };
}

/** Prints a proxy setting as Go's `url.URL.String()` would (bare `host:port` gets `http://`). */
function proxyURL(value: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(value);
  if (m && ["http", "https", "socks5"].includes(m[1].toLowerCase())) return value;
  return `http://${value}`;
}

function noProxyMatches(noProxy: string, host: string, port: string): boolean {
  const ip = parseIP(host);
  const name = host.trim().toLowerCase();
  for (const raw of noProxy.split(",")) {
    let p = raw.trim().toLowerCase();
    if (p === "") continue;
    if (p === "*") return true;
    const cidr = parseCIDR(p);
    if (cidr) {
      if (ip && cidrContains(cidr, ip)) return true;
      continue;
    }
    const { host: phost0, port: pport } = splitHostPortLoose(p);
    p = phost0;
    const pip = parseIP(p);
    if (pip) {
      if (ip && ipEqual(pip, ip) && (pport === "" || pport === port)) return true;
      continue;
    }
    if (p === "") continue;
    let suffix = p.startsWith("*.") ? p.slice(1) : p;
    let matchHost = false;
    if (!suffix.startsWith(".")) {
      matchHost = true;
      suffix = `.${suffix}`;
    }
    if (name.endsWith(suffix) || (matchHost && name === suffix.slice(1))) {
      if (pport === "" || pport === port) return true;
    }
  }
  return false;
}

/**
 * The proxy URL an `https://<host>[:port]` request would go through, or `undefined` for a
 * direct connection. `host` is a name or a bare IP (no brackets).
 */
export function httpsProxyFor(env: EnvLookup, host: string, port = "443"): string | undefined {
  const proxy = envAny(env, "HTTPS_PROXY", "https_proxy");
  if (proxy === "") return undefined;
  if (host === "localhost") return undefined;
  const ip = parseIP(host);
  if (ip && isLoopbackIP(ip)) return undefined;
  const noProxy = envAny(env, "NO_PROXY", "no_proxy");
  if (noProxyMatches(noProxy, host, port)) return undefined;
  return proxyURL(proxy);
}
