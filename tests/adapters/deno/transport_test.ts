import { platformTime } from "../../support/platform.ts";
import assert from "node:assert/strict";
import { ApiError } from "../../../core/errors.ts";
import { KubeClient } from "../../../core/kube/client.ts";
import { isTransient } from "../../../core/kube/status.ts";
import type { ConnectionParams } from "../../../core/ports/transport.ts";
import { createDenoTransport, createInsecureTransport } from "../../../adapters/deno/transport.ts";
import {
  closedPort,
  makeTlsFixtures,
  startHttpsServer,
  type TestHttpsServer,
  type TlsFixtures,
} from "../../support/tls_fixtures.ts";

const tls: TlsFixtures = await makeTlsFixtures();

function versionHandler(seen: { cn?: string; auth?: string }[]) {
  return (
    _req: unknown,
    res: { writeHead(s: number, h: Record<string, string>): void; end(b: string): void },
    caller: { clientCN?: string; authorization?: string },
  ) => {
    seen.push({ cn: caller.clientCN, auth: caller.authorization });
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ major: "1", minor: "37", gitVersion: "v1.37.2" }));
  };
}

async function withServer(
  requireClientCert: boolean,
  fn: (s: TestHttpsServer, seen: { cn?: string; auth?: string }[]) => Promise<void>,
): Promise<void> {
  const seen: { cn?: string; auth?: string }[] = [];
  const server = await startHttpsServer(tls, { requireClientCert }, versionHandler(seen));
  try {
    await fn(server, seen);
  } finally {
    await server.close();
  }
}

function noRetryClient(server: string, params: ConnectionParams, timeoutMs?: number) {
  const t = createDenoTransport(params, { timeoutMs });
  const client = new KubeClient({
    server,
    transport: t.transport,
    retry: { timeoutMs: 0 },
    ...platformTime,
  });
  return { client, close: t.close };
}

Deno.test("mutual TLS with the right CA: the server sees the admin client certificate", async () => {
  await withServer(true, async (s, seen) => {
    const { client, close } = noRetryClient(s.url, {
      server: s.url,
      caPem: tls.caCert,
      certPem: tls.clientCert,
      keyPem: tls.clientKey,
    });
    try {
      assert.equal((await client.version()).gitVersion, "v1.37.2");
      assert.deepEqual(seen, [{ cn: "kubernetes-admin", auth: undefined }]);
    } finally {
      close();
    }
  });
});

Deno.test("a bearer token is sent as Authorization", async () => {
  await withServer(false, async (s, seen) => {
    const { client, close } = noRetryClient(s.url, {
      server: s.url,
      caPem: tls.caCert,
      token: "t0ken",
    });
    try {
      await client.version();
      assert.equal(seen[0].auth, "Bearer t0ken");
    } finally {
      close();
    }
  });
});

Deno.test("the wrong CA gives 'certificate signed by unknown authority' naming the server", async () => {
  await withServer(true, async (s) => {
    const { client, close } = noRetryClient(s.url, {
      server: s.url,
      caPem: tls.otherCaCert,
      certPem: tls.clientCert,
      keyPem: tls.clientKey,
    });
    try {
      await assert.rejects(() => client.version(), (e: unknown) => {
        assert.ok(e instanceof ApiError);
        assert.equal(e.status, 0);
        assert.equal(e.reason, "UnknownAuthority");
        assert.ok(!isTransient(e), "trust failures are not retried");
        assert.match(
          e.message,
          /Get "https:\/\/127\.0\.0\.1:\d+\/version": tls: failed to verify certificate: x509: certificate signed by unknown authority/,
        );
        assert.ok(e.hint?.includes(s.url), e.hint ?? "no hint");
        return true;
      });
    } finally {
      close();
    }
  });
});

