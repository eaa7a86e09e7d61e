/**
 * An in-memory Kubernetes API server behind the core's `Transport` port, for tests of the
 * client and of everything that creates objects in the cluster.
 *
 * It stores objects by resource path, assigns uids and resourceVersions, answers with real
 * `Status` bodies (AlreadyExists, NotFound, Conflict with the apiserver's wording), honours
 * resourceVersion preconditions on PUT, applies merge/strategic patches as JSON merge patches,
 * filters lists by equality label selectors, logs every request, and can inject failures
 * (`failNext`) or run a hook before each request (`onRequest`).
 *
 * @module
 */
import type { Status } from "kubernetes-types/meta/v1.d.ts";
import type { Clock } from "../../core/ports/clock.ts";
import { KubeClient, type KubeObject } from "../../core/kube/client.ts";
import { FakeClock } from "./fake_clock.ts";
import { applyMergePatch } from "../../core/patches/merge_patch.ts";
import {
  parseResourcePath,
  resourceFor,
  type ResourceInfo,
  resourcePath,
} from "../../core/kube/resources.ts";
import type { Transport } from "../../core/ports/transport.ts";

/** One logged request. */
export interface LoggedRequest {
  method: string;
  /** Path without query. */
  path: string;
  query: URLSearchParams;
  headers: Headers;
  /** Parsed JSON body, if any. */
  body?: unknown;
}

/** A failure to inject. */
export interface Fault {
  /** Which requests it applies to. */
  match: (r: LoggedRequest) => boolean;
  /** HTTP status to answer (0 = throw `error` instead). */
  status: number;
  reason?: string;
  message?: string;
  /** Thrown instead of answering when set. */
  error?: unknown;
  /** Extra response headers (e.g. Retry-After). */
  headers?: Record<string, string>;
  /** How many matching requests it affects. */
  times: number;
}

function qualified(info: ResourceInfo): string {
  const group = info.apiVersion.includes("/") ? info.apiVersion.split("/")[0] : "";
  return group ? `${info.plural}.${group}` : info.plural;
}

