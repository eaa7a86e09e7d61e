// File and HTTPS discovery (upstream discovery/file): validation, embedding of referenced
// files, the 403 shortcut, the timeout text, and the CA refresh from cluster-info.
import assert from "node:assert/strict";
import {
  discoverWithFile,
  fetchDiscoveryKubeconfig,
  validateKubeconfig,
} from "../../../core/discovery/file.ts";
import {
  embedData,
  emptyKubeconfig,
  type Kubeconfig,
  parseKubeconfig,
} from "../../../core/kubeconfig/kubeconfig.ts";
import { ApiError, DiscoveryError } from "../../../core/errors.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { MemoryFileSystem } from "../../support/memory_fs.ts";
import { DISCOVERY_CA_CERT, EXPECTED_KUBECONFIG } from "../../support/upstream_discovery_data.ts";

const CA_DATA = embedData(DISCOVERY_CA_CERT);

function fileConfig(
  extra: Partial<Kubeconfig> = {},
  cluster: Record<string, unknown> = {},
): Kubeconfig {
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "k", cluster: { server: "https://10.0.0.1:6443", ...cluster } }],
    contexts: [{ name: "c", context: { cluster: "k", user: "u" } }],
    "current-context": "c",
    users: [{ name: "u", user: {} }],
    preferences: {},
    ...extra,
  };
}

const forbidden = () =>
  new ApiError('configmaps "cluster-info" is forbidden: User "system:anonymous" cannot get', {
    status: 403,
    reason: "Forbidden",
  });

function run(config: Kubeconfig | string, answer: () => unknown, extra = {}) {
  const clock = new FakeClock();
  const warnings: string[] = [];
  const seen: Kubeconfig[] = [];
  const p = discoverWithFile({
    kubeconfig: config,
    fetchClusterInfo: (k) => {
      seen.push(k);
      const a = answer();
      return a instanceof Error ? Promise.reject(a) : Promise.resolve(a as never);
    },
    clock,
    sleep: clock.sleep,
    timeoutMs: 500,
    intervalMs: 100,
    warn: (l) => warnings.push(l),
    ...extra,
  });
  return { p, clock, warnings, seen };
}

Deno.test("a 403 on cluster-info is accepted at once: the TLS handshake proved the CA", async () => {
  const { p, warnings, seen } = run(
    fileConfig({}, { "certificate-authority-data": CA_DATA }),
    forbidden,
  );
  const r = await p;
  assert.equal(seen.length, 1);
  assert.equal(r.clusterInfoRead, false);
  assert.equal(r.caRefreshed, false);
  assert.deepEqual(warnings, [
    "[discovery] Could not access the cluster-info ConfigMap for refreshing the cluster-info information, but the TLS cert is valid so proceeding...",
  ]);
});

Deno.test("other errors are retried until the timeout, then reported with upstream's text", async () => {
  const { p, clock, seen } = run(fileConfig(), () => new Error("connection refused"));
  const start = clock.ms;
  const e = await p.then(() => undefined, (x) => x);
  assert.ok(e instanceof DiscoveryError);
  assert.equal(
    e.message,
    "couldn't validate the identity of the API Server: Abort reading the cluster-info ConfigMap after timeout of 500ms: connection refused",
  );
  assert.ok(seen.length >= 5, `${seen.length} attempts`);
  assert.ok(clock.ms - start <= 500);
});

Deno.test("a file without CA data gets cluster-info's CA; the server is never changed", async () => {
  const cm = { data: { kubeconfig: EXPECTED_KUBECONFIG } };
  const { p, warnings } = run(fileConfig(), () => cm);
  const r = await p;
  assert.equal(r.caRefreshed, true);
  assert.equal(r.kubeconfig.clusters![0].cluster["certificate-authority-data"], CA_DATA);
  assert.equal(r.server, "https://10.0.0.1:6443");
  assert.deepEqual(warnings, [
    '[discovery] the API Server endpoint "https://10.0.0.1:6443" in use is different from the endpoint "https://127.0.0.1" which defined in the cluster-info ConfigMap',
  ]);
  const other = "LS0tLQ==";
  const kept = await run(fileConfig({}, { "certificate-authority-data": other }), () => cm).p;
  assert.equal(kept.caRefreshed, false);
  assert.equal(kept.kubeconfig.clusters![0].cluster["certificate-authority-data"], other);
});

Deno.test("a cluster-info with two clusters is rejected, its CA never copied", async () => {
  const two = EXPECTED_KUBECONFIG.replace(
    "clusters:\n",
    `clusters:\n- cluster:\n    certificate-authority-data: ${
      embedData("evil")
    }\n    server: https://10.6.6.6\n  name: ""\n`,
  );
  const { p } = run(fileConfig(), () => ({ data: { kubeconfig: two } }));
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof DiscoveryError);
    assert.match(
      e.message,
      /malformed kubeconfig in the cluster-info ConfigMap: it must define exactly one cluster, found 2/,
    );
    return true;
  });
});

