/**
 * The Deno health probe (`adapters/deno/http.ts`) against local plain-HTTP servers: a redirect
 * is the answer (never followed), one deadline covers the whole response, the body is capped.
 * Following a redirect to an HTTPS server trusted only by Deno's root store is covered in a
 * subprocess with `DENO_CERT` by `trust_store_test.ts`.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { createHealthProbe } from "../../../adapters/deno/http.ts";
import { closedPort, makeTlsFixtures, startHttpsServer } from "../../support/tls_fixtures.ts";

interface PlainServer {
  url: string;
  /** Requests received. */
  hits: number;
  /** TCP connections accepted. */
  connections: number;
  close(): Promise<void>;
}

async function startHttpServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  port = 0,
): Promise<PlainServer> {
  const server = http.createServer((req, res) => {
    s.hits++;
    handler(req, res);
  });
  server.on("connection", () => s.connections++);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  const s: PlainServer = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    hits: 0,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return s;
}

const ok = (_req: http.IncomingMessage, res: http.ServerResponse) => res.end("ok");

Deno.test("a redirect is the probe's answer: 302 is reported, its target is never asked", async () => {
  const target = await startHttpServer(ok);
  const redirecting = await startHttpServer((_req, res) => {
    res.writeHead(302, { Location: `${target.url}/healthz` });
    res.end();
  });
  try {
    const r = await createHealthProbe().get(`${redirecting.url}/healthz`, { timeoutMs: 5_000 });
    assert.deepEqual(r, { status: 302 });
    assert.equal(redirecting.hits, 1);
    assert.equal(target.hits, 0, "the redirect was followed");
  } finally {
    await redirecting.close();
    await target.close();
  }
});

Deno.test("a healthy plain-HTTP endpoint answers 200", async () => {
  const server = await startHttpServer(ok);
  try {
    assert.deepEqual(await createHealthProbe().get(`${server.url}/healthz`), { status: 200 });
  } finally {
    await server.close();
  }
});

Deno.test("one deadline covers the body: headers then silence is a timeout, not healthy", async () => {
  const server = await startHttpServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/plain" });
    res.write("o"); // and never ends
  });
  const started = Date.now();
  try {
    const r = await createHealthProbe().get(`${server.url}/healthz`, { timeoutMs: 400 });
    assert.ok("error" in r, JSON.stringify(r));
    assert.match(r.error, /^Get "http:\/\/127\.0\.0\.1:\d+\/healthz": context deadline exceeded/);
    assert.match(r.error, /within 400ms: connect, TLS, headers and body/);
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started}ms`);
  } finally {
    await server.close();
  }
});

Deno.test("the body is capped: an endless answer is refused, naming the limit", async () => {
  const server = await startHttpServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/plain" });
    const chunk = "x".repeat(64 * 1024);
    for (let n = 0; n <= 1024 * 1024; n += chunk.length) res.write(chunk);
    res.end();
  });
  try {
    const r = await createHealthProbe().get(`${server.url}/healthz`, { timeoutMs: 5_000 });
    assert.ok("error" in r, JSON.stringify(r));
    assert.match(r.error, /the response body exceeds the limit of 1048576 bytes \(1 MiB\)/);
  } finally {
    await server.close();
  }
});

Deno.test("an HTTPS endpoint's connection is kept between GETs until the probe is closed", async () => {
  const tls = await makeTlsFixtures();
  const sockets = new Set<unknown>();
  const server = await startHttpsServer(tls, { requireClientCert: false }, (req, res) => {
    sockets.add(req.socket);
    res.end("ok");
  });
  const probe = createHealthProbe();
  const get = () => probe.get(`${server.url}/livez`, { insecureSkipTLSVerify: true });
  try {
    for (let i = 0; i < 3; i++) assert.deepEqual(await get(), { status: 200 });
    assert.equal(sockets.size, 1, "each GET made a connection (and a TLS handshake) of its own");
    await probe.close!();
    assert.deepEqual(await get(), { status: 200 });
    assert.equal(sockets.size, 2, "the connection outlived close()");
  } finally {
    await probe.close!();
    await server.close();
  }
});

Deno.test("after a refusal the same refusal is reported, until something listens there", async () => {
  const port = closedPort();
  const url = `http://127.0.0.1:${port}/healthz`;
  const probe = createHealthProbe();
  let server: PlainServer | undefined;
  try {
    const first = await probe.get(url, { timeoutMs: 5_000 });
    assert.deepEqual(first, {
      error: `Get "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    });
    // The next probes check with a bare connect first, and say the same.
    assert.deepEqual(await probe.get(url, { timeoutMs: 5_000 }), first);
    assert.deepEqual(await probe.get(url, { timeoutMs: 5_000 }), first);
    server = await startHttpServer(ok, port);
    assert.deepEqual(await probe.get(url, { timeoutMs: 5_000 }), { status: 200 });
    assert.equal(server.hits, 1);
    // Answered once: no more bare connects before the GETs.
    const connections = server.connections;
    assert.deepEqual(await probe.get(url, { timeoutMs: 5_000 }), { status: 200 });
    assert.equal(server.connections, connections);
  } finally {
    await probe.close!();
    await server?.close();
  }
});
