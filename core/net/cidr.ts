/**
 * CIDR blocks: parsing, size and indexed addresses (Go's `netutils.ParseCIDRSloppy` and
 * `GetIndexedIP` semantics).
 *
 * A parsed block keeps its network address (host bits cleared), so `10.96.0.5/12` reads as
 * `10.96.0.0/12`, exactly like the `*net.IPNet` Go returns.
 *
 * @module
 */
import { bigintFromBytes, bytesFromBigint } from "../bigint.ts";
import { KubeadmError } from "../errors.ts";
import { formatIP, parseIP } from "./ip.ts";

/** A parsed CIDR block. */
export interface CIDR {
  /** Network address, 4 or 16 bytes, host bits cleared. */
  ip: Uint8Array;
  /** Prefix length. */
  prefix: number;
  /** 32 for IPv4, 128 for IPv6. */
  bits: 32 | 128;
}

/** Parses `addr/prefix`; returns `undefined` when the text is not a CIDR. */
export function parseCIDR(s: string): CIDR | undefined {
  const slash = s.indexOf("/");
  if (slash < 0) return undefined;
  const addrText = s.slice(0, slash);
  const prefixText = s.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(prefixText)) return undefined;
  const ip = parseIP(addrText);
  if (!ip) return undefined;
  // An IPv4-mapped IPv6 address with an IPv6 prefix stays IPv6-sized in Go; keep the text's family.
  const isV6Text = addrText.includes(":");
  const bytes = isV6Text && ip.length === 4
    ? new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...ip])
    : ip;
  const bits = bytes.length === 4 ? 32 : 128;
  const prefix = Number(prefixText);
  if (prefix > bits) return undefined;
  const hostBits = BigInt(bits - prefix);
  const mask = ((1n << BigInt(bits)) - 1n) ^ ((1n << hostBits) - 1n);
  const network = bytesFromBigint(bigintFromBytes(bytes) & mask, bytes.length);
  return { ip: network, prefix, bits };
}

/** Parses a comma-separated list of CIDRs (dual-stack subnets); `undefined` if any is invalid. */
export function parseCIDRList(s: string): CIDR[] | undefined {
  const out: CIDR[] = [];
  for (const part of s.split(",")) {
    const c = parseCIDR(part.trim());
    if (!c) return undefined;
    out.push(c);
  }
  return out;
}

/** Prints a block as `network/prefix`. */
export function formatCIDR(c: CIDR): string {
  return `${formatIP(c.ip)}/${c.prefix}`;
}

function asCIDR(c: CIDR | string): CIDR {
  if (typeof c !== "string") return c;
  const parsed = parseCIDR(c);
  if (!parsed) {
    throw new KubeadmError(`couldn't parse CIDR ${JSON.stringify(c)}`, {
      value: c,
      hint: "use the address/prefix form, e.g. 10.96.0.0/12",
    });
  }
  return parsed;
}

/** Number of addresses in a block (2^(bits-prefix)). */
export function cidrSize(c: CIDR | string): bigint {
  const cidr = asCIDR(c);
  return 1n << BigInt(cidr.bits - cidr.prefix);
}

/** True when `ip` (text or bytes) lies inside the block. */
export function cidrContains(c: CIDR | string, ip: string | Uint8Array): boolean {
  const cidr = asCIDR(c);
  const bytes = typeof ip === "string" ? parseIP(ip) : ip;
  if (!bytes || bytes.length !== cidr.ip.length) return false;
  const hostBits = BigInt(cidr.bits - cidr.prefix);
  return (bigintFromBytes(bytes) >> hostBits) === (bigintFromBytes(cidr.ip) >> hostBits);
}

/**
 * The `n`-th address of a block counting from its network address (n = 1 is the API server's
 * service VIP, n = 10 the cluster DNS IP). Throws, in upstream's words, when the block is too
 * small.
 */
export function cidrNthAddress(c: CIDR | string, n: number | bigint): string {
  const cidr = asCIDR(c);
  const index = BigInt(n);
  if (index < 0n || index >= cidrSize(cidr)) {
    throw new KubeadmError(
      `can't generate IP with index ${index} from subnet. subnet too small. subnet: ${
        JSON.stringify(formatCIDR(cidr))
      }`,
      { value: formatCIDR(cidr) },
    );
  }
  return formatIP(bytesFromBigint(bigintFromBytes(cidr.ip) + index, cidr.ip.length));
}

/**
 * Number of addresses in a CIDR with `netutils.RangeSize`'s special cases: 0 for /0–/1 (IPv4)
 * and /0–/1 (IPv6) ranges, capped at 2^63-1.
 */
export function rangeSize(c: CIDR | string): bigint {
  const cidr = asCIDR(c);
  const hostBits = cidr.bits - cidr.prefix;
  if ((cidr.bits === 32 && hostBits >= 31) || (cidr.bits === 128 && hostBits >= 127)) return 0n;
  if (hostBits >= 63) return (1n << 63n) - 1n;
  return 1n << BigInt(hostBits);
}

/** Whether exactly one IPv4 and one IPv6 CIDR are given (`netutils.IsDualStackCIDRs`). */
export function isDualStack(cidrs: readonly CIDR[]): boolean {
  return cidrs.length === 2 && cidrs[0].bits !== cidrs[1].bits;
}
