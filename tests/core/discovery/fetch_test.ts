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
import { DISCOVERY_RETRY_INTERVAL_MS } from "../../../core/constants.ts";
import { ApiError } from "../../../core/errors.ts";
import {
  DISCOVERY_CA_CERT,
  DISCOVERY_CA_HASH,
  DISCOVERY_TOKEN,
  EXPECTED_KUBECONFIG,
} from "../../support/upstream_discovery_data.ts";

const PATH = "/api/v1/namespaces/kube-public/configmaps/cluster-info";
/** A discovery file: the CA pinned, a token as its credential. */
const DISCOVERY_FILE = `apiVersion: v1
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
`;

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
  assert.deepEqual(clock.sleeps, [1_000], "one 1s discovery interval, no client-side retries");
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

/** cluster-info as init leaves it; signed for the token when `signed`. */
async function clusterInfo(signed: boolean) {
  const data: Record<string, string> = { kubeconfig: EXPECTED_KUBECONFIG };
  if (signed) {
    data["jws-kubeconfig-123456"] = await computeDetachedSignature(
      EXPECTED_KUBECONFIG,
      "123456",
      "abcdef1234567890",
      webCryptoPort,
    );
  }
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cluster-info", namespace: "kube-public" },
    data,
  } as never;
}

Deno.test("a join started with its control plane retries every second: on within 1s of the signature (issue 28)", async () => {
  assert.equal(DISCOVERY_RETRY_INTERVAL_MS, 1_000, "upstream's DiscoveryRetryInterval is 5s");
  const clock = new FakeClock();
  const start = clock.ms;
  const api = new FakeKubeApi({ clock });
  const unsigned = await clusterInfo(false);
  const signed = await clusterInfo(true);
  // The API server refuses until 0.5s, serves an unsigned cluster-info from then, and the
  // bootstrap-signer signs it at 1.5s.
  api.onRequest = (_r, a) => {
    const t = clock.ms - start;
    if (t < 500) {
      throw new ApiError("dial tcp 10.0.0.1:6443: connect: connection refused", {
        status: 0,
        reason: "ConnectionRefused",
      });
    }
    a.put(t < 1_500 ? unsigned : signed);
  };
  const log: string[] = [];
  const r = await discoverWithToken({
    endpoint: "10.0.0.1:6443",
    log: (l) => log.push(l),
    token: DISCOVERY_TOKEN,
    caCertHashes: [DISCOVERY_CA_HASH],
    fetchClusterInfo: clusterInfoFetcher("10.0.0.1:6443", () => api.transport, {
      clock,
      sleep: clock.sleep,
    }),
    clock,
    sleep: clock.sleep,
    crypto: webCryptoPort,
  });
  assert.equal(r.kubeconfigText, EXPECTED_KUBECONFIG);
  assert.deepEqual(clock.sleeps, [1_000, 1_000], "refused at 0s, unsigned at 1s, signed at 2s");
  assert.equal(clock.ms - start, 2_000, "done 0.5s after the signature (upstream: 3.5s)");
  assert.equal(api.requests.length, 4, "three insecure attempts, one pinned");
  // Upstream's -v=1 lines, one pair per failed attempt.
  const waiting =
    '[discovery] Waiting for the cluster-info ConfigMap to receive a JWS signature for token ID "123456"';
  assert.deepEqual(log.slice(0, 6), [
    '[discovery] Created cluster-info discovery client, requesting info from "10.0.0.1:6443"',
    waiting,
    "[discovery] Retrying due to error: failed to request the cluster-info ConfigMap: unable to get ConfigMap kube-public/cluster-info: dial tcp 10.0.0.1:6443: connect: connection refused",
    waiting,
    '[discovery] Retrying due to error: could not find a JWS signature in the cluster-info ConfigMap for token ID "123456"',
    waiting,
  ]);
});

Deno.test("a server that asks for longer (Retry-After) gets longer, token and file discovery alike", async () => {
  for (const method of ["token", "file"] as const) {
    const clock = new FakeClock();
    const api = new FakeKubeApi({ clock });
    api.put(await clusterInfo(true));
    // API Priority and Fairness: 429, retry after 3s; then a 503 asking for nothing.
    api.failNext({
      match: requestMatching("GET", "ConfigMap"),
      status: 429,
      reason: "TooManyRequests",
      headers: { "Retry-After": "3" },
    });
    api.failNext({ match: requestMatching("GET", "ConfigMap"), status: 503 });
    const time = { clock, sleep: clock.sleep };
    if (method === "token") {
      await discoverWithToken({
        token: DISCOVERY_TOKEN,
        fetchClusterInfo: clusterInfoFetcher("10.0.0.1:6443", () => api.transport, time),
        ...time,
        crypto: webCryptoPort,
      });
    } else {
      await discoverWithFile({
        kubeconfig: DISCOVERY_FILE,
        fetchClusterInfo: clusterInfoFetcherWithKubeconfig(() => api.transport, time),
        ...time,
      });
    }
    assert.deepEqual(
      clock.sleeps,
      [3_000, 1_000],
      `${method}: the server's 3s, then the 1s interval`,
    );
    assert.equal(api.requests.length, 3, method);
  }
  // Asked for longer than the discovery has left: no attempt past its deadline.
  const clock = new FakeClock();
  const api = new FakeKubeApi({ clock });
  api.failNext({
    match: requestMatching("GET", "ConfigMap"),
    status: 429,
    reason: "TooManyRequests",
    headers: { "Retry-After": "32" },
  });
  const e = await discoverWithToken({
    token: DISCOVERY_TOKEN,
    fetchClusterInfo: clusterInfoFetcher("10.0.0.1:6443", () => api.transport, {
      clock,
      sleep: clock.sleep,
    }),
    clock,
    sleep: clock.sleep,
    timeoutMs: 20_000,
    crypto: webCryptoPort,
  }).then(() => undefined, (x) => x as Error);
  assert.match(
    e?.message ?? "",
    /failed to request the cluster-info ConfigMap: .*injected failure/,
  );
  assert.deepEqual(clock.sleeps, [], "a retry at 32s would start past the 20s deadline");
  assert.equal(api.requests.length, 1);
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
  assert.equal(api.requests.length, 13, "attempts every second from 0s to 12s");
});

Deno.test("file discovery fetches with the file's CA and credentials", async () => {
  const clock = new FakeClock();
  const api = new FakeKubeApi({ clock });
  api.failNext({ match: requestMatching("GET", "ConfigMap"), status: 403, reason: "Forbidden" });
  const params: ConnectionParams[] = [];
  const config = parseKubeconfig(
    DISCOVERY_FILE,
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
