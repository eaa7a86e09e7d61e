/**
 * A small typed REST client for the Kubernetes API over an injected {@link Transport}.
 *
 * It covers what kubeadm needs: get/list/create/update/patch/delete of the kinds in
 * `resources.ts`, the idempotent helpers upstream kubeadm builds on (`createOrUpdate`,
 * `createOrRetain`, `createOrMutate`), and raw GETs of `/healthz`, `/readyz`, `/livez`,
 * `/version`. Transient failures (connection refused/reset, timeouts, 429, 500, 502, 503, 504,
 * etcd timeouts) are retried with exponential backoff until the policy's timeout, which also
 * bounds each attempt (the transport is given the time left; a call cut there reports that
 * deadline as exceeded); other errors surface at once as {@link ApiError}s naming the object
 * (`ConfigMap kube-system/x`) and the server's message. Every call also takes limits of its
 * own (a poll's time left), which bound it retries included.
 *
 * @example
 * ```ts
 * const client = new KubeClient({ server: "https://10.0.0.1:6443", transport });
 * await client.createOrUpdate({
 *   apiVersion: "v1",
 *   kind: "ConfigMap",
 *   metadata: { name: "x", namespace: "kube-system" },
 *   data: { k: "v" },
 * });
 * ```
 *
 * @module
 */
import type { ObjectMeta } from "kubernetes-types/meta/v1.d.ts";
import { KUBERNETES_VERSION } from "../versions.ts";
import { type ApiError, type ApiObjectRef, KubeadmError } from "../errors.ts";
import type { Clock, Sleep } from "../ports/clock.ts";
import { resourceFor, resourcePath } from "./resources.ts";
import { Backoff, DEFAULT_RETRY_POLICY, type RetryPolicy, type Timing } from "./retry.ts";
import {
  apiErrorFromDeadline,
  apiErrorFromResponse,
  apiErrorFromTransport,
  type ApiVerb,
  isAlreadyExists,
  isConflict,
  isNotFound,
  isTransient,
} from "./status.ts";
import { describeCall } from "./describe_call.ts";
import type { Transport, TransportLimits } from "../ports/transport.ts";

/** Any Kubernetes object (the shape every `kubernetes-types` object satisfies). */
export interface KubeObject {
  /** `v1`, `apps/v1`, ... */
  apiVersion?: string;
  /** `ConfigMap`, `Secret`, ... */
  kind?: string;
  /** Name, namespace, labels, annotations. */
  metadata?: ObjectMeta;
}

/** Names one object. `apiVersion` defaults to the kind's entry in the resource table. */
export interface ObjectRef {
  kind: string;
  apiVersion?: string;
  namespace?: string;
  name: string;
}

/** Patch formats, as `kubectl patch --type`. */
export type PatchType = "strategic" | "merge" | "json";

const PATCH_CONTENT_TYPE: Readonly<Record<PatchType, string>> = {
  strategic: "application/strategic-merge-patch+json",
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
};

/** What an idempotent helper did, and the object as the server returned it. */
export interface ApplyResult<T> {
  action: "created" | "updated" | "retained";
  object: T;
}

/** Filters of {@link KubeClient.list}. */
export interface ListOptions {
  /** Required for namespaced kinds. */
  namespace?: string;
  /** e.g. `k8s-app=kube-dns`. */
  labelSelector?: string;
  /** e.g. `type=bootstrap.kubernetes.io/token`. */
  fieldSelector?: string;
}

/** Options of {@link KubeClient.delete}. */
export interface DeleteOptions {
  /** Precondition: only delete the object with this UID. */
  uid?: string;
  /** Precondition: only delete at this resourceVersion. */
  resourceVersion?: string;
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
}

/** A raw response of a non-resource endpoint. */
export interface RawResponse {
  status: number;
  body: string;
}

/** The `/version` document. */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit?: string;
  platform?: string;
  [key: string]: unknown;
}

