/**
 * Typed errors shared by the whole core.
 *
 * Every error a user can see carries what went wrong (`message`), where (`field`: a config
 * path such as `networking.serviceSubnet` or a flag such as `--cert-dir`), the offending value
 * (already redacted when secret) and a hint. The CLI maps `exitCode` to the process exit
 * status the way upstream kubeadm does (1 generic, 2 preflight, 3 validation), plus 4 for
 * `check-expiration --fail-if-expiring-within`.
 *
 * @module
 */

/**
 * Every exit status of the command line, by name: upstream kubeadm's (1 generic, 2 preflight,
 * 3 validation) plus kubeadm-ts's 4. {@link EXIT_STATUS_MEANING} says what each means; the
 * README's table and the fuzzer's set of allowed statuses are read from these two.
 */
export const ExitCode = {
  /** The command did what was asked. */
  success: 0,
  generic: 1,
  preflight: 2,
  validation: 3,
  /** kubeadm-ts only: `certs check-expiration --fail-if-expiring-within` found expiring files. */
  expiring: 4,
} as const;

/**
 * What each exit status means: which failures end with it. The README's exit-status table lists
 * exactly these (a test compares them).
 */
export const EXIT_STATUS_MEANING: Readonly<Record<keyof typeof ExitCode, string>> = {
  success: "The command did what was asked (also `--help` and a bare `kubeadm`).",
  generic:
    "Any other failure: a usage error (unknown command, flag or argument, a flag value that does not parse, a missing sub-command or value), a discovery failure (cluster-info unreachable, unsigned or not matching the CA pins; `discovery-check` rejecting it), a cluster error (an API server call failed), an existing file that cannot be reused, a failed phase.",
  preflight: "A preflight check failed (and was not ignored with `--ignore-preflight-errors`).",
  validation:
    "Invalid configuration: YAML that does not parse, an unknown kind or field, a field or flag value that fails validation (a malformed CA pin, a bad address), `--config` mixed with configuration flags.",
  expiring:
    "`certs check-expiration --fail-if-expiring-within` found a certificate expiring within the window (beyond upstream).",
};

/** Every exit status the command line may end with, ascending. */
export function exitStatuses(): number[] {
  return [...new Set(Object.values(ExitCode))].sort((a, b) => a - b);
}

/** Options common to every {@link KubeadmError}. */
export interface KubeadmErrorOptions {
  /** Config path (`networking.podSubnet`) or flag (`--cert-dir`) the error is about. */
  field?: string;
  /** The bad value, already redacted if it is secret. */
  value?: string;
  /** What the user can do about it. */
  hint?: string;
  /** The underlying error. */
  cause?: unknown;
}

/** Base class for every error the core raises on purpose. */
export class KubeadmError extends Error {
  /** Stable machine-readable code, e.g. `ERR_VALIDATION`. */
  readonly code: string = "ERR_KUBEADM";
  /** Process exit status the CLI should use. */
  readonly exitCode: number = ExitCode.generic;
  /** Config path or flag the error is about. */
  readonly field?: string;
  /** The bad value, redacted if it is secret. */
  readonly value?: string;
  /** What the user can do about it. */
  readonly hint?: string;

  /** An error with kubeadm's message and what it is about. */
  constructor(message: string, options: KubeadmErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.field = options.field;
    this.value = options.value;
    this.hint = options.hint;
  }
}

/** One problem found while validating a configuration. */
export interface FieldError {
  /** Config path of the bad field, e.g. `networking.serviceSubnet`. */
  field: string;
  /** The bad value as text (redacted when secret). */
  value?: string;
  /** What is wrong, in kubeadm's words where upstream has them. */
  detail: string;
  /**
   * `value` is JSON of a map or list, printed as is (Go's field.Error renders such values as
   * JSON, strings quoted).
   */
  jsonValue?: boolean;
}

/** Renders one field error the way upstream's field.Error does: `field: Invalid value: "v": detail`. */
export function formatFieldError(e: FieldError): string {
  if (e.value === undefined) return `${e.field}: ${e.detail}`;
  return `${e.field}: Invalid value: ${
    e.jsonValue ? e.value : JSON.stringify(e.value)
  }: ${e.detail}`;
}

/** Aggregate of field errors from config validation (exit status 3, as upstream). */
export class ValidationError extends KubeadmError {
  override readonly code = "ERR_VALIDATION";
  override readonly exitCode = ExitCode.validation;
  readonly errors: readonly FieldError[];

  constructor(errors: FieldError[], options: KubeadmErrorOptions = {}) {
    super(
      errors.length === 1
        ? formatFieldError(errors[0])
        : `[${errors.map(formatFieldError).join(", ")}]`,
      { field: errors[0]?.field, value: errors[0]?.value, ...options },
    );
    this.errors = errors;
  }
}

/** A malformed configuration document: bad YAML, missing kind, unknown kind or field. */
export class ConfigError extends KubeadmError {
  override readonly code: string = "ERR_CONFIG";
  override readonly exitCode: number = ExitCode.validation;
}

/** A bad command-line flag or argument. */
export class FlagError extends KubeadmError {
  override readonly code = "ERR_FLAG";
  override readonly exitCode = ExitCode.validation;
}

