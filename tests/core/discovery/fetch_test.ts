// Discovery over the core's Kubernetes client: the connection parameters of each fetch and a
// full token discovery against the in-memory API server.
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import {
  clusterInfoFetcher,
  clusterInfoFetcherWithKubeconfig,
  connectionFromDiscoveryKubeconfig,
  discoveryConnection,
} from "../../../core/discovery/fetch.ts";
import { computeDetachedSignature } from "../../../core/discovery/jws.ts";
import { discoverWithToken } from "../../../core/discovery/token.ts";
import { discoverWithFile } from "../../../core/discovery/file.ts";
import { embedData, parseKubeconfig } from "../../../core/kubeconfig/kubeconfig.ts";
import type { ConnectionParams } from "../../../core/ports/transport.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { FakeKubeApi, requestMatching } from "../../support/fake_kube_api.ts";
import {
  DISCOVERY_CA_CERT,
  DISCOVERY_CA_HASH,
  DISCOVERY_TOKEN,
  EXPECTED_KUBECONFIG,
} from "../../support/upstream_discovery_data.ts";

const PATH = "/api/v1/namespaces/kube-public/configmaps/cluster-info";

Deno.test("discovery connections: insecure first, then pinned to the CA bundle", () => {
  assert.deepEqual(discoveryConnection("10.0.0.1:6443", { kind: "insecure" }), {
    server: "https://10.0.0.1:6443",
    insecureSkipTLSVerify: true,
  });
  assert.deepEqual(discoveryConnection("[fd00::1]:6443", { kind: "pinned", caPem: "PEM" }), {
    server: "https://[fd00::1]:6443",
    caPem: "PEM",
  });
});

Deno.test("token discovery end to end against the fake API server", async () => {
  const clock = new FakeClock();
  const api = new FakeKubeApi({ clock });
  api.put({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cluster-info", namespace: "kube-public" },
    data: {
      kubeconfig: EXPECTED_KUBECONFIG,
      "jws-kubeconfig-123456": await computeDetachedSignature(
        EXPECTED_KUBECONFIG,
        "123456",
        "abcdef1234567890",
        webCryptoPort,
      ),
    },
  } as never);
  // The first attempt hits a server that is still starting.
  api.failNext({ match: requestMatching("GET", "ConfigMap"), status: 503 });
  const params: ConnectionParams[] = [];
  const log: string[] = [];
  const r = await discoverWithToken({
    endpoint: "10.0.0.1:6443",
    log: (l) => log.push(l),
    token: DISCOVERY_TOKEN,
    caCertHashes: [DISCOVERY_CA_HASH],
    fetchClusterInfo: clusterInfoFetcher("10.0.0.1:6443", (p) => {
      params.push(p);
      return api.transport;
    }, { clock, sleep: clock.sleep }),
    clock,
    sleep: clock.sleep,
    crypto: webCryptoPort,
  });
  assert.equal(r.kubeconfigText, EXPECTED_KUBECONFIG);
  assert.deepEqual(api.calls(), [`GET ${PATH}`, `GET ${PATH}`, `GET ${PATH}`]);
  assert.deepEqual(clock.sleeps, [5_000], "one 5s discovery interval, no client-side retries");
  assert.deepEqual(params, [
    { server: "https://10.0.0.1:6443", insecureSkipTLSVerify: true },
    { server: "https://10.0.0.1:6443", insecureSkipTLSVerify: true },
    { server: "https://10.0.0.1:6443", caPem: DISCOVERY_CA_CERT },
  ]);
  assert.ok(api.requests.every((q) => !q.headers.has("Authorization")), "anonymous");
  assert.equal(
    log[0],
    '[discovery] Created cluster-info discovery client, requesting info from "10.0.0.1:6443"',
  );
  assert.ok(log.some((l) => l.startsWith("[discovery] Retrying due to error: failed to request")));
  assert.equal(
    log.at(-1),
    '[discovery] Cluster info signature and contents are valid and TLS certificate validates against pinned roots, will use API Server "10.0.0.1:6443"',
  );
  assert.ok(log.every((l) => !l.includes("abcdef1234567890")), "no secret in the log");
});

Deno.test("a missing ConfigMap surfaces the API server's NotFound text", async () => {
  const clock = new FakeClock();
  const api = new FakeKubeApi({ clock });
  const e = await discoverWithToken({
    token: DISCOVERY_TOKEN,
    caCertHashes: [DISCOVERY_CA_HASH],
    fetchClusterInfo: clusterInfoFetcher("10.0.0.1:6443", () => api.transport, {
      clock,
      sleep: clock.sleep,
    }),
    clock,
    sleep: clock.sleep,
    timeoutMs: 12_000,
    crypto: webCryptoPort,
  }).then(() => undefined, (x) => x as Error);
  assert.ok(e);
  assert.match(
    e.message,
    /^couldn't validate the identity of the API Server: failed to request the cluster-info ConfigMap: /,
  );
  assert.match(e.message, /cluster-info/);
  assert.equal(api.requests.length, 3, "attempts at 0s, 5s and 10s");
});

Deno.test("file discovery fetches with the file's CA and credentials", async () => {
  const clock = new FakeClock();
  const api = new FakeKubeApi({ clock });
  api.failNext({ match: requestMatching("GET", "ConfigMap"), status: 403, reason: "Forbidden" });
  const params: ConnectionParams[] = [];
  const config = parseKubeconfig(
    `
apiVersion: v1
kind: Config
clusters:
- name: k
  cluster:
    server: https://lb.example:6443
    certificate-authority-data: ${embedData(DISCOVERY_CA_CERT)}
contexts:
- name: c
  context: {cluster: k, user: u}
current-context: c
users:
- name: u
  user: {token: ${DISCOVERY_TOKEN}}
`,
    "kubeconfig",
    { clientcmd: true },
  );
  const r = await discoverWithFile({
    kubeconfig: config,
    fetchClusterInfo: clusterInfoFetcherWithKubeconfig((p) => {
      params.push(p);
      return api.transport;
    }, { clock, sleep: clock.sleep }),
    clock,
    sleep: clock.sleep,
  });
  assert.equal(r.clusterInfoRead, false);
  assert.deepEqual(params, [{
    server: "https://lb.example:6443",
    caPem: DISCOVERY_CA_CERT,
    token: DISCOVERY_TOKEN,
  }]);
  assert.deepEqual(connectionFromDiscoveryKubeconfig(config), params[0]);
});
