/**
 * Unary gRPC calls to a container runtime over its Unix socket, on Deno's `node:http2` (loaded
 * on first use, so commands that never talk to the runtime do not pay for it). gRPC over
 * HTTP/2 for unary calls is small: a POST to `/<service>/<method>` with `content-type:
 * application/grpc` and `te: trailers`, one length-prefixed message each way, the status in
 * the trailers (`grpc-status`, `grpc-message`) or, for a call that fails at once, in the
 * response headers ("trailers-only"). This replaces `@grpc/grpc-js`, whose loading alone cost
 * each process that talks to the runtime ~0.12 s of CPU and ~9 MB.
 *
 * Every call has a deadline (connection, request and response included, sent to the runtime
 * as `grpc-timeout`) and every response a size cap; a failed call rejects with a
 * {@link CriCallError} carrying the gRPC status code and Go's `rpc error: code = … desc = …`
 * text, as upstream kubeadm prints it, with grpc-go's words for what the transport itself
 * reports (a refused dial, a deadline, a message over the cap, a stream without a status).
 *
 * @module
 */
import type * as Http2 from "node:http2";
import { criSocketPath } from "./endpoint.ts";

/** The largest response accepted (upstream's CRI client: 16 MiB). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** gRPC status code names, by number. */
const CODE_NAMES = [
  "OK",
  "Canceled",
  "Unknown",
  "InvalidArgument",
  "DeadlineExceeded",
  "NotFound",
  "AlreadyExists",
  "PermissionDenied",
  "ResourceExhausted",
  "FailedPrecondition",
  "Aborted",
  "OutOfRange",
  "Unimplemented",
  "Internal",
  "Unavailable",
  "DataLoss",
  "Unauthenticated",
] as const;

/** A gRPC status code name (`NotFound`, `Unimplemented`, …). */
export type GrpcCode = (typeof CODE_NAMES)[number];

/** A CRI call that ended with a non-OK gRPC status. */
export class CriCallError extends Error {
  /** The status code's name. */
  readonly code: GrpcCode;
  /** The server's (or the transport's) status message. */
  readonly details: string;
  /** `runtime.v1.RuntimeService/Status`. */
  readonly method: string;

  constructor(method: string, code: GrpcCode, details: string) {
    super(`rpc error: code = ${code} desc = ${details}`);
    this.name = "CriCallError";
    this.code = code;
    this.details = details;
    this.method = method;
  }
}

/** Options of {@link CriConnection.open}. */
export interface CriConnectionOptions {
  /** Largest response accepted, in bytes (default {@link MAX_RESPONSE_BYTES}). */
  maxResponseBytes?: number;
}

type Net = typeof import("node:net");
let modules: Promise<{ http2: typeof Http2; net: Net }> | undefined;

function loadHttp2(): Promise<{ http2: typeof Http2; net: Net }> {
  modules ??= Promise.all([import("node:http2"), import("node:net")]).then(([http2, net]) => ({
    http2,
    net,
  }));
  return modules;
}

/** gRPC's code for an HTTP status without a `grpc-status` (grpc-go's `HTTPStatusConvTab`). */
function codeOfHttpStatus(status: number): GrpcCode {
  switch (status) {
    case 400:
      return "Internal";
    case 401:
      return "Unauthenticated";
    case 403:
      return "PermissionDenied";
    case 404:
      return "Unimplemented";
    case 429:
    case 502:
    case 503:
    case 504:
      return "Unavailable";
    default:
      return "Unknown";
  }
}