/** Options of a {@link KubeClient}. */
interface KubeClientOptions {
  /** Base URL, e.g. `https://10.0.0.1:6443`. */
  server: string;
  transport: Transport;
  /** The time retries and deadlines follow. */
  clock: Clock;
  /** How retries wait. */
  sleep: Sleep;
  /** Overrides of {@link DEFAULT_RETRY_POLICY}. */
  retry?: Partial<RetryPolicy>;
  /** `User-Agent` header (default {@link DEFAULT_USER_AGENT}). */
  userAgent?: string;
}

/**
 * The default `User-Agent`. The API server names the field manager of every object a request
 * writes after the agent's product (up to the first `/`): `kubeadm`, as upstream's objects.
 */
const DEFAULT_USER_AGENT = `kubeadm/${KUBERNETES_VERSION} (kubeadm-ts)`;

interface SendOptions {
  verb: ApiVerb;
  object?: ApiObjectRef;
  body?: unknown;
  contentType?: string;
  backoff: Backoff;
}

/**
 * The delay before the retry a response asks for, as client-go reads it (`checkWait`): a 429 or
 * 5xx with a `Retry-After` of whole seconds (Go's `strconv.Atoi`: an HTTP date or a fraction is
 * no request; a negative wait is none); `undefined` when the response asks for no retry.
 */
export function serverRetryDelayMs(status: number, retryAfter: string | null): number | undefined {
  if (status !== 429 && status < 500) return undefined;
  if (retryAfter === null || !/^[+-]?[0-9]+$/.test(retryAfter)) return undefined;
  return Math.max(0, Number(retryAfter) * 1000);
}

/**
 * What client-go makes of a GET whose connection was reset or closed before the answer
 * (`IsConnectionReset`, `IsProbableEOF`): a retry 1s later, as if the server had asked for it.
 */
const RESET_GET_RETRY_MS = 1000;

/** The {@link ObjectRef} of an object (kind, namespace, name) or an error naming what lacks. */
function refOf(obj: KubeObject): ObjectRef {
  if (!obj.kind) throw new KubeadmError("object has no kind");
  const name = obj.metadata?.name;
  if (!name) throw new KubeadmError(`${obj.kind} object has no metadata.name`);
  return { kind: obj.kind, apiVersion: obj.apiVersion, namespace: obj.metadata?.namespace, name };
}

function objectRef(ref: ObjectRef): ApiObjectRef {
  const info = resourceFor(ref.kind, ref.apiVersion);
  return { kind: ref.kind, namespace: info.namespaced ? ref.namespace : undefined, name: ref.name };
}

/** A Kubernetes API client bound to one server and transport. */
export class KubeClient {
  /** Base URL without a trailing slash. */
  readonly server: string;
  /** The retry policy every call uses. */
  readonly retry: Readonly<RetryPolicy>;
  /** Clock and sleep, shared with polling helpers built on this client. */
  readonly timing: Timing;
  readonly #transport: Transport;
  readonly #userAgent: string;

  constructor(options: KubeClientOptions) {
    this.server = options.server.replace(/\/+$/, "");
    this.#transport = options.transport;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.timing = { clock: options.clock, sleep: options.sleep };
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  }

  /** A client on the same server and transport with a different retry policy. */
  withRetry(retry: Partial<RetryPolicy>): KubeClient {
    return new KubeClient({
      server: this.server,
      transport: this.#transport,
      clock: this.timing.clock,
      sleep: this.timing.sleep,
      retry: { ...this.retry, ...retry },
      userAgent: this.#userAgent,
    });
  }

