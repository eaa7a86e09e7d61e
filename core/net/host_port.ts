/**
 * `host:port` strings: Go's `net.JoinHostPort` / `net.SplitHostPort` and kubeadm's lenient
 * `ParseHostPort` / `ParsePort` (port optional, host must be an IP or a DNS-1123 subdomain).
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";
import { isDNS1123Subdomain } from "./dns_name.ts";
import { parseIP } from "./ip.ts";

/** Joins host and port, bracketing hosts that contain a colon (IPv6): `[::1]:6443`. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A host and a (possibly empty) port, as split from `host:port`. */
export interface HostPort {
  host: string;
  port: string;
}

/** Splits `host:port` / `[host]:port` exactly like Go's `net.SplitHostPort`; throws on bad input. */
export function splitHostPort(hostport: string): HostPort {
  const fail = (why: string): never => {
    throw new KubeadmError(`address ${hostport}: ${why}`, { value: hostport });
  };
  const i = hostport.lastIndexOf(":");
  if (i < 0) return fail("missing port in address");
  let host: string;
  if (hostport.startsWith("[")) {
    const end = hostport.indexOf("]");
    if (end < 0) return fail("missing ']' in address");
    if (end + 1 === hostport.length) return fail("missing port in address");
    if (end + 1 !== i) {
      return hostport[end + 1] === ":"
        ? fail("too many colons in address")
        : fail("missing port in address");
    }
    host = hostport.slice(1, end);
    if (host.includes("[") || host.includes("]")) return fail("unexpected '[' in address");
  } else {
    host = hostport.slice(0, i);
    if (host.includes(":")) return fail("too many colons in address");
    if (host.includes("[")) return fail("unexpected '[' in address");
    if (host.includes("]")) return fail("unexpected ']' in address");
  }
  const port = hostport.slice(i + 1);
  if (port.includes("[")) return fail("unexpected '[' in address");
  if (port.includes("]")) return fail("unexpected ']' in address");
  return { host, port };
}

/**
 * Parses a TCP port in 1..65535 (kubeadm's `ParsePort`); throws with upstream's wording.
 */
export function parsePort(port: string): number {
  if (/^[0-9]+$/.test(port)) {
    const n = Number(port);
    if (n >= 1 && n <= 65535) return n;
  }
  throw new KubeadmError("port must be a valid number between 1 and 65535, inclusive", {
    value: port,
  });
}

/**
 * kubeadm's `ParseHostPort`: `host`, `host:port`, `ipv4:port` or `[ipv6]:port`. The port may be
 * omitted (returned as ""); the host must be an IP address or a DNS-1123 subdomain.
 */
export function parseHostPort(hostport: string): HostPort {
  let host = hostport;
  let port = "";
  try {
    ({ host, port } = splitHostPort(hostport));
  } catch {
    host = hostport;
    port = "";
  }
  if (port !== "") {
    try {
      parsePort(port);
    } catch {
      throw new KubeadmError(
        `hostport ${hostport}: port ${port} must be a valid number between 1 and 65535, inclusive`,
        { value: hostport },
      );
    }
  }
  if (parseIP(host) || isDNS1123Subdomain(host)) return { host, port };
  throw new KubeadmError(
    `hostport ${hostport}: host '${host}' must be a valid IP address or a valid RFC-1123 DNS subdomain`,
    { value: hostport },
  );
}
