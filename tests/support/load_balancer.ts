/**
 * A real load balancer for a test cluster's `controlPlaneEndpoint`: HAProxy (Debian's
 * `haproxy`, installed by `scripts/test`) run as the test's own process with a config of its
 * own (never the system service), on the host, in TCP mode in front of the control planes'
 * kube-apiservers, as kubeadm's HA documentation sets one up: a server is taken in only while
 * its `/readyz` answers 200 (an HTTPS check every second, out after two failures, in after two
 * successes), and a connection refused by a server that just went away is retried on another.
 * An admin takes a control plane out of rotation for its maintenance ({@link LoadBalancer.drain}):
 * a check only notices a server after it fails, and an API server whose local etcd member
 * restarts holds the requests it was sent until its member is back.
 *
 * Every node reaches the balancer at the host's end of its own link (each node's
 * `hostAddress`), so the endpoint is a DNS name, {@link LB_NAME}, which each node's `/etc/hosts`
 * maps to that address ({@link LoadBalancer.addClient}); the API servers' certificates carry it
 * (kubeadm adds `controlPlaneEndpoint`'s host to their SANs).
 *
 * @module
 */
import type { ClusterNode } from "./cluster.ts";

/** The endpoint's host name. */
export const LB_NAME = "cluster-endpoint";

/** A running HAProxy. */
export interface LoadBalancer {
  /** `cluster-endpoint:<port>`, the `controlPlaneEndpoint`. */
  endpoint: string;
  port: number;
  /** Maps {@link LB_NAME} to the balancer in the node's `/etc/hosts`. */
  addClient(node: ClusterNode): Promise<void>;
  /** HAProxy's log so far (its start-up and server state changes). */
  log(): Promise<string>;
  /**
   * Takes `node`'s API server out of rotation (HAProxy's `drain`: no new connection goes to it,
   * those open go on) until {@link LoadBalancer.undrain}.
   */
  drain(node: ClusterNode): Promise<void>;
  /** Puts `node`'s API server back in rotation (in once its checks pass, as before). */
  undrain(node: ClusterNode): Promise<void>;
  /**
   * `node`'s server status as HAProxy sees it (its `show stat` `status`): `UP`, `DOWN` (its
   * checks failed: no new connection goes to it), `DRAIN`, or on the way (`UP 1/2`, `DOWN 1/2`).
   */
  status(node: ClusterNode): Promise<string>;
  /** Stops HAProxy and removes its directory. */
  close(): Promise<void>;
}

