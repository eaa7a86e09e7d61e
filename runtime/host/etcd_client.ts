/**
 * An etcd v3 cluster client over etcd's HTTP/JSON gateway (`POST /v3/cluster/member/list`,
 * `/v3/cluster/member/remove`) with client-certificate TLS, trying the endpoints in order.
 *
 * Like upstream's etcd client, calls are retried every 500 ms until the etcd API timeout
 * (default 2 minutes) while etcd answers "unavailable" (e.g. `etcdserver: unhealthy cluster`
 * right after a member started) or no endpoint answers.
 *
 * Member IDs are uint64 and travel as decimal strings in the gateway's JSON; they are kept as
 * strings here.
 *
 * @module
 */
import {
  type EtcdClusterClient,
  type EtcdMember,
  EtcdMemberNotFound,
} from "../../core/phases/reset/host.ts";
import type { TlsClientMaterial } from "../../core/preflight/host.ts";
import { errorMessage } from "../../core/errors.ts";

interface GatewayMember {
  ID?: string | number;
  name?: string;
  peerURLs?: string[];
  clientURLs?: string[];
}

function toMember(m: GatewayMember): EtcdMember {
  return {
    id: String(m.ID ?? ""),
    name: m.name ?? "",
    peerURLs: m.peerURLs ?? [],
    clientURLs: m.clientURLs ?? [],
  };
}

/** The gateway's error code for "not found" (gRPC code 5). */
const GRPC_NOT_FOUND = 5;
/** gRPC "unavailable" (14), as the gateway reports an unhealthy cluster or a lost leader. */
const GRPC_UNAVAILABLE = 14;
const RETRY_INTERVAL_MS = 500;
const UNREACHABLE_GRACE_MS = 10_000;

/** An {@link EtcdClusterClient} over HTTPS. */
export class HttpEtcdClient implements EtcdClusterClient {
  readonly endpoints: readonly string[];
  readonly #tls: TlsClientMaterial;
  readonly #timeoutMs: number;
  readonly #retryForMs: number;

  /**
   * @param timeoutMs per request
   * @param retryForMs how long transient failures are retried (upstream's etcdAPICall, 2m)
   */
  constructor(
    endpoints: readonly string[],
    tls: TlsClientMaterial,
    timeoutMs = 10_000,
    retryForMs = 120_000,
  ) {
    if (endpoints.length === 0) throw new Error("no etcd endpoints");
    this.endpoints = endpoints;
    this.#tls = tls;
    this.#timeoutMs = timeoutMs;
    this.#retryForMs = retryForMs;
  }

  async #call(path: string, body: unknown): Promise<Record<string, unknown>> {
    const start = Date.now();
    for (;;) {
      try {
        return await this.#post(path, body);
      } catch (e) {
        const kind = (e as { transient?: "unavailable" | "unreachable" }).transient;
        // An unhealthy cluster gets the whole etcd API timeout; unreachable endpoints (etcd not
        // running) only a short grace period, so reset does not hang on a dead node.
        const limit = kind === "unavailable"
          ? this.#retryForMs
          : kind === "unreachable"
          ? Math.min(this.#retryForMs, UNREACHABLE_GRACE_MS)
          : 0;
        if (Date.now() + RETRY_INTERVAL_MS > start + limit) throw e;
      }
      await new Promise((r) => setTimeout(r, RETRY_INTERVAL_MS));
    }
  }

  async #post(path: string, body: unknown): Promise<Record<string, unknown>> {
    const client = Deno.createHttpClient({
      caCerts: this.#tls.caPem ? [this.#tls.caPem] : undefined,
      ...(this.#tls.certPem && this.#tls.keyPem
        ? { cert: this.#tls.certPem, key: this.#tls.keyPem }
        : {}),
    });
    const failures: string[] = [];
    try {
      for (const endpoint of this.endpoints) {
        const url = `${endpoint.replace(/\/+$/, "")}${path}`;
        let res: Response;
        try {
          const init = {
            client,
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(this.#timeoutMs),
          };
          res = await fetch(url, init as RequestInit & { client: Deno.HttpClient });
        } catch (e) {
          const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
          failures.push(`${url}: ${errorMessage(cause)}`);
          continue;
        }
        const text = await res.text();
        let json: Record<string, unknown> = {};
        try {
          json = text === "" ? {} : JSON.parse(text);
        } catch {
          json = { message: text };
        }
        if (res.ok) return json;
        const err = new Error(
          `${url}: ${res.status} ${res.statusText}: ${String(json.message ?? json.error ?? text)}`,
        ) as Error & { code?: unknown; transient?: string };
        err.code = json.code;
        if (res.status === 503 || json.code === GRPC_UNAVAILABLE) err.transient = "unavailable";
        throw err;
      }
    } finally {
      client.close();
    }
    const err = new Error(`no etcd endpoint answered: ${failures.join("; ")}`) as Error & {
      transient?: string;
    };
    err.transient = "unreachable";
    throw err;
  }

  async listMembers(): Promise<EtcdMember[]> {
    const json = await this.#call("/v3/cluster/member/list", {});
    return ((json.members ?? []) as GatewayMember[]).map(toMember);
  }

  async removeMember(id: string): Promise<EtcdMember[]> {
    // The ID is a uint64: send it as a JSON string, which the gateway accepts for 64-bit ints.
    try {
      const json = await this.#call("/v3/cluster/member/remove", { ID: id });
      return ((json.members ?? []) as GatewayMember[]).map(toMember);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (code === GRPC_NOT_FOUND || /member not found/.test(errorMessage(e))) {
        throw new EtcdMemberNotFound(id);
      }
      throw e;
    }
  }
}