/** A `Status` failure response. */
export function statusResponse(
  code: number,
  reason: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const body: Status = {
    apiVersion: "v1",
    kind: "Status",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
  };
  return new Response(JSON.stringify(body), {
    status: code,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

function ok(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

/** Matches requests by method and/or kind (and name). */
export function requestMatching(
  method?: string,
  kind?: string,
  name?: string,
): (r: LoggedRequest) => boolean {
  return (r) => {
    if (method && r.method !== method) return false;
    const p = parseResourcePath(r.path);
    if (kind && p?.info.kind !== kind) return false;
    if (name && (p?.name ?? (r.body as KubeObject | undefined)?.metadata?.name) !== name) {
      return false;
    }
    return true;
  };
}

/** The fake API server. */
export class FakeKubeApi {
  /** Stored objects by resource path. */
  readonly objects = new Map<string, KubeObject>();
  /** Every request, in order. */
  readonly requests: LoggedRequest[] = [];
  /** Called before each request is served (may mutate state). */
  onRequest?: (r: LoggedRequest, api: FakeKubeApi) => void | Promise<void>;
  /** Answers of non-resource paths (`/healthz` etc.). */
  readonly raw = new Map<string, { status: number; body: string }>([
    ["/healthz", { status: 200, body: "ok" }],
    ["/readyz", { status: 200, body: "ok" }],
    ["/livez", { status: 200, body: "ok" }],
    ["/version", {
      status: 200,
      body: JSON.stringify({ major: "1", minor: "37", gitVersion: "v1.37.2" }),
    }],
  ]);
  readonly #faults: Fault[] = [];
  #rv = 100;
  #uid = 0;
  readonly #clock?: Clock;

  constructor(options: { clock?: Clock; objects?: KubeObject[] } = {}) {
    this.#clock = options.clock;
    for (const o of options.objects ?? []) this.put(o);
  }

  /** Stores an object as if it existed (assigning uid/resourceVersion when missing). */
  put(obj: KubeObject): KubeObject {
    const info = resourceFor(obj.kind!, obj.apiVersion);
    const stored: KubeObject = {
      ...structuredClone(obj),
      apiVersion: obj.apiVersion ?? info.apiVersion,
      metadata: {
        ...obj.metadata,
        uid: obj.metadata?.uid ?? `uid-${++this.#uid}`,
        resourceVersion: String(++this.#rv),
        creationTimestamp: obj.metadata?.creationTimestamp ??
          (this.#clock?.now() ?? new Date(0)).toISOString().replace(/\.\d{3}Z$/, "Z"),
      },
    };
    this.objects.set(resourcePath(info, obj.metadata?.namespace, obj.metadata?.name), stored);
    return stored;
  }

  /** A stored object, or `undefined`. */
  get<T extends KubeObject = KubeObject>(
    kind: string,
    namespace: string | undefined,
    name: string,
  ): T | undefined {
    const info = resourceFor(kind);
    return this.objects.get(resourcePath(info, namespace, name)) as T | undefined;
  }

  /** Injects a failure for the next `times` matching requests. */
  failNext(fault: Partial<Fault> & Pick<Fault, "match">): void {
    this.#faults.push({ status: 503, times: 1, ...fault });
  }

  /** `METHOD /path` of every request, for sequence assertions. */
  calls(): string[] {
    return this.requests.map((r) => `${r.method} ${r.path}`);
  }

  /** The transport to hand to a `KubeClient`. */
  readonly transport: Transport = async (request) => {
    const url = new URL(request.url);
    const text = request.method === "GET" ? "" : await request.text();
    const logged: LoggedRequest = {
      method: request.method,
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    this.requests.push(logged);
    await this.onRequest?.(logged, this);
    const fault = this.#faults.find((f) => f.times > 0 && f.match(logged));
    if (fault) {
      fault.times--;
      if (fault.error !== undefined) throw fault.error;
      return statusResponse(
        fault.status,
        fault.reason ?? "ServiceUnavailable",
        fault.message ?? "injected failure",
        fault.headers,
      );
    }
    return this.#serve(logged);
  };

  #serve(r: LoggedRequest): Response {
    const parsed = parseResourcePath(r.path);
    if (!parsed) {
      const raw = this.raw.get(r.path);
      return raw
        ? new Response(raw.body, { status: raw.status })
        : new Response("404 page not found", { status: 404 });
    }
    const { info, namespace } = parsed;
    const q = qualified(info);
    const body = r.body as KubeObject | undefined;
    switch (r.method) {
      case "GET": {
        if (parsed.name === undefined) {
          const selector = r.query.get("labelSelector");
          const items = [...this.objects.values()].filter((o) =>
            o.kind === info.kind && (!info.namespaced || o.metadata?.namespace === namespace) &&
            (!selector || selector.split(",").every((t) => {
              const [k, v] = t.split("=");
              return o.metadata?.labels?.[k] === v;
            }))
          );
          return ok(200, {
            apiVersion: info.apiVersion,
            kind: `${info.kind}List`,
            metadata: { resourceVersion: String(this.#rv) },
            items,
          });
        }
        const found = this.objects.get(r.path);
        return found
          ? ok(200, found)
          : statusResponse(404, "NotFound", `${q} "${parsed.name}" not found`);
      }
      case "POST": {
        const name = body?.metadata?.name ?? "";
        const path = resourcePath(info, namespace, name);
        if (this.objects.has(path)) {
          return statusResponse(409, "AlreadyExists", `${q} "${name}" already exists`);
        }
        const rv = body?.metadata?.resourceVersion;
        if (rv && rv !== "0") {
          return statusResponse(
            400,
            "BadRequest",
            "resourceVersion should not be set on objects to be created",
          );
        }
        const { resourceVersion: _drop, ...meta } = body?.metadata ?? {};
        return ok(201, this.put({ ...body, kind: info.kind, metadata: { ...meta, namespace } }));
      }
      case "PUT": {
        const existing = this.objects.get(r.path);
        if (!existing) {
          return statusResponse(404, "NotFound", `${q} "${parsed.name}" not found`);
        }
        const rv = body?.metadata?.resourceVersion;
        if (rv && rv !== "0" && rv !== existing.metadata?.resourceVersion) {
          return statusResponse(
            409,
            "Conflict",
            `Operation cannot be fulfilled on ${q} "${parsed.name}": the object has been modified; please apply your changes to the latest version and try again`,
          );
        }
        return ok(
          200,
          this.put({
            ...body,
            kind: info.kind,
            metadata: {
              ...body?.metadata,
              uid: existing.metadata?.uid,
              creationTimestamp: existing.metadata?.creationTimestamp,
            },
          }),
        );
      }
      case "PATCH": {
        const existing = this.objects.get(r.path);
        if (!existing) {
          return statusResponse(404, "NotFound", `${q} "${parsed.name}" not found`);
        }
        if (r.headers.get("Content-Type") === "application/json-patch+json") {
          return statusResponse(415, "UnsupportedMediaType", "json patch not supported by fake");
        }
        const { resourceVersion: _rv, ...meta } = existing.metadata ?? {};
        return ok(200, this.put(applyMergePatch({ ...existing, metadata: meta }, r.body)));
      }
      case "DELETE": {
        const existing = this.objects.get(r.path);
        if (!existing) {
          return statusResponse(404, "NotFound", `${q} "${parsed.name}" not found`);
        }
        const pre = (r.body as { preconditions?: { uid?: string } } | undefined)?.preconditions;
        if (pre?.uid && pre.uid !== existing.metadata?.uid) {
          return statusResponse(409, "Conflict", `Precondition failed: UID in precondition`);
        }
        this.objects.delete(r.path);
        return ok(200, { apiVersion: "v1", kind: "Status", status: "Success" });
      }
    }
    return statusResponse(405, "MethodNotAllowed", "method not allowed");
  }
}

/**
 * A {@link FakeKubeApi} holding `objects` and a {@link KubeClient} on it, on a fake clock
 * starting at `nowMs`.
 */
export function fakeApiClient(objects: KubeObject[] = [], nowMs?: number): {
  clock: FakeClock;
  api: FakeKubeApi;
  client: KubeClient;
} {
  const clock = new FakeClock(nowMs);
  const api = new FakeKubeApi({ clock, objects });
  const client = new KubeClient({
    server: "https://10.0.0.1:6443",
    transport: api.transport,
    clock,
    sleep: clock.sleep,
  });
  return { clock, api, client };
}
