/**
 * A minimal DNS client for the end-to-end tests: one question over UDP (RFC 1035), the answer
 * section decoded (A records as dotted quads, PTR records as names, other types as hex). Run as a script inside a
 * node's namespaces (see {@link nodeDnsQuery}) it prints the decoded response as JSON, so a
 * test asks the cluster's DNS what a Pod or the node would get, with no DNS tool installed.
 *
 * It imports nothing but `node:dgram` (and a type), so it runs with `deno run --no-config`.
 *
 * @module
 */
import dgram from "node:dgram";
import type { RunResult } from "./commands.ts";

/** Record types the tests ask for. */
export const DNS_TYPES = { A: 1, PTR: 12, AAAA: 28, SRV: 33 } as const;

/** One resource record of a response. */
export interface DnsRecord {
  name: string;
  type: number;
  ttl: number;
  /** A: dotted quad; PTR: the name; any other type: the RDATA in hex. */
  data: string;
}

/** A decoded response. */
export interface DnsResponse {
  id: number;
  /** RCODE: 0 NOERROR, 3 NXDOMAIN, … */
  rcode: number;
  /** AA: the server is authoritative for the name. */
  authoritative: boolean;
  answers: DnsRecord[];
}

/** The query message: header (RD set) and one question of class IN. */
export function encodeDnsQuery(id: number, name: string, type: number): Uint8Array {
  const labels = name.replace(/\.$/, "").split(".");
  const out: number[] = [id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
  for (const label of labels) {
    const bytes = new TextEncoder().encode(label);
    if (bytes.length === 0 || bytes.length > 63) throw new Error(`bad DNS name ${name}`);
    out.push(bytes.length, ...bytes);
  }
  out.push(0, type >> 8, type & 0xff, 0, 1);
  return new Uint8Array(out);
}

/** Decodes a response message (header, skipped questions, answer records). */
export function decodeDnsResponse(msg: Uint8Array): DnsResponse {
  const view = new DataView(msg.buffer, msg.byteOffset, msg.byteLength);
  const u16 = (at: number) => {
    if (at + 2 > msg.length) throw new Error("truncated DNS message");
    return view.getUint16(at);
  };
  // A (possibly compressed) name at `at`: the name and the offset after it.
  const readName = (start: number): [string, number] => {
    const labels: string[] = [];
    let at = start;
    let end = -1;
    for (let jumps = 0;;) {
      if (at >= msg.length) throw new Error("truncated DNS name");
      const len = msg[at];
      if (len === 0) {
        if (end < 0) end = at + 1;
        break;
      }
      if ((len & 0xc0) === 0xc0) {
        if (++jumps > 32) throw new Error("DNS name compression loop");
        if (end < 0) end = at + 2;
        at = u16(at) & 0x3fff;
        continue;
      }
      labels.push(new TextDecoder().decode(msg.subarray(at + 1, at + 1 + len)));
      at += 1 + len;
    }
    return [labels.join("."), end];
  };
  const flags = u16(2);
  const questions = u16(4);
  const answerCount = u16(6);
  let at = 12;
  for (let i = 0; i < questions; i++) at = readName(at)[1] + 4;
  const answers: DnsRecord[] = [];
  for (let i = 0; i < answerCount; i++) {
    const [name, next] = readName(at);
    const type = u16(next);
    const ttl = view.getUint32(next + 4);
    const length = u16(next + 8);
    const rdata = msg.subarray(next + 10, next + 10 + length);
    if (rdata.length !== length) throw new Error("truncated DNS record");
    const data = type === DNS_TYPES.A && length === 4
      ? [...rdata].join(".")
      : type === DNS_TYPES.PTR
      ? readName(next + 10)[0]
      : [...rdata].map((b) => b.toString(16).padStart(2, "0")).join("");
    answers.push({ name, type, ttl, data });
    at = next + 10 + length;
  }
  return {
    id: u16(0),
    rcode: flags & 0x0f,
    authoritative: (flags & 0x0400) !== 0,
    answers,
  };
}

/**
 * Asks `server` (IPv4, port 53) one question over UDP; resolves with the decoded response,
 * rejects when no answer with the query's ID arrives within `timeoutMs`.
 */
export function queryDns(
  server: string,
  name: string,
  type: number,
  timeoutMs = 5_000,
): Promise<DnsResponse> {
  const id = Math.floor(Math.random() * 0x10000);
  const socket = dgram.createSocket("udp4");
  return new Promise<DnsResponse>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      socket.close();
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no DNS answer from ${server} for ${name} in ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on("error", (e) => {
      done();
      reject(e);
    });
    socket.on("message", (msg: Uint8Array) => {
      try {
        const response = decodeDnsResponse(new Uint8Array(msg));
        if (response.id !== id) return;
        done();
        resolve(response);
      } catch (e) {
        done();
        reject(e);
      }
    });
    socket.send(encodeDnsQuery(id, name, type), 53, server);
  });
}

/**
 * Runs {@link queryDns} inside a node (its network namespace: the node's routes, and the
 * Service rules kube-proxy programmed there) and returns the response.
 */
export async function nodeDnsQuery(
  node: { exec(argv: string[], opts: { timeoutMs: number }): Promise<RunResult> },
  server: string,
  name: string,
  type: keyof typeof DNS_TYPES = "A",
): Promise<DnsResponse> {
  const r = await node.exec([
    Deno.execPath(),
    "run",
    "--no-config",
    "--no-lock",
    "--quiet",
    `--allow-net=0.0.0.0:0,${server}:53`,
    new URL(import.meta.url).pathname,
    server,
    name,
    type,
  ], { timeoutMs: 30_000 });
  if (r.code !== 0) {
    throw new Error(`DNS query ${name} ${type} @${server} in the node: ${r.stderr}`);
  }
  return JSON.parse(r.stdout);
}

if (import.meta.main) {
  const [server, name, type = "A"] = Deno.args;
  const code = DNS_TYPES[type as keyof typeof DNS_TYPES];
  if (!server || !name || code === undefined) {
    console.error(`usage: dns_query.ts SERVER NAME [${Object.keys(DNS_TYPES).join("|")}]`);
    Deno.exit(2);
  }
  console.log(JSON.stringify(await queryDns(server, name, code)));
}
