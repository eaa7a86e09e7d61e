/**
 * IP addresses as bytes: parsing and printing with Go's `net` semantics.
 *
 * kubeadm reads addresses with `netutils.ParseIPSloppy` (IPv4 octets may carry leading zeros,
 * read as decimal) and prints them with `net.IP.String()` (RFC 5952 for IPv6). IPv4 and
 * IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`) both come back as 4 bytes, as Go's `To4()`
 * treats them, so they print, compare and encode (certificate SANs) as IPv4.
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";

function parseIPv4(s: string): Uint8Array | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (!/^[0-9]{1,3}$/.test(p)) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    out[i] = v;
  }
  return out;
}

function parseIPv6(s: string): Uint8Array | undefined {
  if (s.length === 0) return undefined;
  const out = new Uint8Array(16);
  let groups: string[];
  let tailV4: Uint8Array | undefined;
  const dbl = s.indexOf("::");
  if (dbl !== s.lastIndexOf("::")) return undefined;
  const splitGroups = (part: string): string[] => (part === "" ? [] : part.split(":"));
  let head: string[];
  let tail: string[];
  if (dbl >= 0) {
    head = splitGroups(s.slice(0, dbl));
    tail = splitGroups(s.slice(dbl + 2));
  } else {
    head = splitGroups(s);
    tail = [];
  }
  // An embedded IPv4 address may only appear as the very last group.
  const last = dbl >= 0 ? tail : head;
  if (last.length > 0 && last[last.length - 1].includes(".")) {
    tailV4 = parseIPv4(last[last.length - 1]);
    if (!tailV4) return undefined;
    last.pop();
  }
  const v4Groups = tailV4 ? 2 : 0;
  const total = head.length + tail.length + v4Groups;
  if (dbl >= 0 ? total > 7 : total !== 8) return undefined;
  groups = [...head];
  const fill = 8 - total;
  for (let i = 0; i < (dbl >= 0 ? fill : 0); i++) groups.push("0");
  groups = groups.concat(tail);
  let i = 0;
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    const v = parseInt(g, 16);
    out[i++] = v >> 8;
    out[i++] = v & 0xff;
  }
  if (tailV4) out.set(tailV4, 12);
  return out;
}

const V4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function isV4Mapped(b: Uint8Array): boolean {
  return b.length === 16 && V4_MAPPED_PREFIX.every((v, i) => b[i] === v);
}

/**
 * Parses a textual IPv4 or IPv6 address (no zone, no brackets). Returns 4 bytes for IPv4 and
 * IPv4-mapped IPv6, 16 bytes for other IPv6, or `undefined` when the text is not an address.
 */
export function parseIP(s: string): Uint8Array | undefined {
  if (s.includes(":")) {
    const b = parseIPv6(s);
    if (b && isV4Mapped(b)) return b.slice(12);
    return b;
  }
  return parseIPv4(s);
}

/** Prints an address as Go does: dotted quad for IPv4, RFC 5952 compressed form for IPv6. */
export function formatIP(ip: Uint8Array): string {
  if (ip.length === 4) return Array.from(ip).join(".");
  if (ip.length !== 16) throw new KubeadmError(`invalid IP length ${ip.length}`);
  if (isV4Mapped(ip)) return Array.from(ip.slice(12)).join(".");
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((ip[i] << 8) | ip[i + 1]);
  // Longest run of zero groups (length >= 2), first one on ties.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) bestStart = -1;
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (i === bestStart) {
      out += "::";
      i += bestLen - 1;
      continue;
    }
    if (out !== "" && !out.endsWith(":")) out += ":";
    out += groups[i].toString(16);
  }
  return out;
}

/** Re-prints an address in canonical form, or returns `undefined` when it does not parse. */
export function canonicalIP(s: string): string | undefined {
  const ip = parseIP(s);
  return ip ? formatIP(ip) : undefined;
}

/** True when the text is an IPv4 address (or an IPv4-mapped IPv6 one). */
export function isIPv4(s: string): boolean {
  return parseIP(s)?.length === 4;
}

/** True when the text is an IPv6 address that is not IPv4-mapped (Go's `netutils.IsIPv6String`). */
export function isIPv6(s: string): boolean {
  return parseIP(s)?.length === 16;
}

/** True when two parsed addresses denote the same IP. */
export function ipEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** True for 127.0.0.0/8 and ::1. */
export function isLoopbackIP(ip: Uint8Array): boolean {
  if (ip.length === 4) return ip[0] === 127;
  return ip.slice(0, 15).every((v) => v === 0) && ip[15] === 1;
}

/** True for 0.0.0.0 and ::. */
export function isUnspecifiedIP(ip: Uint8Array): boolean {
  return ip.every((v) => v === 0);
}

/** Whether `s` is an IPv4 or IPv6 address (no zone, no brackets). */
export function isIP(s: string): boolean {
  return parseIP(s) !== undefined;
}