Deno.test("no client certificate where one is required gives a clear error", async () => {
  await withServer(true, async (s) => {
    const { client, close } = noRetryClient(s.url, { server: s.url, caPem: tls.caCert });
    try {
      await assert.rejects(() => client.version(), (e: unknown) => {
        assert.ok(e instanceof ApiError);
        assert.equal(e.reason, "CertificateRequired");
        assert.match(e.message, /remote error: tls: certificate required/);
        return true;
      });
    } finally {
      close();
    }
  });
});

Deno.test("connection refused is reported like Go and classified as transient", async () => {
  const url = `https://127.0.0.1:${closedPort()}`;
  const { client, close } = noRetryClient(url, { server: url, caPem: tls.caCert });
  try {
    await assert.rejects(() => client.version(), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.reason, "ConnectionRefused");
      assert.match(e.message, /dial tcp 127\.0\.0\.1:\d+: connect: connection refused/);
      assert.ok(isTransient(e));
      return true;
    });
  } finally {
    close();
  }
});

Deno.test("a server that does not answer times out per request", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `https://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  const conns: Deno.Conn[] = [];
  (async () => {
    for await (const c of listener) conns.push(c); // accept, never speak TLS
  })().catch(() => {});
  const { client, close } = noRetryClient(url, { server: url, caPem: tls.caCert }, 300);
  try {
    await assert.rejects(() => client.version(), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.reason, "Timeout");
      return true;
    });
  } finally {
    close();
    listener.close();
    conns.forEach((c) => c.close());
  }
});

Deno.test("an API client's retry deadline bounds each attempt: a silent server fails at 1s, not at the transport's 30s", async () => {
  // Accepts and completes the TLS handshake, never answers.
  const server = await startHttpsServer(tls, { requireClientCert: false }, () => {});
  const t = createDenoTransport({ server: server.url, caPem: tls.caCert });
  const client = new KubeClient({
    server: server.url,
    transport: t.transport,
    retry: { timeoutMs: 1000 },
    ...platformTime,
  });
  const started = Date.now();
  try {
    await assert.rejects(
      () => client.get({ kind: "ConfigMap", namespace: "kube-system", name: "x" }),
      (e: unknown) => {
        assert.ok(e instanceof ApiError);
        assert.equal(e.reason, "Timeout", e.message);
        assert.match(
          e.message,
          /^unable to get ConfigMap kube-system\/x: Get "https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/kube-system\/configmaps\/x": context deadline exceeded \(no complete response within the call's deadline of 1s, counted from its first attempt\)$/,
        );
        return true;
      },
    );
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started}ms`);
  } finally {
    t.close();
    await server.close();
  }
});

Deno.test("per-request limits only tighten the transport's own", async () => {
  const timers: ReturnType<typeof setInterval>[] = [];
  const server = await startHttpsServer(tls, { requireClientCert: false }, drippingHandler(timers));
  const t = createDenoTransport({ server: server.url, caPem: tls.caCert }, { timeoutMs: 300 });
  try {
    await assert.rejects(
      () => t.transport(new Request(`${server.url}/version`), { timeoutMs: 60_000 }),
      /no complete response within 300ms/,
    );
    await assert.rejects(
      () => t.transport(new Request(`${server.url}/version`), { timeoutMs: 200 }),
      /no complete response within 200ms/,
    );
  } finally {
    t.close();
    timers.forEach(clearInterval);
    await server.close();
  }
});

Deno.test("insecure transport fetches without verifying the server or sending credentials", async () => {
  await withServer(false, async (s, seen) => {
    const t = createInsecureTransport(s.url);
    const client = new KubeClient({
      server: s.url,
      transport: t.transport,
      retry: { timeoutMs: 0 },
      ...platformTime,
    });
    assert.equal((await client.version()).minor, "37");
    assert.deepEqual(seen, [{ cn: undefined, auth: undefined }]);
  });
});

