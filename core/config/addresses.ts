/**
 * IP addresses, CIDRs and `host[:port]` endpoints as kubeadm's config validation reads them.
 *
 * Semantics follow Go's `net` package and `k8s.io/utils/net` (sloppy IPv4 parsing that accepts
 * leading zeros, `RangeSize`, `IsDualStackCIDRs`, `GetIndexedIP`) and kubeadm's
 * `ParseHostPort`. Written here because `core/net/` did not exist yet when the config API
 * was built; it can be replaced by the shared module later without changing callers' results.
 *
 * @module
 */
import { isDNS1123Subdomain } from "./names.ts";

/** A parsed IP address. */
export interface IPAddress {
  family: 4 | 6;
  /** 4 or 16 bytes. */
  bytes: Uint8Array;
}

/** A parsed CIDR: the address as written, the prefix length and the masked network. */
export interface CIDR {
  family: 4 | 6;
  /** The address part as written (not masked). */
  ip: IPAddress;
  prefix: number;
  /** The network address (address & mask). */
  network: IPAddress;
}

function parseIPv4(text: string): Uint8Array | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (!/^\d{1,3}$/.test(parts[i])) return undefined;
    const n = Number(parts[i]);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

function parseIPv6(text: string): Uint8Array | undefined {
  if (text.length < 2 || !/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  const doubleColon = text.indexOf("::");
  if (doubleColon !== text.lastIndexOf("::")) return undefined;
  const splitGroups = (part: string): string[] => (part === "" ? [] : part.split(":"));
  let head: string[];
  let tail: string[];
  if (doubleColon >= 0) {
    head = splitGroups(text.slice(0, doubleColon));
    tail = splitGroups(text.slice(doubleColon + 2));
  } else {
    head = splitGroups(text);
    tail = [];
  }
  const words: number[] = [];
  const toWords = (groups: string[], isLast: boolean): number[] | undefined => {
    const out: number[] = [];
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i];
      if (isLast && i === groups.length - 1 && g.includes(".")) {
        const v4 = parseIPv4(g);
        if (!v4) return undefined;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const headWords = toWords(head, doubleColon < 0);
  const tailWords = toWords(tail, true);
  if (!headWords || !tailWords) return undefined;
  if (doubleColon >= 0) {
    const fill = 8 - headWords.length - tailWords.length;
    if (fill < 1) return undefined;
    words.push(...headWords, ...new Array(fill).fill(0), ...tailWords);
  } else {
    words.push(...headWords);
  }
  if (words.length !== 8) return undefined;
  const out = new Uint8Array(16);
  words.forEach((w, i) => {
    out[2 * i] = w >> 8;
    out[2 * i + 1] = w & 0xff;
  });
  return out;
}

/** Parses an IPv4 or IPv6 address (no zone, no brackets); `undefined` when invalid. */
export function parseIP(text: string): IPAddress | undefined {
  if (text.includes(":")) {
    const b = parseIPv6(text);
    return b ? { family: 6, bytes: b } : undefined;
  }
  const b = parseIPv4(text);
  return b ? { family: 4, bytes: b } : undefined;
}

/** Whether `text` is an IPv4 or IPv6 address. */
export function isIP(text: string): boolean {
  return parseIP(text) !== undefined;
}

/** The IPv4 address embedded in an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), if any. */
function mappedV4(ip: IPAddress): Uint8Array | undefined {
  if (ip.family === 4) return ip.bytes;
  for (let i = 0; i < 10; i++) if (ip.bytes[i] !== 0) return undefined;
  if (ip.bytes[10] !== 0xff || ip.bytes[11] !== 0xff) return undefined;
  return ip.bytes.slice(12);
}

/** Whether the address is IPv4 in Go's sense (`To4() != nil`, so IPv4-mapped counts). */
export function isIPv4Like(ip: IPAddress): boolean {
  return mappedV4(ip) !== undefined;
}

/** Whether the address is a loopback address (127/8 or ::1). */
export function isLoopback(ip: IPAddress): boolean {
  const v4 = mappedV4(ip);
  if (v4) return v4[0] === 127;
  return ip.bytes.every((b, i) => (i === 15 ? b === 1 : b === 0));
}

/** Whether the address is the unspecified address (0.0.0.0 or ::). */
export function isUnspecified(ip: IPAddress): boolean {
  return ip.bytes.every((b) => b === 0);
}

/** Formats an address like Go's `net.IP.String()` (RFC 5952 for IPv6). */
export function formatIP(ip: IPAddress): string {
  if (ip.family === 4) return Array.from(ip.bytes).join(".");
  const v4 = mappedV4(ip);
  if (v4) return Array.from(v4).join(".");
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push((ip.bytes[i] << 8) | ip.bytes[i + 1]);
  // Longest run (≥ 2) of zero words; first one wins ties.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestStart < 0) return words.map((w) => w.toString(16)).join(":");
  const left = words.slice(0, bestStart).map((w) => w.toString(16)).join(":");
  const right = words.slice(bestStart + bestLen).map((w) => w.toString(16)).join(":");
  return `${left}::${right}`;
}

function toBigInt(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function fromBigInt(v: bigint, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = length - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Parses `address/prefix`; `undefined` when invalid (Go's `net.ParseCIDR` rules). */
export function parseCIDR(text: string): CIDR | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const ip = parseIP(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const bits = ip.family === 4 ? 32 : 128;
  if (prefix > bits) return undefined;
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);
  const network = { family: ip.family, bytes: fromBigInt(toBigInt(ip.bytes) & mask, bits / 8) };
  return { family: ip.family, ip, prefix, network };
}

/** Formats a CIDR like Go's `IPNet.String()` (masked network / prefix). */
export function formatCIDR(cidr: CIDR): string {
  return `${formatIP(cidr.network)}/${cidr.prefix}`;
}

/**
 * Parses a comma-separated CIDR list (`10.96.0.0/12,fd00::/108`). Returns `undefined` if any
 * element is invalid, like `netutils.ParseCIDRs`.
 */
export function parseCIDRList(text: string): CIDR[] | undefined {
  const out: CIDR[] = [];
  for (const part of text.split(",")) {
    const c = parseCIDR(part);
    if (!c) return undefined;
    out.push(c);
  }
  return out;
}

/** Whether `ip` lies inside `cidr` (same family, same network prefix). */
export function cidrContains(cidr: CIDR, ip: IPAddress): boolean {
  if (cidr.family !== ip.family) return false;
  const bits = cidr.family === 4 ? 32 : 128;
  const shift = BigInt(bits - cidr.prefix);
  return (toBigInt(cidr.network.bytes) >> shift) === (toBigInt(ip.bytes) >> shift);
}

/** Number of addresses in a CIDR, with `netutils.RangeSize`'s special cases (as BigInt). */
export function rangeSize(cidr: CIDR): bigint {
  const bits = cidr.family === 4 ? 32 : 128;
  const hostBits = bits - cidr.prefix;
  if ((bits === 32 && hostBits >= 31) || (bits === 128 && hostBits >= 127)) return 0n;
  if (hostBits >= 63) return (1n << 63n) - 1n;
  return 1n << BigInt(hostBits);
}

/** Whether exactly one IPv4 and one IPv6 CIDR are given (`netutils.IsDualStackCIDRs`). */
export function isDualStack(cidrs: readonly CIDR[]): boolean {
  return cidrs.length === 2 && cidrs[0].family !== cidrs[1].family;
}

/** The `index`-th address of a CIDR (`netutils.GetIndexedIP`); `undefined` if outside it. */
export function indexedIP(cidr: CIDR, index: number): IPAddress | undefined {
  const bits = cidr.family === 4 ? 32 : 128;
  const base = toBigInt(cidr.network.bytes);
  const size = 1n << BigInt(bits - cidr.prefix);
  if (BigInt(index) >= size) return undefined;
  return { family: cidr.family, bytes: fromBigInt(base + BigInt(index), bits / 8) };
}

/**
 * The cluster DNS address: the 10th address of the first service CIDR, or `undefined` when
 * the subnet list is invalid (callers fall back to `10.96.0.10`, as upstream).
 */
export function clusterDNSIP(serviceSubnet: string): string | undefined {
  const cidrs = parseCIDRList(serviceSubnet);
  if (!cidrs) return undefined;
  const ip = indexedIP(cidrs[0], 10);
  return ip ? formatIP(ip) : undefined;
}

/** The API server's service VIP: the 1st address of the first service CIDR. */
export function apiServerServiceIP(serviceSubnet: string): string | undefined {
  const cidrs = parseCIDRList(serviceSubnet);
  if (!cidrs) return undefined;
  const ip = indexedIP(cidrs[0], 1);
  return ip ? formatIP(ip) : undefined;
}

/** A port number string is valid when it is an integer in 1..65535. */
export function isValidPort(text: string): boolean {
  if (!/^[+-]?\d+$/.test(text)) return false;
  const n = Number(text);
  return n >= 1 && n <= 65535;
}

/** Go's `net.SplitHostPort`; `undefined` where Go returns an error. */
export function splitHostPort(text: string): { host: string; port: string } | undefined {
  if (text.startsWith("[")) {
    const end = text.indexOf("]");
    if (end < 0 || text[end + 1] !== ":") return undefined;
    const host = text.slice(1, end);
    const port = text.slice(end + 2);
    if (port.includes(":") || host.includes("[") || host.includes("]")) return undefined;
    return { host, port };
  }
  const colon = text.lastIndexOf(":");
  if (colon < 0) return undefined;
  const host = text.slice(0, colon);
  if (host.includes(":") || host.includes("[") || host.includes("]")) return undefined;
  return { host, port: text.slice(colon + 1) };
}

/** Go's `net.JoinHostPort`: brackets hosts that contain a colon. */
export function joinHostPort(host: string, port: string | number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * kubeadm's `ParseHostPort`: `host[:port]` where host is an IP or a DNS-1123 subdomain and
 * port is 1..65535. Throws upstream's message on error.
 */
export function parseHostPort(text: string): { host: string; port: string } {
  const split = splitHostPort(text);
  const host = split ? split.host : text;
  const port = split ? split.port : "";
  if (port !== "" && !isValidPort(port)) {
    throw new Error(
      `hostport ${text}: port ${port} must be a valid number between 1 and 65535, inclusive`,
    );
  }
  if (isIP(host) || isDNS1123Subdomain(host).length === 0) return { host, port };
  throw new Error(
    `hostport ${text}: host '${host}' must be a valid IP address or a valid RFC-1123 DNS subdomain`,
  );
}
