/**
 * A TCP listener that only counts the connections it receives: stands in for an API server
 * or discovery endpoint a command must not contact when its input is refused.
 *
 * @module
 */

/** A listening endpoint (`127.0.0.1:port`) and the number of connections it has accepted. */
export interface CountingListener {
  endpoint: string;
  state: { connections: number };
  close(): void;
}

/** Listens on a free loopback port, accepting and closing every connection. */
export function countingListener(): CountingListener {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const state = { connections: 0 };
  (async () => {
    for await (const c of listener) {
      state.connections++;
      c.close();
    }
  })().catch(() => {});
  return {
    endpoint: `127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    state,
    close: () => listener.close(),
  };
}