Deno.test("a cluster-info without a usable kubeconfig keeps the file as it is", async () => {
  for (const data of [{}, { kubeconfig: "foo" }]) {
    const r = await run(fileConfig(), () => ({ data })).p;
    assert.equal(r.clusterInfoRead, true);
    assert.equal(r.caRefreshed, false);
  }
});

Deno.test("referenced CA and client files are embedded before use", async () => {
  const files = new MemoryFileSystem({
    "/pki/ca.crt": DISCOVERY_CA_CERT,
    "/pki/client.crt": "CERT",
    "/pki/client.key": "KEY",
  });
  const cfg = fileConfig({
    users: [{
      name: "u",
      user: { "client-certificate": "/pki/client.crt", "client-key": "/pki/client.key" },
    }],
  }, { "certificate-authority": "/pki/ca.crt" });
  const { p, seen } = run(cfg, forbidden, { files });
  const r = await p;
  const cluster = r.kubeconfig.clusters![0].cluster;
  assert.equal(cluster["certificate-authority-data"], CA_DATA);
  assert.equal(cluster["certificate-authority"], undefined);
  const user = r.kubeconfig.users![0].user;
  assert.equal(user["client-certificate-data"], embedData("CERT"));
  assert.equal(user["client-key-data"], embedData("KEY"));
  assert.equal(user["client-key"], undefined);
  assert.equal(
    seen[0].clusters![0].cluster["certificate-authority-data"],
    CA_DATA,
    "fetched with it",
  );
  assert.equal(cfg.clusters![0].cluster["certificate-authority"], "/pki/ca.crt", "input untouched");

  const missing = run(fileConfig({}, { "certificate-authority": "/nope.crt" }), forbidden, {
    files,
  });
  await assert.rejects(
    missing.p,
    /error while reading certificate authority file defined in kubeconfig: open \/nope.crt/,
  );
});

Deno.test("malformed discovery files are rejected with upstream's texts", async () => {
  const cases: [Kubeconfig | string, RegExp][] = [
    [emptyKubeconfig(), /the provided kubeconfig file must have at least one Cluster defined/],
    [fileConfig({ "current-context": "x" }), /the provided kubeconfig file is malformed: /],
    [
      fileConfig({ users: [] }),
      /invalid configuration: user "u" was not found for context "c"/,
    ],
    [
      fileConfig({}, { server: "" }),
      /invalid configuration: no server found for cluster "k"/,
    ],
    ["kind: Pod\n", /no kind "Pod" is registered/],
  ];
  for (const [cfg, re] of cases) {
    const e = await run(cfg, forbidden).p.then(() => undefined, (x) => x);
    assert.ok(e instanceof DiscoveryError, String(e));
    assert.match(e.message, /^couldn't validate the identity of the API Server: /);
    assert.match(e.message, re);
  }
});

Deno.test("validateKubeconfig aggregates like client-go", () => {
  assert.equal(
    validateKubeconfig(emptyKubeconfig()),
    "invalid configuration: no configuration has been provided",
  );
  assert.equal(
    validateKubeconfig(fileConfig({ users: [] }, { server: "" })),
    'invalid configuration: [user "u" was not found for context "c", no server found for cluster "k"]',
  );
  assert.equal(validateKubeconfig(fileConfig()), undefined);
  assert.equal(
    validateKubeconfig(parseKubeconfig(EXPECTED_KUBECONFIG, "kubeconfig", { clientcmd: true })),
    'invalid configuration: user "token-bootstrap-client" was not found for context "token-bootstrap-client@somecluster"',
  );
});

Deno.test("HTTPS discovery needs a 200 (v1.35+) and a kubeconfig body", async () => {
  const urls: string[] = [];
  const cfg = await fetchDiscoveryKubeconfig("https://example.test/discovery.yaml", (u) => {
    urls.push(u);
    return Promise.resolve({ status: 200, body: new TextEncoder().encode(EXPECTED_KUBECONFIG) });
  });
  assert.deepEqual(urls, ["https://example.test/discovery.yaml"]);
  assert.equal(cfg.clusters![0].name, "somecluster");
  await assert.rejects(
    fetchDiscoveryKubeconfig(
      "https://x/d.yaml",
      () => Promise.resolve({ status: 404, body: EXPECTED_KUBECONFIG }),
    ),
    /^DiscoveryError: error trying to fetch discovery kubeconfig over HTTPS from https:\/\/x\/d\.yaml, received status 404$/,
  );
  await assert.rejects(
    fetchDiscoveryKubeconfig("https://x", () => Promise.resolve({ status: 200, body: "<html/>" })),
    /couldn't get version\/kind/,
  );
});
