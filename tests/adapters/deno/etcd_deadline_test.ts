// The etcd gateway client under a caller's deadline, against one small server that accepts
// connections and never answers: a call's limits bound all the endpoints it tries, so a core
// wait over it (join's endpoint sync) ends at its timeout, not endpoints × request timeout
// later.
import { platformTime } from "../../support/platform.ts";
import assert from "node:assert/strict";
import http from "node:http";
import { syncEtcdClient } from "../../../core/etcd/endpoints.ts";
import { etcdTiming } from "../../../core/etcd/timing.ts";
import { EtcdGatewayClient } from "../../../adapters/deno/etcd.ts";

async function withSilentServer(fn: (endpoints: string[]) => Promise<void>): Promise<void> {
  const server = http.createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as { port: number }).port;
  try {
    // Three endpoints (the same silent server under three names), tried in order.
    await fn([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://127.0.0.1:${port}/`]);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

Deno.test("a call's limits bound every endpoint it tries", async () => {
  await withSilentServer(async (endpoints) => {
    // 8s per request: unbounded, the call would take 24s.
    const client = new EtcdGatewayClient(endpoints, {}, 8_000);
    const started = Date.now();
    await assert.rejects(
      () => client.listMembers({ timeoutMs: 700 }),
      /^Error: no etcd endpoint answered within the call's deadline of 700ms: http:\/\/127\.0\.0\.1:\d+\/v3\/cluster\/member\/list: .*context deadline exceeded.*; http:\/\/localhost:\d+\/v3\/cluster\/member\/list: not tried, the deadline had passed; /,
    );
    const took = Date.now() - started;
    assert.ok(took < 3_000, `took ${took}ms`);
  });
});

Deno.test("join's endpoint sync over a silent etcd ends at its timeout", async () => {
  await withSilentServer(async (endpoints) => {
    const started = Date.now();
    await assert.rejects(
      () =>
        syncEtcdClient(
          (e) => new EtcdGatewayClient(e, {}, 8_000),
          endpoints,
          etcdTiming({ timeoutMs: 1_500, ...platformTime }),
        ),
      /^KubeadmError: error syncing endpoints with etcd: the wait's timeout of 1\.5s ran out during its last attempt: no etcd endpoint answered within the call's deadline of/,
    );
    const took = Date.now() - started;
    assert.ok(took < 4_000, `took ${took}ms`);
  });
});

Deno.test("one etcd request takes at most upstream's etcdTimeout, 2s", async () => {
  await withSilentServer(async ([endpoint]) => {
    const started = Date.now();
    await assert.rejects(
      () => new EtcdGatewayClient([endpoint], {}).listMembers(),
      /^Error: no etcd endpoint answered: http:\/\/127\.0\.0\.1:\d+\/v3\/cluster\/member\/list: context deadline exceeded \(no complete response within 2s: connect, TLS, headers and body\)$/,
    );
    const took = Date.now() - started;
    assert.ok(took < 5_000, `took ${took}ms`);
  });
});
