// The CRI client's failure paths against a fake server (tests/support/fake_cri_server.ts):
// deadlines, the response size cap, gRPC status codes, a missing socket, a body without status.
import assert from "node:assert/strict";
import { CriCallError, CriClient } from "../../../../adapters/deno/cri/client.ts";
import { startFakeCriServer } from "../../../support/fake_cri_server.ts";

Deno.test("CRI client: a call that never answers ends at its deadline", async () => {
  const fake = await startFakeCriServer(() => ({ hang: true }));
  try {
    await CriClient.with(fake.endpoint, async (client) => {
      const t0 = performance.now();
      const err = await client.status().then(() => undefined, (e) => e);
      const took = performance.now() - t0;
      assert.ok(err instanceof CriCallError, String(err));
      assert.equal(err.code, "DeadlineExceeded");
      assert.match(err.message, /^rpc error: code = DeadlineExceeded desc = /);
      assert.equal(err.method, "runtime.v1.RuntimeService/Status");
      assert.ok(took >= 250 && took < 5_000, `took ${took} ms`);
    }, { callTimeoutMs: 300 });
    assert.deepEqual(fake.calls, ["/runtime.v1.RuntimeService/Status"]);
  } finally {
    await fake.close();
  }
});

for (
  const { what, reply, cap, details } of [
    {
      what: "a response over the size cap is refused",
      reply: { bodyBytes: 4096 },
      cap: 1024,
      details: /\(4096 vs\. 1024\)/,
    },
    {
      what: "a response longer than its frame declares is capped all the same",
      reply: { bodyBytes: 4096, declared: 10 },
      cap: 1024,
      details: /\(4096 vs\. 1024\)/,
    },
    {
      what: "the default cap is upstream's 16 MiB",
      reply: { bodyBytes: 16 * 1024 * 1024 + 1 },
      cap: undefined,
      details: /16777217/,
    },
  ]
) {
  Deno.test(`CRI client: ${what}`, async () => {
    const fake = await startFakeCriServer(() => reply);
    try {
      await CriClient.with(
        fake.endpoint,
        async (client) => {
          await assert.rejects(
            () => client.listPodSandbox(),
            (e: unknown) =>
              e instanceof CriCallError && e.code === "ResourceExhausted" &&
              details.test(e.details),
          );
        },
        cap === undefined ? undefined : { maxResponseBytes: cap },
      );
    } finally {
      await fake.close();
    }
  });
}

Deno.test("CRI client: a response without a gRPC status is an error", async () => {
  const fake = await startFakeCriServer(() => ({ bodyBytes: 0 }));
  try {
    await CriClient.with(fake.endpoint, async (client) => {
      await assert.rejects(() => client.version(), CriCallError);
    });
  } finally {
    await fake.close();
  }
});

Deno.test("CRI client: gRPC statuses become CriCallErrors with Go's text", async () => {
  const fake = await startFakeCriServer((path) =>
    path.endsWith("/RuntimeConfig")
      ? {
        status: 12,
        message: "unknown method RuntimeConfig for service runtime.v1.RuntimeService",
      }
      : { status: 5, message: `an error occurred when try to find sandbox "x": not found` }
  );
  try {
    await CriClient.with(fake.endpoint, async (client) => {
      await assert.rejects(() => client.runtimeConfig(), {
        name: "CriCallError",
        code: "Unimplemented",
        message:
          "rpc error: code = Unimplemented desc = unknown method RuntimeConfig for service runtime.v1.RuntimeService",
      });
      await assert.rejects(() => client.stopPodSandbox("x"), {
        code: "NotFound",
        message:
          `rpc error: code = NotFound desc = an error occurred when try to find sandbox "x": not found`,
      });
    });
  } finally {
    await fake.close();
  }
});

Deno.test("CRI client: a failed pull with code Unknown carries the runtime's message alone", async () => {
  const fake = await startFakeCriServer(() => ({ status: 2, message: "failed to resolve image" }));
  try {
    await CriClient.with(fake.endpoint, async (client) => {
      await assert.rejects(() => client.pullImage("registry.k8s.io/pause:3.10.2"), {
        message: "failed to resolve image",
      });
    });
  } finally {
    await fake.close();
  }
});

Deno.test("CRI client: nothing listening is Unavailable, well within the deadline", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kts-cri-" });
  try {
    await CriClient.with(`unix://${dir}/missing.sock`, async (client) => {
      const t0 = performance.now();
      const err = await client.version().then(() => undefined, (e) => e);
      assert.ok(err instanceof CriCallError, String(err));
      assert.equal(err.code, "Unavailable");
      assert.match(err.details, /missing\.sock/);
      assert.ok(performance.now() - t0 < 1_500);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("CRI client: endpoints other than unix sockets are refused before any I/O", async () => {
  await assert.rejects(() => CriClient.open("tcp://127.0.0.1:1"), /only support unix socket/);
  await assert.rejects(() => CriClient.open("unix://relative.sock"), /must be absolute/);
});
