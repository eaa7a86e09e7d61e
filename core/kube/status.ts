/**
 * Kubernetes `Status` error responses turned into {@link ApiError}s, and the predicates the
 * idempotency helpers and retry loops branch on (AlreadyExists, Conflict, transient, ...).
 *
 * @module
 */
import type { Status } from "kubernetes-types/meta/v1.d.ts";
import { ApiError, type ApiObjectRef, redactSecrets } from "../errors.ts";
import { formatDuration } from "../text/duration.ts";
import { describeObject } from "./resources.ts";

/** The verb of a failed call, as it appears in messages (`unable to create ...`). */
export type ApiVerb = "get" | "list" | "create" | "update" | "patch" | "delete";

/** Reasons the server uses when it sends no `Status` body, keyed by HTTP status. */
const REASON_BY_CODE: Readonly<Record<number, string>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Expired",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  502: "BadGateway",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** What the user can do about an error status. */
function hintFor(status: number, reason: string): string | undefined {
  switch (status) {
    case 401:
      return "the API server rejected the credentials: check that the kubeconfig's client certificate or token belongs to this cluster and has not expired";
    case 403:
      return "the user in the kubeconfig lacks the RBAC permission for this call";
    case 404:
      return reason === "NotFound" ? "the object does not exist" : undefined;
    case 409:
      return reason === "AlreadyExists"
        ? "the object already exists"
        : "the object was changed concurrently; retry the operation";
    case 422:
      return "the API server rejected the object as invalid; see the message for the offending field";
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
      return "the API server is overloaded or still starting; retry later";
  }
  return undefined;
}

function isStatus(v: unknown): v is Status {
  return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "Status";
}

/**
 * Builds the error for a non-2xx response. The message names the verb and the object and
 * carries the server's `Status.message` (redacted of bootstrap-token secrets).
 */
export function apiErrorFromResponse(
  status: number,
  bodyText: string,
  verb: ApiVerb,
  object?: ApiObjectRef,
  retryAfterMs?: number,
): ApiError {
  let parsed: unknown;
  try {
    parsed = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    parsed = undefined;
  }
  const st = isStatus(parsed) ? parsed : undefined;
  const reason = st?.reason || REASON_BY_CODE[status] || "Unknown";
  const serverMessage = st?.message?.trim() ||
    (bodyText && !st ? bodyText.trim().slice(0, 300) : "") ||
    `the server responded with HTTP ${status}`;
  const what = object ? describeObject(object.kind, object.namespace, object.name) : "object";
  return new ApiError(
    redactSecrets(`unable to ${verb} ${what}: ${serverMessage}`),
    { status, reason, object, hint: hintFor(status, reason), retryAfterMs },
  );
}

/** Re-labels a transport failure (status 0) with the verb and object of the call. */
export function apiErrorFromTransport(
  cause: unknown,
  verb: ApiVerb,
  object?: ApiObjectRef,
): ApiError {
  const what = object ? describeObject(object.kind, object.namespace, object.name) : "object";
  if (cause instanceof ApiError) {
    return new ApiError(`unable to ${verb} ${what}: ${cause.message}`, {
      status: cause.status,
      reason: cause.reason,
      object,
      hint: cause.hint,
      cause,
    });
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return new ApiError(`unable to ${verb} ${what}: ${message}`, {
    status: 0,
    reason: "ConnectionFailed",
    object,
    cause,
  });
}

/**
 * The error of a call whose deadline passed before an answer came (its last attempt was cut
 * at the deadline): Go's `context deadline exceeded`, naming that deadline rather than the
 * time the last attempt happened to have left.
 */
export function apiErrorFromDeadline(
  last: ApiError,
  call: string,
  timeoutMs: number,
  verb: ApiVerb,
  object?: ApiObjectRef,
): ApiError {
  const what = object ? describeObject(object.kind, object.namespace, object.name) : "object";
  return new ApiError(
    `unable to ${verb} ${what}: ${call}: context deadline exceeded (no complete response ` +
      `within the call's deadline of ${formatDuration(timeoutMs)}, counted from its first attempt)`,
    { status: 0, reason: "Timeout", object, hint: last.hint, cause: last },
  );
}

function hasReason(e: unknown, status: number, reason?: string): boolean {
  return e instanceof ApiError && e.status === status &&
    (reason === undefined || e.reason === reason);
}

/** 404 NotFound. */
export function isNotFound(e: unknown): boolean {
  return hasReason(e, 404);
}

/** 409 AlreadyExists (a create of an existing object). */
export function isAlreadyExists(e: unknown): boolean {
  return hasReason(e, 409, "AlreadyExists");
}

/** 409 Conflict (an update with a stale resourceVersion). */
export function isConflict(e: unknown): boolean {
  return e instanceof ApiError && e.status === 409 && e.reason !== "AlreadyExists";
}

/** 403 Forbidden. */
export function isForbidden(e: unknown): boolean {
  return hasReason(e, 403);
}

/** 401 Unauthorized. */
export function isUnauthorized(e: unknown): boolean {
  return hasReason(e, 401);
}

/** 422 Invalid. */
export function isInvalid(e: unknown): boolean {
  return hasReason(e, 422);
}

/** Transport reasons that are worth retrying (the server may simply not be up yet). */
const TRANSIENT_TRANSPORT_REASONS = new Set([
  "ConnectionRefused",
  "ConnectionReset",
  "Timeout",
  "ConnectionFailed",
]);

/**
 * A transport failure no retry can cure: the connection was made but TLS failed (the server's
 * certificate is not trusted or not valid for the name, the client certificate was rejected).
 * Retry loops that otherwise retry every error (upstream's polls) stop at these.
 */
export function isUnrecoverableTransportError(e: unknown): boolean {
  return e instanceof ApiError && e.status === 0 && !TRANSIENT_TRANSPORT_REASONS.has(e.reason);
}

/** Server messages that mean "etcd hiccup, try again". */
const TRANSIENT_MESSAGES = [
  "etcdserver: request timed out",
  "etcdserver: leader changed",
  "etcdserver: too many requests",
];

/**
 * True for failures that a retry may cure: connection refused/reset, timeouts, HTTP 429, 500,
 * 502, 503, 504, and etcd timeouts relayed by the server. TLS trust failures are not transient.
 */
export function isTransient(e: unknown): boolean {
  if (!(e instanceof ApiError)) return false;
  if (TRANSIENT_MESSAGES.some((m) => e.message.includes(m))) return true;
  if (e.status === 0) return TRANSIENT_TRANSPORT_REASONS.has(e.reason);
  return [429, 500, 502, 503, 504].includes(e.status);
}
