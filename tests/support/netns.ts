/**
 * Network namespaces for end-to-end tests: each test node gets its own namespace connected to
 * the host by a veth pair, so components bind their real ports without touching the host's
 * network, and everything inside is killed when the namespace is removed.
 *
 * @module
 */

/** Runs a command; its stdout, or (with `check`) an error carrying its stderr. */
export async function sh(args: string[], check = true): Promise<string> {
  const out = await new Deno.Command(args[0], {
    args: args.slice(1),
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  if (check && !out.success) {
    throw new Error(`${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

/** A network namespace with one veth link to the host. */
export interface NetNamespace {
  /** Namespace name (for `ip netns exec`). */
  name: string;
  /** The namespace's own address (its default-route interface). */
  address: string;
  /** The host-side address of the veth pair. */
  hostAddress: string;
  /** Prefix for running a command inside: `["ip", "netns", "exec", name]`. */
  exec: string[];
  /** Kills every process in the namespace and removes it. Safe to call twice. */
  close(): Promise<void>;
}

let counter = 0;

/**
 * Creates a namespace `kts-<pid>-<n>` with `eth0` = 10.<a>.<b>.1/24 and a default route via
 * the host side (.254). The subnet is derived from the pid and a counter to avoid clashes.
 */
export async function createNetNamespace(): Promise<NetNamespace> {
  const n = ++counter;
  const name = `kts-${Deno.pid}-${n}`;
  const b = (Deno.pid * 7 + n) % 250 + 1;
  const prefix = `10.233.${b}`;
  const address = `${prefix}.1`;
  const hostAddress = `${prefix}.254`;
  const hostIf = `kv${Deno.pid % 100000}x${n}`;
  await sh(["ip", "netns", "add", name]);
  const ns = {
    name,
    address,
    hostAddress,
    exec: ["ip", "netns", "exec", name],
    async close() {
      const pids = (await sh(["ip", "netns", "pids", name], false)).split("\n").filter(Boolean);
      for (const pid of pids) {
        try {
          Deno.kill(Number(pid), "SIGKILL");
        } catch {
          // already gone
        }
      }
      await sh(["ip", "link", "del", hostIf], false);
      await sh(["ip", "netns", "del", name], false);
    },
  };
  try {
    await sh([...ns.exec, "ip", "link", "set", "lo", "up"]);
    await sh(["ip", "link", "add", hostIf, "type", "veth", "peer", "name", "eth0", "netns", name]);
    await sh(["ip", "addr", "add", `${hostAddress}/24`, "dev", hostIf]);
    await sh(["ip", "link", "set", hostIf, "up"]);
    await sh([...ns.exec, "ip", "addr", "add", `${address}/24`, "dev", "eth0"]);
    await sh([...ns.exec, "ip", "link", "set", "eth0", "up"]);
    await sh([...ns.exec, "ip", "route", "add", "default", "via", hostAddress]);
  } catch (e) {
    await ns.close();
    throw e;
  }
  return ns;
}

let linkCounter = 0;

/** Links two namespaces with a veth pair and /32 routes to each other's address. */
export async function linkNamespaces(a: NetNamespace, b: NetNamespace): Promise<void> {
  const n = ++linkCounter;
  const ifA = `kl${Deno.pid % 100000}a${n}`;
  const ifB = `kl${Deno.pid % 100000}b${n}`;
  await sh([
    "ip",
    "link",
    "add",
    ifA,
    "netns",
    a.name,
    "type",
    "veth",
    "peer",
    "name",
    ifB,
    "netns",
    b.name,
  ]);
  await sh([...a.exec, "ip", "link", "set", ifA, "up"]);
  await sh([...b.exec, "ip", "link", "set", ifB, "up"]);
  await sh([...a.exec, "ip", "route", "add", `${b.address}/32`, "dev", ifA, "src", a.address]);
  await sh([...b.exec, "ip", "route", "add", `${a.address}/32`, "dev", ifB, "src", b.address]);
}
