/**
 * The etcd client of the Deno runtime, over etcd's v3 HTTP/JSON gateway
 * (`POST /v3/cluster/member/{list,add,promote,remove}`, `/v3/maintenance/status`) with
 * client-certificate TLS through the Deno adapters' one transport factory (trusting exactly the
 * etcd CA; the etcd client certificates: `apiserver-etcd-client` or `etcd/healthcheck-client`). It
 * implements the core's {@link EtcdClient} port: a control-plane node joining stacked etcd
 * lists, adds as a learner, promotes and checks status; reset's remove-etcd-member lists and
 * removes.
 *
 * Endpoints are tried in order while they cannot be reached; an answer from etcd (success or
 * error) ends the attempt. By default a call is one attempt (join: retrying is the core's
 * business, `core/etcd`). With `retryForMs`, like upstream's etcd client for reset, calls are
 * retried every 500 ms until then while etcd answers "unavailable" (e.g. `etcdserver:
 * unhealthy cluster` right after a member started), and for a short grace period while no
 * endpoint answers (so reset does not hang on a dead node); that period is also the call's
 * deadline, which bounds every request (each gets at most the time left). A call's own limits
 * (a core poll's time left) bound it the same way. One request may take upstream's 2s
 * (`etcdTimeout`) unless told otherwise.
 *
 * Member IDs are uint64 values and travel as decimal strings in the gateway's JSON; they are
 * kept as strings.
 *
 * @module
 */
import {
  type EtcdClient,
  type EtcdMember,
  EtcdMemberNotFound,
  EtcdRequestError,
} from "../../core/ports/etcd.ts";
import type { TlsClientMaterial } from "../../core/ports/http.ts";
import { ETCD_REQUEST_TIMEOUT_MS } from "../../core/etcd/timing.ts";
import type { TransportLimits } from "../../core/ports/transport.ts";
import { formatDuration } from "../../core/text/duration.ts";
import { transportDetail } from "./transport/errors.ts";
import { faultPoint } from "./fault_injection.ts";

/** PEM material of the etcd client (CA, client certificate and key). */
export type EtcdClientTls = TlsClientMaterial;

interface GatewayMember {
  ID?: string | number;
  name?: string;
  peerURLs?: string[];
  clientURLs?: string[];
  isLearner?: boolean;
}

function toMember(m: GatewayMember): EtcdMember {
  return {
    id: String(m.ID ?? ""),
    name: m.name ?? "",
    peerURLs: m.peerURLs ?? [],
    clientURLs: m.clientURLs ?? [],
    isLearner: m.isLearner === true,
  };
}

function toMembers(json: Record<string, unknown>): EtcdMember[] {
  return ((json.members ?? []) as GatewayMember[]).map(toMember);
}

/** gRPC "not found" (5), as the gateway reports an unknown member ID. */
const GRPC_NOT_FOUND = 5;
/** gRPC "unavailable" (14), as the gateway reports an unhealthy cluster or a lost leader. */
const GRPC_UNAVAILABLE = 14;
const RETRY_INTERVAL_MS = 500;
const UNREACHABLE_GRACE_MS = 10_000;

/** An etcd client over the gateway (both the join and the reset port). */
export class EtcdGatewayClient implements EtcdClient {
  readonly endpoints: readonly string[];
  readonly #tls: EtcdClientTls;
  readonly #timeoutMs: number;
  readonly #retryForMs: number;

  /**
   * @param timeoutMs per request (default upstream's `etcdTimeout`, 2s: its dial timeout and
   *   the context of each request)
   * @param retryForMs how long transient failures are retried (0: one attempt; reset uses
   *   upstream's etcdAPICall, 2m)
   */
  constructor(
    endpoints: readonly string[],
    tls: EtcdClientTls,
    timeoutMs = ETCD_REQUEST_TIMEOUT_MS,
    retryForMs = 0,
  ) {
    if (endpoints.length === 0) throw new EtcdRequestError("no etcd endpoints");
    this.endpoints = [...endpoints];
    this.#tls = tls;
    this.#timeoutMs = timeoutMs;
    this.#retryForMs = retryForMs;
  }

