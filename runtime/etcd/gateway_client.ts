/**
 * The {@link EtcdJoinClient} port over etcd's v3 HTTP/JSON gateway (`POST /v3/cluster/member/*`,
 * `/v3/maintenance/status`) with client-certificate TLS, as the Deno CLI uses it when a
 * control-plane node joins stacked etcd. One attempt per call: endpoints are tried in order
 * while they cannot be reached; an answer from etcd (success or error) ends the call. Retrying
 * is the core's business (`core/etcd`).
 *
 * @module
 */
import {
  type EtcdJoinClient,
  type EtcdMemberInfo,
  EtcdRequestError,
} from "../../core/etcd/client.ts";
import { errorMessage } from "../../core/errors.ts";

/** PEM material of the etcd client (CA, client certificate and key). */
export interface EtcdClientTls {
  caPem: string;
  certPem: string;
  /** Secret. */
  keyPem: string;
}

interface GatewayMember {
  ID?: string | number;
  name?: string;
  peerURLs?: string[];
  clientURLs?: string[];
  isLearner?: boolean;
}

function toMember(m: GatewayMember): EtcdMemberInfo {
  return {
    id: String(m.ID ?? ""),
    name: m.name ?? "",
    peerURLs: m.peerURLs ?? [],
    clientURLs: m.clientURLs ?? [],
    isLearner: m.isLearner === true,
  };
}

/** An etcd client over the gateway. */
export class EtcdGatewayClient implements EtcdJoinClient {
  readonly endpoints: readonly string[];
  readonly #tls: EtcdClientTls;
  readonly #timeoutMs: number;

  /** @param timeoutMs per request (upstream's etcd dial/request timeout is 20s) */
  constructor(endpoints: readonly string[], tls: EtcdClientTls, timeoutMs = 20_000) {
    if (endpoints.length === 0) throw new EtcdRequestError("no etcd endpoints");
    this.endpoints = [...endpoints];
    this.#tls = tls;
    this.#timeoutMs = timeoutMs;
  }

  async #post(path: string, body: unknown, only?: string): Promise<Record<string, unknown>> {
    const client = Deno.createHttpClient({
      ...(this.#tls.caPem ? { caCerts: [this.#tls.caPem] } : {}),
      ...(this.#tls.certPem && this.#tls.keyPem
        ? { cert: this.#tls.certPem, key: this.#tls.keyPem }
        : {}),
    });
    const failures: string[] = [];
    try {
      for (const endpoint of only ? [only] : this.endpoints) {
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
        let json: Record<string, unknown>;
        try {
          json = text === "" ? {} : JSON.parse(text);
        } catch {
          json = { message: text };
        }
        if (res.ok) return json;
        throw new EtcdRequestError(
          String(json.message ?? json.error ?? `${res.status} ${res.statusText}`),
          { grpcCode: typeof json.code === "number" ? json.code : undefined },
        );
      }
    } finally {
      client.close();
    }
    throw new EtcdRequestError(`no etcd endpoint answered: ${failures.join("; ")}`, {
      unreachable: true,
    });
  }

  async listMembers(): Promise<EtcdMemberInfo[]> {
    const json = await this.#post("/v3/cluster/member/list", { linearizable: true });
    return ((json.members ?? []) as GatewayMember[]).map(toMember);
  }

  async addMember(
    peerURLs: readonly string[],
    isLearner: boolean,
  ): Promise<{ member: EtcdMemberInfo; members: EtcdMemberInfo[] }> {
    const json = await this.#post("/v3/cluster/member/add", { peerURLs, isLearner });
    return {
      member: toMember((json.member ?? {}) as GatewayMember),
      members: ((json.members ?? []) as GatewayMember[]).map(toMember),
    };
  }

  async promoteMember(id: string): Promise<EtcdMemberInfo[]> {
    // The ID is a uint64: sent as a JSON string, which the gateway accepts for 64-bit ints.
    const json = await this.#post("/v3/cluster/member/promote", { ID: id });
    return ((json.members ?? []) as GatewayMember[]).map(toMember);
  }

  async status(endpoint: string): Promise<void> {
    const json = await this.#post("/v3/maintenance/status", {}, endpoint);
    const errors = (json.errors ?? []) as string[];
    if (errors.length > 0) throw new EtcdRequestError(errors.join("; "));
  }
}
