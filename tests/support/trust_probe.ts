/**
 * Run as a subprocess by the trust tests: GETs one HTTPS URL through every TLS client of the
 * runtime, each told to trust only the CA bundle in `KTS_PROBE_CA` (a CA that did NOT sign the
 * server), and prints one JSON object `{ "<client>": "accepted" | "refused: <why>" }`.
 *
 * The parent sets Deno's own trust store (`DENO_CERT`, `DENO_TLS_CA_STORE`/`SSL_CERT_FILE`) to
 * the CA that did sign the server; `default fetch` (no client options) shows that store is in
 * effect, so a refusal by the others proves they ignore it. The health probe is also asked a
 * plain-HTTP URL that redirects to the server: it must report the redirect, not follow it.
 *
 * Usage: `deno run -A tests/support/trust_probe.ts https://127.0.0.1:<port>`
 *
 * @module
 */
import { platformTime } from "./platform.ts";
import { KubeClient } from "../../core/kube/client.ts";
import type { ConnectionParams, Transport } from "../../core/ports/transport.ts";
import { clientTransport, discoveryTransport } from "../../adapters/deno/transport.ts";
import { EtcdGatewayClient } from "../../adapters/deno/etcd.ts";
import { DenoMachine } from "../../adapters/deno/machine.ts";
import { createHealthProbe } from "../../adapters/deno/http.ts";
import { createDenoTransport } from "../../adapters/deno/transport.ts";

const url = Deno.args[0];
const caPem = Deno.env.get("KTS_PROBE_CA") ?? "";
const params: ConnectionParams = { server: url, caPem };

async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return "accepted";
  } catch (e) {
    return `refused: ${e instanceof Error ? e.message : String(e)}`;
  }
}

function versionVia(transport: Transport) {
  return new KubeClient({ server: url, transport, retry: { timeoutMs: 0 }, ...platformTime })
    .version();
}

const results: Record<string, string> = {};
results["default fetch"] = await outcome(async () => await (await fetch(url)).body?.cancel());
results["createDenoTransport"] = await outcome(async () => {
  const t = createDenoTransport(params);
  try {
    await versionVia(t.transport);
  } finally {
    t.close();
  }
});
results["join clientTransport"] = await outcome(() => versionVia(clientTransport(params)));
results["join discoveryTransport"] = await outcome(() => versionVia(discoveryTransport(params)));
results["etcd client"] = await outcome(() =>
  new EtcdGatewayClient([url], { caPem }, 5_000, 0).listMembers()
);
results["preflight httpGet"] = await outcome(() =>
  new DenoMachine().httpGet(`${url}/version`, { caPem }, 5_000)
);
results["health probe (verified)"] = await outcome(async () => {
  const r = await createHealthProbe().get(`${url}/healthz`, { timeoutMs: 5_000 });
  if ("error" in r) throw new Error(r.error);
});
// A plain-HTTP health URL (the kubelet's) that redirects to the server: following it would
// reach the HTTPS server through Deno's store.
const redirecting = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => new Response(null, { status: 302, headers: { location: `${url}/healthz` } }),
);
results["health probe (plain HTTP, redirected)"] = await outcome(async () => {
  const r = await createHealthProbe().get(
    `http://127.0.0.1:${redirecting.addr.port}/healthz`,
    { timeoutMs: 5_000 },
  );
  if ("error" in r) throw new Error(r.error);
  if (r.status !== 200) throw new Error(`status ${r.status}`);
});
await redirecting.shutdown();
console.log(JSON.stringify(results));