/**
 * A value that does not parse (a feature-gate list, a duration), worded as upstream's plain Go
 * error. Its `name` is `Error`: callers embed it in their own messages (`invalid argument ...
 * for "--feature-gates" flag: <this>`), and on its own it reads like any other failure.
 */
export class ValueError extends KubeadmError {
  override readonly code = "ERR_VALUE";

  constructor(message: string, options: KubeadmErrorOptions = {}) {
    super(message, options);
    this.name = "Error";
  }
}

/** Existing files on disk that kubeadm cannot reuse (wrong CA, not a CA, bad key). */
export class ExistingFileError extends KubeadmError {
  override readonly code = "ERR_EXISTING_FILE";
}

/** A PKI operation failed (bad PEM, unsupported key, signature does not verify). */
export class PkiError extends KubeadmError {
  /** `ERR_PKI`, or a more specific code of a subclass. */
  override readonly code: string = "ERR_PKI";
}

/**
 * The run's crypto port has no implementation of an algorithm the input needs (RSA in the
 * WebAssembly component, whose crypto is pure JavaScript).
 */
export class UnsupportedAlgorithmError extends PkiError {
  /** `ERR_UNSUPPORTED_ALGORITHM`. */
  override readonly code = "ERR_UNSUPPORTED_ALGORITHM";
}

/** One or more preflight checks failed (exit status 2, as upstream). */
export class PreflightError extends KubeadmError {
  override readonly code = "ERR_PREFLIGHT";
  override readonly exitCode = ExitCode.preflight;
}

/** The Kubernetes object an API call was about, for error messages (`ConfigMap kube-system/x`). */
export interface ApiObjectRef {
  kind: string;
  namespace?: string;
  name?: string;
}

/** Options of an {@link ApiError}. */
interface ApiErrorOptions extends KubeadmErrorOptions {
  /** HTTP status code; `0` when no response arrived (connection or TLS failure, timeout). */
  status: number;
  /**
   * The server's `Status.reason` (`AlreadyExists`, `Forbidden`, `NotFound`, `Conflict`,
   * `Invalid`, ...), or for transport failures one of `ConnectionRefused`, `ConnectionReset`,
   * `Timeout`, `UnknownAuthority`, `HostnameMismatch`, `CertificateRequired`, `ConnectionFailed`.
   */
  reason: string;
  /** The object the call was about. */
  object?: ApiObjectRef;
  /** The delay the server asked for before a retry (its `Retry-After`), in milliseconds. */
  retryAfterMs?: number;
}

/** A Kubernetes API call failed: an error status from the server or a transport failure. */
export class ApiError extends KubeadmError {
  override readonly code = "ERR_API";
  /** HTTP status code; `0` when no response arrived. */
  readonly status: number;
  /** Machine-readable reason (server `Status.reason` or a transport reason). */
  readonly reason: string;
  /** The object the call was about. */
  readonly object?: ApiObjectRef;
  /**
   * The delay the server asked for before a retry (a 429 or 5xx with a `Retry-After` in
   * seconds), in milliseconds; absent when it asked for none.
   */
  readonly retryAfterMs?: number;

  constructor(message: string, options: ApiErrorOptions) {
    super(message, options);
    this.status = options.status;
    this.reason = options.reason;
    this.object = options.object;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * Discovery could not establish trust in the API server (bad or missing JWS signature,
 * unpinned CA, timeout waiting for cluster-info, malformed kubeconfig). Messages are
 * upstream's, e.g. `couldn't validate the identity of the API Server: ...`; they carry the
 * token id at most, never the token secret.
 */
export class DiscoveryError extends KubeadmError {
  override readonly code = "ERR_DISCOVERY";
}

/** A phase failed; wraps the cause as upstream's `error execution phase <name>`. */
export class PhaseError extends KubeadmError {
  override readonly code = "ERR_PHASE";
  override readonly exitCode: number;
  readonly phase: string;

  constructor(phase: string, cause: unknown) {
    super(`error execution phase ${phase}: ${errorMessage(cause)}`, {
      cause,
      hint: cause instanceof KubeadmError ? cause.hint : undefined,
      field: cause instanceof KubeadmError ? cause.field : undefined,
      value: cause instanceof KubeadmError ? cause.value : undefined,
    });
    this.phase = phase;
    this.exitCode = cause instanceof KubeadmError ? cause.exitCode : ExitCode.generic;
  }
}

/** The message of any thrown value. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Replaces secrets in free text: the secret half of bootstrap tokens
 * (`abcdef.0123456789abcdef`), private-key PEM blocks, a certificate key named as such
 * (`--certificate-key`, `certificateKey:`) and a kubeconfig's `client-key-data`.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(/\b([a-z0-9]{6})\.[a-z0-9]{16}\b/g, "$1.<redacted>")
    .replace(
      /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g,
      "-----BEGIN $1PRIVATE KEY-----<redacted>-----END $1PRIVATE KEY-----",
    )
    .replace(/(certificate[-_ ]?key["']?\s*[:= ]\s*["']?)[0-9a-f]{64}\b/gi, "$1<redacted>")
    .replace(/(client-key-data["']?\s*:\s*["']?)[A-Za-z0-9+/=]{8,}/g, "$1<redacted>");
}
