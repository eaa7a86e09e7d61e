/**
 * A fake CRI server for the error paths a real runtime will not produce on demand: calls that
 * never answer, responses over the size cap, non-OK gRPC statuses. It serves gRPC over
 * cleartext HTTP/2 on a Unix socket with `Deno.serve`, which cannot send HTTP trailers: every
 * answer is a "trailers-only" status, or a response body without a status (which a gRPC
 * client must reject). Success paths are tested against a real containerd.
 *
 * (`node:http2`'s server (and so `@grpc/grpc-js`'s) aborts the Deno 2.9.6 process with
 * `free(): invalid pointer` when a client disconnects, so it cannot serve tests.)
 *
 * @module
 */

/** What the fake does with one call. */
export type FakeCriAnswer =
  /** A trailers-only response with this gRPC status code and message. */
  | { status: number; message: string }
  /** Never answers (the client's deadline must end the call). */
  | { hang: true }
  /**
   * A response message of this many bytes, declared with `declared` bytes (default: as many),
   * and no status.
   */
  | { bodyBytes: number; declared?: number };

/** A running fake. */
export interface FakeCriServer {
  /** `unix://<socket>`. */
  endpoint: string;
  /** Method paths called, in order (`/runtime.v1.RuntimeService/Status`). */
  readonly calls: string[];
  /** Stops serving and removes the socket's directory. */
  close(): Promise<void>;
}

/** gRPC's `grpc-message` encoding: UTF-8, `%XX` for bytes outside printable ASCII and `%`. */
function percentEncode(message: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(message)) {
    out += b < 0x20 || b > 0x7e || b === 0x25
      ? `%${b.toString(16).toUpperCase().padStart(2, "0")}`
      : String.fromCharCode(b);
  }
  return out;
}

/** Serves `answer(path)` for every call on a fresh socket in a temp dir. */
export async function startFakeCriServer(
  answer: (path: string) => FakeCriAnswer,
): Promise<FakeCriServer> {
  const dir = await Deno.makeTempDir({ prefix: "kts-fake-cri-" });
  const path = `${dir}/cri.sock`;
  const calls: string[] = [];
  const hanging = new Set<() => void>();
  const listening = Promise.withResolvers<void>();
  const server = Deno.serve({ path, onListen: () => listening.resolve() }, async (req) => {
    const method = new URL(req.url).pathname;
    calls.push(method);
    await req.arrayBuffer();
    const a = answer(method);
    if ("hang" in a) {
      // Held until the server closes (the client's deadline ends the call on its side).
      await new Promise<void>((resolve) => hanging.add(resolve));
      return new Response(null, { status: 200 });
    }
    if ("status" in a) {
      return new Response(null, {
        status: 200,
        headers: {
          "content-type": "application/grpc",
          "grpc-status": String(a.status),
          "grpc-message": percentEncode(a.message),
        },
      });
    }
    const body = new Uint8Array(5 + a.bodyBytes);
    new DataView(body.buffer).setUint32(1, a.declared ?? a.bodyBytes);
    return new Response(body, { status: 200, headers: { "content-type": "application/grpc" } });
  });
  await listening.promise;
  return {
    endpoint: `unix://${path}`,
    calls,
    async close() {
      for (const release of hanging) release();
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