  #backoff(limits: TransportLimits | undefined): Backoff {
    return new Backoff(this.retry, this.timing, limits);
  }

  async #send(method: string, path: string, o: SendOptions): Promise<string> {
    const exchange = this.#transport.exchange;
    for (;;) {
      const body = o.body === undefined ? undefined : JSON.stringify(o.body);
      let error: ApiError;
      /** The retry the server asked for (or client-go would make), its delay. */
      let asked: number | undefined;
      // No attempt outlives the call's deadline: each gets the time left before it.
      const limits = o.backoff.attemptLimits();
      try {
        if (exchange) {
          const res = await exchange(method, this.server + path, body, limits);
          if (res.status >= 200 && res.status < 300) return res.body;
          error = apiErrorFromResponse(res.status, res.body, o.verb, o.object);
        } else {
          const headers = new Headers({
            "Accept": "application/json",
            "User-Agent": this.#userAgent,
          });
          if (body !== undefined) headers.set("Content-Type", o.contentType ?? "application/json");
          const res = await this.#transport(
            new Request(this.server + path, { method, headers, body }),
            limits,
          );
          const text = await res.text();
          if (res.ok) return text;
          asked = serverRetryDelayMs(res.status, res.headers.get("Retry-After"));
          error = apiErrorFromResponse(res.status, text, o.verb, o.object, asked);
        }
      } catch (e) {
        error = apiErrorFromTransport(e, o.verb, o.object);
        if (method === "GET" && error.reason === "ConnectionReset") asked = RESET_GET_RETRY_MS;
      }
      // What the server asks for is retried as client-go's request retries it (its delay
      // exactly, up to 10 times, past the policy's window for new attempts); once those
      // retries are used up, and for other failures, as kubeadm's polls retry: transient
      // failures with the policy's backoff, never sooner than the server asked.
      const retried = asked !== undefined && o.backoff.serverRetriesLeft
        ? await o.backoff.waitForServer(asked)
        : isTransient(error) && await o.backoff.wait(asked);
      if (retried) continue;
      const deadlineMs = o.backoff.expiredDuringAttempt();
      if (error.status === 0 && error.reason === "Timeout" && deadlineMs !== undefined) {
        const call = describeCall(method, this.server + path);
        throw apiErrorFromDeadline(error, call, deadlineMs, o.verb, o.object);
      }
      throw error;
    }
  }

  async #json<T>(method: string, path: string, o: SendOptions): Promise<T> {
    const text = await this.#send(method, path, o);
    try {
      return (text ? JSON.parse(text) : {}) as T;
    } catch (e) {
      throw new KubeadmError(`the API server sent a response that is not JSON for ${path}`, {
        cause: e,
      });
    }
  }

  #path(ref: ObjectRef, withName = true): string {
    const info = resourceFor(ref.kind, ref.apiVersion);
    return resourcePath(info, ref.namespace, withName ? ref.name : undefined);
  }

  #stamp<T extends KubeObject>(obj: T): T {
    const info = resourceFor(obj.kind ?? "", obj.apiVersion);
    return { ...obj, apiVersion: obj.apiVersion ?? info.apiVersion };
  }

  #get<T>(ref: ObjectRef, backoff: Backoff): Promise<T> {
    return this.#json<T>("GET", this.#path(ref), {
      verb: "get",
      object: objectRef(ref),
      backoff,
    });
  }

  #create<T extends KubeObject>(obj: T, backoff: Backoff): Promise<T> {
    const ref = refOf(obj);
    return this.#json<T>("POST", this.#path(ref, false), {
      verb: "create",
      object: objectRef(ref),
      body: this.#stamp(obj),
      backoff,
    });
  }

  #update<T extends KubeObject>(obj: T, backoff: Backoff): Promise<T> {
    const ref = refOf(obj);
    return this.#json<T>("PUT", this.#path(ref), {
      verb: "update",
      object: objectRef(ref),
      body: this.#stamp(obj),
      backoff,
    });
  }

  /**
   * Reads one object; throws an `ApiError` (404 NotFound) when it does not exist. `limits`,
   * here and on every call, bound this one call (retries included), e.g. a poll's
   * `PollWindow.limits()`.
   */
  async get<T extends KubeObject>(ref: ObjectRef, limits?: TransportLimits): Promise<T> {
    return await this.#get<T>(ref, this.#backoff(limits));
  }

  /** Reads one object, or `undefined` when it does not exist. */
  async tryGet<T extends KubeObject>(
    ref: ObjectRef,
    limits?: TransportLimits,
  ): Promise<T | undefined> {
    try {
      return await this.get<T>(ref, limits);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** Lists objects of a kind (in a namespace for namespaced kinds). */
  async list<T extends KubeObject>(
    kind: string,
    options: ListOptions = {},
    limits?: TransportLimits,
  ): Promise<T[]> {
    const info = resourceFor(kind);
    const query = new URLSearchParams();
    if (options.labelSelector) query.set("labelSelector", options.labelSelector);
    if (options.fieldSelector) query.set("fieldSelector", options.fieldSelector);
    const qs = query.toString();
    const path = resourcePath(info, options.namespace) + (qs ? `?${qs}` : "");
    const list = await this.#json<{ items?: T[] | null }>("GET", path, {
      verb: "list",
      object: { kind, namespace: info.namespaced ? options.namespace : undefined },
      backoff: this.#backoff(limits),
    });
    return (list.items ?? []).map((item) => ({ kind, apiVersion: info.apiVersion, ...item }));
  }

  /** Creates an object; throws an `ApiError` (409 AlreadyExists) when it exists. */
  async create<T extends KubeObject>(obj: T, limits?: TransportLimits): Promise<T> {
    return await this.#create(obj, this.#backoff(limits));
  }

  /** Replaces an object (PUT). A set `metadata.resourceVersion` makes it conditional. */
  async update<T extends KubeObject>(obj: T, limits?: TransportLimits): Promise<T> {
    return await this.#update(obj, this.#backoff(limits));
  }

  /**
   * Replaces a subresource of an object (PUT `<object>/<subresource>`), e.g. a
   * CertificateSigningRequest's `approval`. A set `metadata.resourceVersion` makes it
   * conditional.
   */
  async updateSubresource<T extends KubeObject>(
    obj: T,
    subresource: string,
    limits?: TransportLimits,
  ): Promise<T> {
    const ref = refOf(obj);
    return await this.#json<T>("PUT", `${this.#path(ref)}/${subresource}`, {
      verb: "update",
      object: objectRef(ref),
      body: this.#stamp(obj),
      backoff: this.#backoff(limits),
    });
  }

  /** Patches an object with a strategic-merge, JSON-merge or JSON patch. */
  async patch<T extends KubeObject>(
    ref: ObjectRef,
    patch: unknown,
    type: PatchType,
    limits?: TransportLimits,
  ): Promise<T> {
    return await this.#json<T>("PATCH", this.#path(ref), {
      verb: "patch",
      object: objectRef(ref),
      body: patch,
      contentType: PATCH_CONTENT_TYPE[type],
      backoff: this.#backoff(limits),
    });
  }

  /** Deletes an object, optionally with UID/resourceVersion preconditions. */
  async delete(
    ref: ObjectRef,
    options: DeleteOptions = {},
    limits?: TransportLimits,
  ): Promise<void> {
    const preconditions: Record<string, string> = {};
    if (options.uid) preconditions.uid = options.uid;
    if (options.resourceVersion) preconditions.resourceVersion = options.resourceVersion;
    const body: Record<string, unknown> = { apiVersion: "v1", kind: "DeleteOptions" };
    if (Object.keys(preconditions).length > 0) body.preconditions = preconditions;
    if (options.propagationPolicy) body.propagationPolicy = options.propagationPolicy;
    await this.#send("DELETE", this.#path(ref), {
      verb: "delete",
      object: objectRef(ref),
      body,
      backoff: this.#backoff(limits),
    });
  }

  /**
   * Creates the object, or when it exists replaces it with the server's current
   * resourceVersion; a Conflict (concurrent change) re-reads and retries until the timeout.
   */
  async createOrUpdate<T extends KubeObject>(obj: T): Promise<ApplyResult<T>> {
    return await this.createOrMutate(obj, () => structuredClone(obj));
  }

  /**
   * Creates the object, or when it exists reads the current one, calls `mutate` on it (which
   * may change it in place or return a replacement) and writes it back with its
   * resourceVersion. Conflicts re-read and retry until the timeout.
   */
  async createOrMutate<T extends KubeObject>(
    obj: T,
    mutate: (current: T) => T | void,
  ): Promise<ApplyResult<T>> {
    const ref = refOf(obj);
    const backoff = this.#backoff(undefined);
    for (;;) {
      try {
        return { action: "created", object: await this.#create(obj, backoff) };
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      for (;;) {
        try {
          const current = await this.#get<T>(ref, backoff);
          const resourceVersion = current.metadata?.resourceVersion;
          const draft = structuredClone(current);
          const next = mutate(draft) ?? draft;
          const toWrite = {
            ...next,
            metadata: { ...next.metadata, resourceVersion },
          } as T;
          return { action: "updated", object: await this.#update(toWrite, backoff) };
        } catch (e) {
          if (isConflict(e) && await backoff.wait()) continue;
          if (isNotFound(e) && await backoff.wait()) break; // deleted meanwhile: create again
          throw e;
        }
      }
    }
  }

  /**
   * {@link createOrUpdate} of objects that do not depend on each other, all at once (one round
   * trip's wait instead of one each). After every write has settled, the first failure in the
   * list's order is thrown, so the error is the one the same writes in sequence would report.
   */
  async createOrUpdateAll(objects: readonly KubeObject[]): Promise<void> {
    await settledInOrder(objects.map((o) => this.createOrUpdate(o)));
  }

  /** Creates the object unless it exists; an existing object is left untouched. */
  async createOrRetain<T extends KubeObject>(obj: T): Promise<ApplyResult<T>> {
    const ref = refOf(obj);
    const backoff = this.#backoff(undefined);
    for (;;) {
      try {
        return { action: "retained", object: await this.#get<T>(ref, backoff) };
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      try {
        return { action: "created", object: await this.#create(obj, backoff) };
      } catch (e) {
        if (!(isAlreadyExists(e) && await backoff.wait())) throw e;
      }
    }
  }

  /**
   * One GET of a non-resource path (`/healthz`, `/readyz`, `/livez`, `/version`, ...). Error
   * statuses are returned, not thrown; transport failures throw an `ApiError` (status 0).
   * No retries: callers poll (and bound it with `limits`).
   */
  async getRaw(path: string, limits?: TransportLimits): Promise<RawResponse> {
    const request = new Request(this.server + path, {
      method: "GET",
      headers: { "Accept": "application/json, */*", "User-Agent": this.#userAgent },
    });
    let res: Response;
    try {
      res = await this.#transport(request, limits);
    } catch (e) {
      throw apiErrorFromTransport(e, "get", { kind: "endpoint", name: path });
    }
    return { status: res.status, body: await res.text() };
  }

  /** Whether `/healthz`, `/readyz` or `/livez` answers 200 `ok`. */
  async healthy(
    endpoint: "healthz" | "readyz" | "livez",
    limits?: TransportLimits,
  ): Promise<boolean> {
    const r = await this.getRaw(`/${endpoint}`, limits);
    return r.status === 200 && r.body.trim() === "ok";
  }

  /** The server's `/version` (retried like any call). */
  async version(limits?: TransportLimits): Promise<VersionInfo> {
    return await this.#json<VersionInfo>("GET", "/version", {
      verb: "get",
      object: { kind: "endpoint", name: "/version" },
      backoff: this.#backoff(limits),
    });
  }
}

/**
 * Waits for every one of `writes` (started together) to settle, then throws the first failure
 * in their order: concurrent writes that report the error sequential ones would.
 */
export async function settledInOrder(writes: readonly Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(writes)).find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}
