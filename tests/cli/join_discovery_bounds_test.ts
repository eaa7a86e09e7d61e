// `kubeadm join` discovery is bounded (issue 9, finding 3): one deadline, `timeouts.discovery`,
// covers every request's connect, TLS, headers and body, so a server that drips bytes cannot
// keep join running; and a response body larger than any ConfigMap is refused, naming the
// limit. The CLI runs as a subprocess (`scripts/kubeadm join --dry-run`) against a local
// HTTPS server; nothing may be written under its `--rootfs`.
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { kubeadmLauncher, run } from "../support/commands.ts";
import { makeTlsFixtures, startHttpsServer } from "../support/tls_fixtures.ts";
import { joinConfigurationYaml } from "../support/config.ts";

const tls = await makeTlsFixtures();

async function joinAgainst(
  handler: (res: ServerResponse) => void,
  discoveryTimeout: string,
): Promise<{ code: number; stderr: string; elapsedMs: number; written: string[] }> {
  const server = await startHttpsServer(
    tls,
    { requireClientCert: false },
    (_req, res) => handler(res),
  );
  const dir = await Deno.makeTempDir({ prefix: "kts-join-bounds-" });
  const root = `${dir}/root`;
  await Deno.mkdir(root);
  try {
    const config = `${dir}/join.yaml`;
    await Deno.writeTextFile(
      config,
      joinConfigurationYaml({
        endpoint: new URL(server.url).host,
        token: "abcdef.0123456789abcdef",
        unsafeSkipCAVerification: true,
        extra:
          `timeouts:\n  discovery: ${discoveryTimeout}\nnodeRegistration:\n  ignorePreflightErrors: [all]\n`,
      }),
    );
    const started = Date.now();
    const r = await run([
      kubeadmLauncher(),
      "join",
      "--config",
      config,
      "--dry-run",
      "--rootfs",
      root,
    ], { env: { TMPDIR: dir } });
    const written: string[] = [];
    for await (const e of Deno.readDir(root)) written.push(e.name);
    return { code: r.code, stderr: r.stderr, elapsedMs: Date.now() - started, written };
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a server dripping bytes does not keep join past timeouts.discovery", async () => {
  const timers: ReturnType<typeof setInterval>[] = [];
  try {
    const r = await joinAgainst((res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write('{"kind":"ConfigMap"');
      const started = Date.now();
      timers.push(setInterval(() => {
        if (Date.now() - started < 30_000) res.write(" ");
      }, 100));
    }, "3s");
    assert.notEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, /couldn't validate the identity of the API Server/);
    assert.match(
      r.stderr,
      /context deadline exceeded \(no complete response within [\d.]+m?s: connect, TLS, headers and body\)/,
    );
    assert.match(r.stderr, /timeouts\.discovery/);
    // 3s of discovery plus the CLI's start-up; the server would drip for 30s.
    assert.ok(r.elapsedMs < 8_000, `join ran ${r.elapsedMs}ms`);
    assert.deepEqual(r.written, []);
  } finally {
    timers.forEach(clearInterval);
  }
});

Deno.test("a discovery response larger than any ConfigMap is refused, naming the limit", async () => {
  const body = JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cluster-info", namespace: "kube-public" },
    data: { kubeconfig: "x".repeat(3 * 1024 * 1024) },
  });
  const r = await joinAgainst((res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    for (let i = 0; i < body.length; i += 65536) res.write(body.slice(i, i + 65536));
    res.end();
  }, "2s");
  assert.notEqual(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /failed to request the cluster-info ConfigMap: .*the response body exceeds the limit of 2097152 bytes \(2 MiB\)/,
  );
  assert.deepEqual(r.written, []);
});