/** A TCP port nothing on the host listens on now. */
function freePort(): number {
  const l = Deno.listen({ hostname: "0.0.0.0", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/**
 * HAProxy's configuration: the frontend on `port` of every host address (nodes added later
 * reach it at their own link's end too), the API servers behind it.
 */
function config(dir: string, port: number, servers: ClusterNode[]): string {
  return [
    "global",
    "  maxconn 4096",
    `  stats socket ${dir}/admin.sock mode 600 level admin`,
    "  log stdout format short local0 info",
    "defaults",
    "  mode tcp",
    "  log global",
    "  option tcplog",
    "  option dontlognull",
    "  timeout connect 2s",
    "  timeout client 10m",
    "  timeout server 10m",
    "  timeout check 2s",
    "  retries 3",
    "  option redispatch",
    "frontend kube-apiserver",
    `  bind 0.0.0.0:${port}`,
    "  default_backend control-planes",
    "backend control-planes",
    "  balance roundrobin",
    "  option httpchk",
    "  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host kubernetes",
    "  http-check expect status 200",
    "  default-server inter 1s fall 2 rise 2 check check-ssl verify none",
    ...servers.map((s) => `  server ${s.name} ${s.ip}:6443`),
    "",
  ].join("\n");
}

/** Runs one command of HAProxy's runtime API on its socket; returns the answer. */
async function runtimeCommand(socket: string, command: string): Promise<string> {
  const conn = await Deno.connect({ transport: "unix", path: socket });
  await conn.write(new TextEncoder().encode(`${command}\n`));
  // HAProxy answers and closes (not in interactive mode); reading to the end closes ours.
  return await new Response(conn.readable).text();
}

/** Sets a backend server's administrative state; fails on any answer but HAProxy's empty one. */
async function setServerState(dir: string, node: ClusterNode, state: "drain" | "ready") {
  const command = `set server control-planes/${node.name} state ${state}`;
  const answer = (await runtimeCommand(`${dir}/admin.sock`, command)).trim();
  if (answer !== "") throw new Error(`haproxy: ${command}: ${answer}`);
}

/** A backend server's `status` in HAProxy's statistics (`show stat`, CSV). */
async function serverStatus(dir: string, node: ClusterNode): Promise<string> {
  const lines = (await runtimeCommand(`${dir}/admin.sock`, "show stat")).split("\n");
  const header = lines[0].replace(/^# /, "").split(",");
  const [px, sv, status] = ["pxname", "svname", "status"].map((c) => header.indexOf(c));
  for (const line of lines.slice(1)) {
    const f = line.split(",");
    if (f[px] === "control-planes" && f[sv] === node.name) return f[status];
  }
  throw new Error(`haproxy: no server control-planes/${node.name} in its statistics`);
}

/**
 * Starts HAProxy in front of `servers`' API servers (port 6443), listening on the host; maps the
 * endpoint's name on `clients` to the host's end of their links.
 */
export async function startLoadBalancer(
  servers: ClusterNode[],
  clients: ClusterNode[],
): Promise<LoadBalancer> {
  const dir = await Deno.makeTempDir({ prefix: "kts-haproxy-" });
  const port = freePort();
  await Deno.writeTextFile(`${dir}/haproxy.cfg`, config(dir, port, servers));
  const logFile = await Deno.open(`${dir}/haproxy.log`, { write: true, create: true });
  const child = new Deno.Command("haproxy", {
    // -db: foreground, no daemon; -W: master-worker (a SIGTERM stops the worker too).
    args: ["-W", "-db", "-f", `${dir}/haproxy.cfg`],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const copy = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) {
      for (let off = 0; off < chunk.length;) off += await logFile.write(chunk.subarray(off));
    }
  };
  const piped = Promise.all([copy(child.stdout), copy(child.stderr)])
    .catch(() => {}).finally(() => logFile.close());
  const log = () => Deno.readTextFile(`${dir}/haproxy.log`).catch(() => "");
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
    await child.status;
    await piped;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  const lb: LoadBalancer = {
    endpoint: `${LB_NAME}:${port}`,
    port,
    async addClient(node) {
      const r = await node.exec([
        "sh",
        "-c",
        `printf '%s %s\\n' "$1" "$2" >> /etc/hosts`,
        "sh",
        node.hostAddress,
        LB_NAME,
      ]);
      if (r.code !== 0) throw new Error(`${node.name}: /etc/hosts: ${r.stderr}`);
    },
    log,
    drain: (node) => setServerState(dir, node, "drain"),
    undrain: (node) => setServerState(dir, node, "ready"),
    status: (node) => serverStatus(dir, node),
    close,
  };
  try {
    // Listening once the clients' addresses accept a connection.
    for (const address of new Set(clients.map((c) => c.hostAddress))) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const exited = await Promise.race([
          child.status.then(() => true),
          new Promise<false>((r) => setTimeout(() => r(false), 50)),
        ]);
        if (exited) throw new Error(`haproxy exited:\n${await log()}`);
        try {
          (await Deno.connect({ hostname: address, port })).close();
          break;
        } catch {
          if (Date.now() > deadline) throw new Error(`haproxy not listening:\n${await log()}`);
        }
      }
    }
    for (const c of clients) await lb.addClient(c);
  } catch (e) {
    await close();
    throw e;
  }
  return lb;
}