  async #call(
    path: string,
    body: unknown,
    only: string | undefined,
    limits: TransportLimits | undefined,
  ): Promise<Record<string, unknown>> {
    const start = Date.now();
    // One deadline for the call: the retry period and the caller's limits, whichever ends
    // first; no request runs past it.
    const bounds = [
      ...(this.#retryForMs > 0 ? [this.#retryForMs] : []),
      ...(limits?.timeoutMs !== undefined ? [Math.max(0, limits.timeoutMs)] : []),
    ];
    const deadline = bounds.length > 0
      ? { at: start + Math.min(...bounds), ms: Math.min(...bounds) }
      : undefined;
    for (;;) {
      try {
        return await this.#post(path, body, only, deadline, limits?.maxBodyBytes);
      } catch (e) {
        if (!(e instanceof EtcdRequestError)) throw e;
        // An unhealthy cluster gets the whole retry period; unreachable endpoints (etcd not
        // running) only a short grace period.
        const limit = e.unreachable
          ? Math.min(this.#retryForMs, UNREACHABLE_GRACE_MS)
          : e.grpcCode === GRPC_UNAVAILABLE
          ? this.#retryForMs
          : 0;
        const until = Math.min(start + limit, deadline?.at ?? Infinity);
        if (Date.now() + RETRY_INTERVAL_MS > until) throw e;
      }
      await new Promise((r) => setTimeout(r, RETRY_INTERVAL_MS));
    }
  }

  async #post(
    path: string,
    body: unknown,
    only: string | undefined,
    deadline: { at: number; ms: number } | undefined,
    maxBodyBytes: number | undefined,
  ): Promise<Record<string, unknown>> {
    // The HTTPS stack (node:https) loads with the first request, not with the node's ports.
    const { createDenoTransport } = await import("./transport.ts");
    const t = createDenoTransport({
      server: this.endpoints[0],
      caPem: this.#tls.caPem,
      certPem: this.#tls.certPem,
      keyPem: this.#tls.keyPem,
    }, { timeoutMs: this.#timeoutMs });
    const failures: string[] = [];
    try {
      for (const endpoint of only ? [only] : this.endpoints) {
        const url = `${endpoint.replace(/\/+$/, "")}${path}`;
        const left = deadline === undefined ? undefined : deadline.at - Date.now();
        if (left !== undefined && left <= 0) {
          failures.push(`${url}: not tried, the deadline had passed`);
          continue;
        }
        const request = new Request(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        let res: Response;
        try {
          res = await t.transport(request, { timeoutMs: left, maxBodyBytes });
        } catch (e) {
          failures.push(`${url}: ${transportDetail(e, request)}`);
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
        const grpcCode = typeof json.code === "number"
          ? json.code
          : res.status === 503
          ? GRPC_UNAVAILABLE
          : undefined;
        throw new EtcdRequestError(
          String(json.message ?? json.error ?? `${res.status} ${res.statusText}`),
          { grpcCode },
        );
      }
    } finally {
      t.close();
    }
    const when = deadline !== undefined && Date.now() >= deadline.at
      ? ` within the call's deadline of ${formatDuration(deadline.ms)}`
      : "";
    throw new EtcdRequestError(`no etcd endpoint answered${when}: ${failures.join("; ")}`, {
      unreachable: true,
    });
  }

  async listMembers(limits?: TransportLimits): Promise<EtcdMember[]> {
    const body = { linearizable: true };
    return toMembers(await this.#call("/v3/cluster/member/list", body, undefined, limits));
  }

  async addMember(
    peerURLs: readonly string[],
    isLearner: boolean,
    limits?: TransportLimits,
  ): Promise<{ member: EtcdMember; members: EtcdMember[] }> {
    const body = { peerURLs, isLearner };
    const json = await this.#call("/v3/cluster/member/add", body, undefined, limits);
    faultPoint("etcd:member-add");
    return { member: toMember((json.member ?? {}) as GatewayMember), members: toMembers(json) };
  }

  async promoteMember(id: string, limits?: TransportLimits): Promise<EtcdMember[]> {
    // The ID is a uint64: sent as a JSON string, which the gateway accepts for 64-bit ints.
    const json = await this.#call("/v3/cluster/member/promote", { ID: id }, undefined, limits);
    faultPoint("etcd:member-promote");
    return toMembers(json);
  }

  async removeMember(id: string, limits?: TransportLimits): Promise<EtcdMember[]> {
    try {
      const json = await this.#call("/v3/cluster/member/remove", { ID: id }, undefined, limits);
      faultPoint("etcd:member-remove");
      return toMembers(json);
    } catch (e) {
      if (
        e instanceof EtcdRequestError &&
        (e.grpcCode === GRPC_NOT_FOUND || /member not found/.test(e.message))
      ) {
        throw new EtcdMemberNotFound(id);
      }
      throw e;
    }
  }

  async status(endpoint: string, limits?: TransportLimits): Promise<void> {
    const json = await this.#call("/v3/maintenance/status", {}, endpoint, limits);
    const errors = (json.errors ?? []) as string[];
    if (errors.length > 0) throw new EtcdRequestError(errors.join("; "));
  }
}
