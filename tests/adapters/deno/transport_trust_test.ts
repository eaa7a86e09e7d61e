/**
 * Finding 1 of issue 9: every TLS client after discovery trusts exactly the CA bundle it is
 * given, never Deno's root store. The server's CA is put into Deno's store of a subprocess
 * (`DENO_CERT`, or `DENO_TLS_CA_STORE=system` with `SSL_CERT_FILE`); the clients there are
 * given another CA and must refuse the server, while a plain `fetch` shows the store is live.
 */
import assert from "node:assert/strict";
import { makeTlsFixtures, startHttpsServer } from "../../support/tls_fixtures.ts";
import { repoRoot } from "../../support/repo.ts";

const tls = await makeTlsFixtures();

async function probe(storeEnv: (caFile: string) => Record<string, string>) {
  const dir = await Deno.makeTempDir({ prefix: "kts-trust-" });
  const server = await startHttpsServer(tls, { requireClientCert: false }, (_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ major: "1", minor: "37", gitVersion: "v1.37.2" }));
  });
  try {
    const caFile = `${dir}/server-ca.pem`;
    await Deno.writeTextFile(caFile, tls.caCert);
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--allow-all",
        "--config",
        `${repoRoot}/deno.json`,
        `${repoRoot}/tests/support/trust_probe.ts`,
        server.url,
      ],
      env: { ...storeEnv(caFile), KTS_PROBE_CA: tls.otherCaCert },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return JSON.parse(text) as Record<string, string>;
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function assertOnlyTheGivenCaIsTrusted(results: Record<string, string>) {
  // The control: Deno's own store does hold the server's CA in the subprocess.
  assert.equal(results["default fetch"], "accepted", JSON.stringify(results, null, 2));
  // A redirect from a plain-HTTP health URL is the answer, never followed into the store.
  const redirected = "health probe (plain HTTP, redirected)";
  assert.equal(results[redirected], "refused: status 302", JSON.stringify(results, null, 2));
  const clients = Object.keys(results).filter((k) => k !== "default fetch" && k !== redirected);
  assert.ok(clients.length >= 6, clients.join(", "));
  for (const name of clients) {
    assert.match(
      results[name],
      /^refused: .*(unknown authority|certificate)/,
      `${name} trusted a server outside its CA bundle:\n${JSON.stringify(results, null, 2)}`,
    );
  }
}

Deno.test("a server signed by a CA in Deno's store (DENO_CERT) is refused by every client given another CA", async () => {
  assertOnlyTheGivenCaIsTrusted(await probe((caFile) => ({ DENO_CERT: caFile })));
});

Deno.test("a server signed by a CA in the system store (DENO_TLS_CA_STORE=system) is refused by every client given another CA", async () => {
  assertOnlyTheGivenCaIsTrusted(
    await probe((caFile) => ({ DENO_TLS_CA_STORE: "system", SSL_CERT_FILE: caFile })),
  );
});