Deno.test("insecure-skip-tls-verify in the params also routes through node:https, with mTLS", async () => {
  await withServer(true, async (s, seen) => {
    const { client, close } = noRetryClient(s.url, {
      server: s.url,
      insecureSkipTLSVerify: true,
      certPem: tls.clientCert,
      keyPem: tls.clientKey,
    });
    try {
      await client.version();
      assert.equal(seen[0].cn, "kubernetes-admin");
    } finally {
      close();
    }
  });
});

Deno.test("node:https path maps the wrong CA the same way", async () => {
  await withServer(false, async (s) => {
    const { client, close } = noRetryClient(s.url, {
      server: s.url,
      caPem: tls.otherCaCert,
      tlsServerName: "localhost",
    });
    try {
      await assert.rejects(() => client.version(), (e: unknown) => {
        assert.ok(e instanceof ApiError);
        assert.equal(e.reason, "UnknownAuthority", e.message);
        return true;
      });
    } finally {
      close();
    }
  });
});

/** Answers headers at once, then one byte every 100ms for up to 20s: never a full body. */
function drippingHandler(timers: ReturnType<typeof setInterval>[]) {
  return (
    _req: unknown,
    res: { writeHead(s: number, h: Record<string, string>): void; write(b: string): void },
  ) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.write("{");
    const started = Date.now();
    const t = setInterval(() => {
      if (Date.now() - started < 20_000) res.write(" ");
    }, 100);
    timers.push(t);
  };
}

Deno.test("one deadline covers the body: a server dripping bytes is cut off at the limit", async () => {
  const timers: ReturnType<typeof setInterval>[] = [];
  const server = await startHttpsServer(tls, { requireClientCert: false }, drippingHandler(timers));
  const { client, close } = noRetryClient(
    server.url,
    { server: server.url, caPem: tls.caCert },
    700,
  );
  const started = Date.now();
  try {
    await assert.rejects(() => client.version(), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.reason, "Timeout", e.message);
      assert.match(e.message, /no complete response within 700ms: connect, TLS, headers and body/);
      return true;
    });
    assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started}ms`);
  } finally {
    close();
    timers.forEach(clearInterval);
    await server.close();
  }
});

for (const chunked of [false, true]) {
  Deno.test(`a response body over the cap is refused, naming the limit (${chunked ? "chunked" : "Content-Length"})`, async () => {
    const body = JSON.stringify({ major: "1", minor: "37", pad: "x".repeat(3 * 1024 * 1024) });
    const server = await startHttpsServer(tls, { requireClientCert: false }, (_req, res) => {
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      if (!chunked) headers["Content-Length"] = String(body.length);
      res.writeHead(200, headers);
      if (chunked) {
        for (let i = 0; i < body.length; i += 65536) res.write(body.slice(i, i + 65536));
        res.end();
      } else res.end(body);
    });
    const t = createDenoTransport({ server: server.url, caPem: tls.caCert }, {
      maxBodyBytes: 1024 * 1024,
    });
    const client = new KubeClient({
      server: server.url,
      transport: t.transport,
      retry: { timeoutMs: 0 },
      ...platformTime,
    });
    try {
      await assert.rejects(() => client.version(), (e: unknown) => {
        assert.ok(e instanceof ApiError);
        assert.equal(e.reason, "ResponseTooLarge", e.message);
        assert.match(e.message, /the response body exceeds the limit of 1048576 bytes \(1 MiB\)/);
        assert.ok(!isTransient(e), "an oversized answer is not retried");
        return true;
      });
    } finally {
      t.close();
      await server.close();
    }
  });
}

Deno.test("API client transports have a default body cap (64 MiB)", async () => {
  const server = await startHttpsServer(tls, { requireClientCert: false }, (_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "70000000" });
    res.end("{}");
  });
  const { client, close } = noRetryClient(server.url, { server: server.url, caPem: tls.caCert });
  try {
    await assert.rejects(
      () => client.version(),
      /the response body exceeds the limit of 67108864 bytes \(64 MiB\)/,
    );
  } finally {
    close();
    await server.close();
  }
});
