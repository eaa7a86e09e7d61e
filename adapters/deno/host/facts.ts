/**
 * Reads the host facts `init` needs: hostname, default advertise address, CA-trust dirs that
 * exist, `*_proxy` environment variables.
 *
 * Everything here works with read permission alone (falling back from `Deno.hostname()` and
 * `Deno.networkInterfaces()` to `/proc`), so `deno run --allow-read … init --dry-run` works.
 *
 * @module
 */
import type { HostFacts } from "../../../core/phases/init/data.ts";
import { underRoot } from "../files.ts";
import { isUnspecifiedIP, parseIP } from "../../../core/net/ip.ts";

/** CA-trust directories upstream mounts into control-plane Pods when they exist. */
export const CA_TRUST_DIRS = [
  "/etc/ssl/certs",
  "/etc/pki/ca-trust",
  "/etc/pki/tls/certs",
  "/etc/ca-certificates",
  "/usr/share/ca-certificates",
  "/usr/local/share/ca-certificates",
] as const;

function granted(desc: Deno.PermissionDescriptor): boolean {
  try {
    return Deno.permissions.querySync(desc).state === "granted";
  } catch {
    return false;
  }
}

function readText(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}

/** The OS hostname, lowercased (upstream's node-name default). */
export function detectHostname(): string {
  let name: string | undefined;
  if (granted({ name: "sys", kind: "hostname" })) name = Deno.hostname();
  name ??= readText("/proc/sys/kernel/hostname")?.trim();
  return (name ?? "localhost").toLowerCase();
}

function hexToIPv4(hex: string): number {
  // /proc/net/route stores addresses little-endian.
  const n = parseInt(hex, 16);
  return ((n & 0xff) << 24 | (n >>> 8 & 0xff) << 16 | (n >>> 16 & 0xff) << 8 | n >>> 24) >>> 0;
}

function ipv4FromString(s: string): number {
  return s.split(".").reduce((acc, o) => (acc * 256 + Number(o)) >>> 0, 0);
}

interface Route {
  iface: string;
  dest: number;
  mask: number;
  metric: number;
}

function readRoutes(): Route[] {
  const text = readText("/proc/net/route") ?? "";
  return text.split("\n").slice(1).map((l) => l.trim().split(/\s+/)).filter((f) => f.length >= 8)
    .map((f) => ({
      iface: f[0],
      dest: hexToIPv4(f[1]),
      mask: hexToIPv4(f[7]),
      metric: Number(f[6]),
    }));
}

function localAddressesFromFibTrie(): string[] {
  const text = readText("/proc/net/fib_trie") ?? "";
  const out = new Set<string>();
  let last: string | undefined;
  for (const line of text.split("\n")) {
    const m = line.match(/\|--\s+(\d+\.\d+\.\d+\.\d+)/);
    if (m) last = m[1];
    else if (last && /\/32 host LOCAL/.test(line)) out.add(last);
  }
  return [...out];
}

/**
 * The address an advertise address that is unset or unspecified (`0.0.0.0`, `::`) resolves to,
 * as upstream's dynamic defaults: a specific IP given (`--apiserver-advertise-address`) is used
 * as is (no detection needed), anything else gets this host's default-route address.
 */
export function defaultAdvertiseAddress(given?: string): string | undefined {
  const ip = given === undefined ? undefined : parseIP(given);
  if (ip && !isUnspecifiedIP(ip)) return given;
  return detectDefaultAddress();
}

/**
 * The IPv4 address of the interface holding the default route (upstream's
 * `ChooseHostInterface`), or `undefined` when the host has none.
 *
 * Deno only lets a fully privileged process read `/proc/net/*`; with narrower permissions
 * (a dry run) the first global-unicast IPv4 address of a non-loopback interface is used.
 */
export function detectDefaultAddress(): string | undefined {
  const routes = readRoutes();
  const def =
    routes.filter((r) => r.dest === 0 && r.mask === 0).sort((a, b) => a.metric - b.metric)[0];
  const canListInterfaces = granted({ name: "sys", kind: "networkInterfaces" });
  if (!def) {
    if (routes.length > 0 || !canListInterfaces) return undefined;
    // Routes unreadable (not "no default route"): pick the first global unicast address.
    return Deno.networkInterfaces().find((i) =>
      i.family === "IPv4" && !i.address.startsWith("127.") && !i.address.startsWith("169.254.")
    )?.address;
  }
  if (canListInterfaces) {
    const hit = Deno.networkInterfaces().find((i) =>
      i.name === def.iface && i.family === "IPv4" && !i.address.startsWith("127.")
    );
    if (hit) return hit.address;
  }
  const ifaceNets = routes.filter((r) => r.iface === def.iface && r.mask !== 0);
  for (const addr of localAddressesFromFibTrie()) {
    const n = ipv4FromString(addr);
    if (addr.startsWith("127.")) continue;
    if (ifaceNets.some((r) => ((n & r.mask) >>> 0) === ((r.dest & r.mask) >>> 0))) return addr;
  }
  return undefined;
}

function existingDirs(root: string): Set<string> {
  const out = new Set<string>();
  for (const d of CA_TRUST_DIRS) {
    try {
      if (Deno.statSync(underRoot(root, d)).isDirectory) out.add(d);
    } catch {
      // absent or unreadable: not mounted, as upstream
    }
  }
  return out;
}

function proxyEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  if (!granted({ name: "env" })) return out;
  for (const [k, v] of Object.entries(Deno.env.toObject())) {
    if (/_proxy$/i.test(k) && v !== "") out[k] = v;
  }
  return out;
}

/**
 * Gathers {@link HostFacts} from the running host. With `--rootfs`, facts about files (which
 * CA-trust directories exist) are read under that root, as upstream's chroot would see them.
 */
export function readHostFacts(root = "/"): HostFacts {
  return { hostname: detectHostname(), existingDirs: existingDirs(root), proxyEnv: proxyEnv() };
}
