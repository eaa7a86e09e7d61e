/**
 * `systemctl` inside a test node: forwards its arguments to the node's service manager
 * (tests/support/node_services.ts) over the Unix socket named by `KTS_NODE_SYSTEMCTL_SOCKET`,
 * prints what it answers and exits with its code. Dependency-free: the node's `systemctl`
 * script runs it with `deno run --no-config`.
 *
 * @module
 */
const path = Deno.env.get("KTS_NODE_SYSTEMCTL_SOCKET") ?? "/run/kts-node/systemctl.sock";
const client = Deno.createHttpClient({ proxy: { transport: "unix", path } });
try {
  // "localhost": the host name is resolved even though the socket is given, and a node has
  // no reachable DNS server (any other name stalls ~10 s).
  const init = {
    method: "POST",
    client,
    body: JSON.stringify(Deno.args),
    signal: AbortSignal.timeout(120_000),
  };
  const res = await fetch(
    "http://localhost/systemctl",
    init as RequestInit & { client: Deno.HttpClient },
  );
  if (!res.ok) throw new Error(`service manager answered ${res.status}: ${await res.text()}`);
  const out = await res.json() as { code: number; stdout: string; stderr: string };
  await Deno.stdout.write(new TextEncoder().encode(out.stdout));
  await Deno.stderr.write(new TextEncoder().encode(out.stderr));
  Deno.exitCode = out.code;
} catch (e) {
  console.error(`systemctl: cannot reach the test node's service manager at ${path}: ${e}`);
  Deno.exitCode = 1;
} finally {
  client.close();
}