/** A `grpc-message` value decoded (`%XX` escapes of UTF-8 bytes). */
function decodeGrpcMessage(raw: string): string {
  if (!raw.includes("%")) return raw;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const hex = raw.slice(i + 1, i + 3);
    if (raw[i] === "%" && /^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...new TextEncoder().encode(raw[i]));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** A header's value as one string (`undefined` when absent). */
function headerValue(headers: Http2.IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(",") : v === undefined ? undefined : String(v);
}

/** A `grpc-timeout` header value: at most 8 digits and a unit (milliseconds, else seconds). */
export function grpcTimeout(ms: number): string {
  const millis = Math.max(1, Math.ceil(ms));
  return millis <= 99_999_999 ? `${millis}m` : `${Math.min(99_999_999, Math.ceil(millis / 1000))}S`;
}

/** The Go text of a failed Unix-socket dial (`dial unix <path>: connect: <reason>`). */
function dialError(path: string, e: unknown): string {
  const code = (e as { code?: string })?.code;
  const reason = code === "ENOENT"
    ? "no such file or directory"
    : code === "ECONNREFUSED"
    ? "connection refused"
    : code === "EACCES"
    ? "permission denied"
    : e instanceof Error
    ? e.message
    : String(e);
  return `connection error: desc = "transport: Error while dialing: dial unix ${path}: connect: ${reason}"`;
}

/** One channel to a runtime's CRI socket. Close it when done. */
export class CriConnection {
  readonly endpoint: string;
  readonly #path: string;
  readonly #maxBytes: number;
  #session: Http2.ClientHttp2Session | undefined;
  /** Why the session's connection failed, once it did (the calls on it report that). */
  #dialFailure: unknown;
  #closed = false;

  private constructor(endpoint: string, path: string, maxBytes: number) {
    this.endpoint = endpoint;
    this.#path = path;
    this.#maxBytes = maxBytes;
  }

  /**
   * A channel to `endpoint` (`unix:///run/containerd/containerd.sock` or a bare path). Nothing
   * is dialled yet: the first call connects, within its own deadline.
   */
  static open(endpoint: string, opts: CriConnectionOptions = {}): Promise<CriConnection> {
    try {
      const path = criSocketPath(endpoint);
      return Promise.resolve(
        new CriConnection(endpoint, path, opts.maxResponseBytes ?? MAX_RESPONSE_BYTES),
      );
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** The HTTP/2 session, dialled anew when there is none or the last one ended. */
  async #sessionFor(): Promise<Http2.ClientHttp2Session> {
    const { http2, net } = await loadHttp2();
    const current = this.#session;
    if (current && !current.closed && !current.destroyed) return current;
    this.#dialFailure = undefined;
    const session = http2.connect("http://localhost", {
      createConnection: () => {
        const socket = net.connect(this.#path);
        socket.once("error", (e) => this.#dialFailure ??= e);
        return socket;
      },
      maxSessionMemory: Math.ceil(this.#maxBytes / (1024 * 1024)) + 16,
    });
    // Errors reach the calls through their streams; the session's own must not throw.
    session.on("error", (e) => this.#dialFailure ??= e);
    this.#session = session;
    return session;
  }

  /**
   * Calls `/<service>/<method>` with an encoded request message; resolves with the encoded
   * response message. Rejects with a {@link CriCallError} (`DeadlineExceeded` after
   * `timeoutMs`, `ResourceExhausted` for a response over the size cap, `Unavailable` when the
   * socket cannot be dialled).
   */
  async unary(method: string, request: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    if (this.#closed) {
      throw new CriCallError(method, "Canceled", "grpc: the client connection is closing");
    }
    const session = await this.#sessionFor();
    const { http2 } = await loadHttp2();
    return await new Promise<Uint8Array>((resolve, reject) => {
      const stream = session.request({
        [http2.constants.HTTP2_HEADER_METHOD]: "POST",
        [http2.constants.HTTP2_HEADER_PATH]: `/${method}`,
        // As upstream's CRI client: the runtime sees "localhost" as the authority.
        [http2.constants.HTTP2_HEADER_AUTHORITY]: "localhost",
        "content-type": "application/grpc",
        te: "trailers",
        "grpc-timeout": grpcTimeout(timeoutMs),
      });
      let done = false;
      const chunks: Uint8Array[] = [];
      let received = 0;
      let headers: Http2.IncomingHttpHeaders | undefined;
      let trailers: Http2.IncomingHttpHeaders | undefined;
      const finish = (err: CriCallError | undefined, value?: Uint8Array) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (err) {
          if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
          reject(err);
        } else resolve(value!);
      };
      const fail = (code: GrpcCode, details: string) =>
        finish(new CriCallError(method, code, details));
      const timer = setTimeout(
        () => fail("DeadlineExceeded", "context deadline exceeded"),
        timeoutMs,
      );
      stream.on("response", (h) => headers = h);
      stream.on("trailers", (t) => trailers = t);
      stream.on("data", (chunk: Uint8Array) => {
        if (done) return;
        chunks.push(chunk);
        received += chunk.length;
        if (received >= 5) {
          const first = chunks.length === 1 ? chunks[0] : concat(chunks, 5);
          const size = new DataView(first.buffer, first.byteOffset, 5).getUint32(1);
          // The declared size, and what arrives whatever the frame declares.
          const over = Math.max(size, received - 5);
          if (over > this.#maxBytes) {
            fail(
              "ResourceExhausted",
              `grpc: received message larger than max (${over} vs. ${this.#maxBytes})`,
            );
          }
        }
      });
      stream.on("error", (e: unknown) => {
        if (this.#dialFailure !== undefined || (e as { code?: string })?.code === "ENOENT") {
          fail("Unavailable", dialError(this.#path, this.#dialFailure ?? e));
        } else fail("Unavailable", e instanceof Error ? e.message : String(e));
      });
      stream.on("close", () => {
        if (done) return;
        if (this.#dialFailure !== undefined && !headers) {
          return fail("Unavailable", dialError(this.#path, this.#dialFailure));
        }
        const status = headerValue(trailers ?? {}, "grpc-status") ??
          headerValue(headers ?? {}, "grpc-status");
        const httpStatus = Number(headers?.[http2.constants.HTTP2_HEADER_STATUS] ?? 0);
        if (status === undefined) {
          if (headers && httpStatus !== 200) {
            return fail(
              codeOfHttpStatus(httpStatus),
              `unexpected HTTP status code received from server: ${httpStatus}`,
            );
          }
          return fail("Internal", "server closed the stream without sending trailers");
        }
        const code = Number(status);
        if (code !== 0) {
          const message = headerValue(trailers ?? {}, "grpc-message") ??
            headerValue(headers ?? {}, "grpc-message") ?? "";
          return fail(CODE_NAMES[code] ?? "Unknown", decodeGrpcMessage(message));
        }
        const body = concat(chunks, received);
        if (body.length < 5) return fail("Internal", "server sent no response message");
        if (body[0] !== 0) return fail("Internal", "grpc: compressed responses are not supported");
        const size = new DataView(body.buffer, body.byteOffset, 5).getUint32(1);
        if (body.length !== 5 + size) {
          return fail("Internal", `grpc: response of ${body.length - 5} bytes, framed as ${size}`);
        }
        finish(undefined, body.slice(5));
      });
      const frame = new Uint8Array(5 + request.length);
      new DataView(frame.buffer).setUint32(1, request.length);
      frame.set(request, 5);
      stream.end(frame);
    });
  }

  /** Closes the channel and its connection. */
  close(): void {
    this.#closed = true;
    const session = this.#session;
    this.#session = undefined;
    if (session && !session.destroyed) session.destroy();
  }
}

/** The first `length` bytes of `chunks` as one array. */
function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1 && chunks[0].length >= length) return chunks[0].subarray(0, length);
  const out = new Uint8Array(length);
  let off = 0;
  for (const c of chunks) {
    if (off >= length) break;
    const part = c.subarray(0, length - off);
    out.set(part, off);
    off += part.length;
  }
  return out;
}
