/**
 * Unary gRPC calls to a container runtime over its Unix socket, through `@grpc/grpc-js` (on
 * Deno's `node:http2`). The library is loaded on first use, so commands that never talk to the
 * runtime do not pay for it.
 *
 * Every call has a deadline (connection, request and response included) and every response a
 * size cap; a failed call rejects with a {@link CriCallError} carrying the gRPC status code and
 * Go's `rpc error: code = … desc = …` text, as upstream kubeadm prints it.
 *
 * @module
 */
import type * as GrpcJs from "@grpc/grpc-js";
import { Buffer } from "node:buffer";
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

let grpcModule: Promise<typeof GrpcJs> | undefined;

function loadGrpc(): Promise<typeof GrpcJs> {
  // The package is CommonJS: its `module.exports` is the namespace's `default`, both when Deno
  // loads it from npm and in the installed bundle (scripts/install), whose chunk exports only
  // that (Deno's named exports come from its own analysis of the package).
  grpcModule ??= import("@grpc/grpc-js").then((ns) => {
    const m = (ns as unknown as { default: typeof GrpcJs }).default;
    // The library logs transport trouble to stderr by itself; callers report errors instead.
    m.setLogVerbosity(m.logVerbosity.NONE);
    return m;
  });
  return grpcModule;
}

const toBuffer = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** One channel to a runtime's CRI socket. Close it when done. */
export class CriConnection {
  readonly endpoint: string;
  readonly #client: GrpcJs.Client;
  readonly #grpc: typeof GrpcJs;

  private constructor(endpoint: string, grpc: typeof GrpcJs, client: GrpcJs.Client) {
    this.endpoint = endpoint;
    this.#grpc = grpc;
    this.#client = client;
  }

  /**
   * A channel to `endpoint` (`unix:///run/containerd/containerd.sock` or a bare path). Nothing
   * is dialled yet: the first call connects, within its own deadline.
   */
  static async open(endpoint: string, opts: CriConnectionOptions = {}): Promise<CriConnection> {
    const path = criSocketPath(endpoint);
    const grpc = await loadGrpc();
    const maxBytes = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    const client = new grpc.Client(`unix://${path}`, grpc.credentials.createInsecure(), {
      // As upstream's CRI client: the runtime sees "localhost" as the authority.
      "grpc.default_authority": "localhost",
      "grpc.max_receive_message_length": maxBytes,
      "grpc.max_send_message_length": MAX_RESPONSE_BYTES,
      // A private connection, closed with this object (not shared through a global pool).
      "grpc.use_local_subchannel_pool": 1,
      "grpc.enable_retries": 0,
    });
    return new CriConnection(endpoint, grpc, client);
  }

  /**
   * Calls `/<service>/<method>` with an encoded request message; resolves with the encoded
   * response message. Rejects with a {@link CriCallError} (`DeadlineExceeded` after
   * `timeoutMs`, `ResourceExhausted` for a response over the size cap).
   */
  unary(method: string, request: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    const grpc = this.#grpc;
    return new Promise((resolve, reject) => {
      this.#client.makeUnaryRequest<Uint8Array, Buffer>(
        `/${method}`,
        toBuffer,
        (b) => b,
        request,
        new grpc.Metadata(),
        { deadline: Date.now() + timeoutMs },
        (err, value) => {
          if (err) {
            const code = CODE_NAMES[err.code] ?? "Unknown";
            reject(new CriCallError(method, code, err.details ?? err.message));
          } else if (value === undefined) {
            reject(new CriCallError(method, "Internal", "no response message"));
          } else {
            resolve(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
          }
        },
      );
    });
  }

  /** Closes the channel and its connection. */
  close(): void {
    this.#client.close();
  }
}
