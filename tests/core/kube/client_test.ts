import { platformTime } from "../../support/platform.ts";
import assert from "node:assert/strict";
import type { ConfigMap, Node } from "kubernetes-types/core/v1.d.ts";
import { ApiError } from "../../../core/errors.ts";
import { KubeClient } from "../../../core/kube/client.ts";
import { SHORT_RETRY_POLICY } from "../../../core/kube/retry.ts";
import { isAlreadyExists, isNotFound } from "../../../core/kube/status.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { FakeKubeApi, requestMatching } from "../../support/fake_kube_api.ts";
import { SilentPeer } from "../../support/silent_peer.ts";

const SERVER = "https://10.0.0.1:6443";

function setup(objects: ConstructorParameters<typeof FakeKubeApi>[0] = {}) {
  const clock = new FakeClock();
  const api = new FakeKubeApi({ clock, ...objects });
  const client = new KubeClient({
    server: SERVER,
    transport: api.transport,
    clock,
    sleep: clock.sleep,
  });
  return { clock, api, client };
}

function configMap(data: Record<string, string>): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "kubeadm-config", namespace: "kube-system" },
    data,
  };
}

Deno.test("create sends POST to the collection path with JSON and kind/apiVersion", async () => {
  const { api, client } = setup();
  const created = await client.create(configMap({ a: "1" }));
  assert.deepEqual(api.calls(), ["POST /api/v1/namespaces/kube-system/configmaps"]);
  assert.equal(api.requests[0].headers.get("Content-Type"), "application/json");
  assert.equal(created.metadata?.resourceVersion, "101");
  assert.equal(api.get<ConfigMap>("ConfigMap", "kube-system", "kubeadm-config")?.data?.a, "1");
});

Deno.test("createOrUpdate creates a missing object", async () => {
  const { api, client } = setup();
  const r = await client.createOrUpdate(configMap({ a: "1" }));
  assert.equal(r.action, "created");
  assert.deepEqual(api.calls(), ["POST /api/v1/namespaces/kube-system/configmaps"]);
});

Deno.test("createOrUpdate on 409 AlreadyExists gets the object and PUTs with its resourceVersion", async () => {
  const { api, client } = setup({ objects: [configMap({ a: "old", keep: "x" })] });
  const before = api.get("ConfigMap", "kube-system", "kubeadm-config")!.metadata!.resourceVersion;
  const r = await client.createOrUpdate(configMap({ a: "new" }));
  assert.equal(r.action, "updated");
  assert.deepEqual(api.calls(), [
    "POST /api/v1/namespaces/kube-system/configmaps",
    "GET /api/v1/namespaces/kube-system/configmaps/kubeadm-config",
    "PUT /api/v1/namespaces/kube-system/configmaps/kubeadm-config",
  ]);
  const put = api.requests[2].body as ConfigMap;
  assert.equal(put.metadata?.resourceVersion, before);
  assert.deepEqual(api.get<ConfigMap>("ConfigMap", "kube-system", "kubeadm-config")?.data, {
    a: "new",
  });
});

Deno.test("createOrUpdate retries a 409 Conflict on update by re-reading", async () => {
  const { api, client, clock } = setup({ objects: [configMap({ a: "old" })] });
  api.failNext({
    match: requestMatching("PUT", "ConfigMap"),
    status: 409,
    reason: "Conflict",
    message: "the object has been modified",
  });
  const r = await client.createOrUpdate(configMap({ a: "new" }));
  assert.equal(r.action, "updated");
  assert.deepEqual(api.calls().map((c) => c.split(" ")[0]), ["POST", "GET", "PUT", "GET", "PUT"]);
  assert.deepEqual(clock.sleeps, [500]);
});

Deno.test("createOrMutate mutates the server's object and keeps its other data", async () => {
  const { api, client } = setup({ objects: [configMap({ ClusterConfiguration: "old", x: "1" })] });
  const r = await client.createOrMutate(configMap({ ClusterConfiguration: "new" }), (cm) => {
    cm.data = { ...cm.data, ClusterConfiguration: "new" };
  });
  assert.equal(r.action, "updated");
  assert.deepEqual(api.get<ConfigMap>("ConfigMap", "kube-system", "kubeadm-config")?.data, {
    ClusterConfiguration: "new",
    x: "1",
  });
});

Deno.test("createOrRetain leaves an existing object alone and creates a missing one", async () => {
  const { api, client } = setup({ objects: [configMap({ a: "mine" })] });
  const kept = await client.createOrRetain(configMap({ a: "theirs" }));
  assert.equal(kept.action, "retained");
  assert.equal(kept.object.data?.a, "mine");
  assert.deepEqual(api.calls(), ["GET /api/v1/namespaces/kube-system/configmaps/kubeadm-config"]);
  const other = await client.createOrRetain({
    ...configMap({ b: "1" }),
    metadata: { name: "other", namespace: "kube-system" },
  });
  assert.equal(other.action, "created");
});

Deno.test("a 503 is retried with exponential backoff, then succeeds", async () => {
  const { api, client, clock } = setup();
  api.failNext({ match: requestMatching("POST"), status: 503, times: 2 });
  const r = await client.createOrUpdate(configMap({ a: "1" }));
  assert.equal(r.action, "created");
  assert.equal(api.requests.length, 3);
  assert.deepEqual(clock.sleeps, [500, 1000]);
});

Deno.test("Retry-After of a 429 lengthens the delay", async () => {
  const { api, client, clock } = setup();
  api.failNext({
    match: requestMatching("GET"),
    status: 429,
    reason: "TooManyRequests",
    headers: { "Retry-After": "3" },
  });
  await client.tryGet({ kind: "ConfigMap", namespace: "kube-system", name: "x" });
  assert.deepEqual(clock.sleeps, [3000]);
});

Deno.test("transient errors stop being retried at the policy timeout", async () => {
  const { api, client, clock } = setup();
  api.failNext({ match: () => true, status: 503, message: "apiserver not ready", times: 1000 });
  const start = clock.ms;
  await assert.rejects(() => client.create(configMap({})), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.status, 503);
    assert.match(e.message, /apiserver not ready/);
    return true;
  });
  assert.ok(clock.ms - start <= 60_000, `slept ${clock.ms - start}ms`);
  assert.ok(clock.sleeps.every((s) => s <= 8000));
  assert.ok(api.requests.length > 5 && api.requests.length < 20);
});

/** A server that never answers the requests `hang` picks and refuses the others. */
function limitRecorder(clock: FakeClock, hang: (attempt: number) => boolean) {
  const peer = new SilentPeer(clock, 30_000);
  return { limits: peer.limits, transport: peer.transport((_, n) => hang(n)) };
}

Deno.test("each attempt is given the time left before the call's deadline, which a timeout then reports", async () => {
  const clock = new FakeClock();
  const { limits, transport } = limitRecorder(clock, (n) => n === 3);
  const client = new KubeClient({
    server: SERVER,
    transport,
    clock,
    sleep: clock.sleep,
    retry: { timeoutMs: 2000 },
  });
  const start = clock.ms;
  await assert.rejects(
    () => client.get({ kind: "ConfigMap", namespace: "kube-system", name: "x" }),
    (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.reason, "Timeout");
      assert.equal(e.status, 0);
      assert.equal(e.hint, "the API server did not answer");
      assert.equal(
        e.message,
        'unable to get ConfigMap kube-system/x: Get "https://10.0.0.1:6443/api/v1/namespaces/' +
          'kube-system/configmaps/x": context deadline exceeded (no complete response within ' +
          "the call's deadline of 2s, counted from its first attempt)",
      );
      return true;
    },
  );
  // Refused at 0 and 500ms; the third attempt, at 1500ms, may only run until 2000ms.
  assert.deepEqual(limits, [2000, 1500, 500]);
  assert.deepEqual(clock.sleeps, [500, 1000]);
  assert.equal(clock.ms - start, 2000);
});

Deno.test("a single-attempt client leaves the bound to the transport; its timeout is reported as is", async () => {
  const clock = new FakeClock();
  const { limits, transport } = limitRecorder(clock, () => true);
  const client = new KubeClient({ server: SERVER, transport, clock, sleep: clock.sleep })
    .withRetry({ timeoutMs: 0 });
  await assert.rejects(() => client.get({ kind: "Node", name: "n" }), /: timeout after 30000ms$/);
  assert.deepEqual(limits, [undefined]);
});

Deno.test("the short retry (kubeadm-config) stops new attempts at 350ms but lets one run 10s", async () => {
  const clock = new FakeClock();
  const { limits, transport } = limitRecorder(clock, () => true);
  const client = new KubeClient({ server: SERVER, transport, clock, sleep: clock.sleep })
    .withRetry(SHORT_RETRY_POLICY);
  await assert.rejects(
    () => client.get({ kind: "ConfigMap", namespace: "kube-system", name: "kubeadm-config" }),
    // The attempt's own bound, not the 350ms window, is what ran out.
    /configmaps\/kubeadm-config": timeout after 10000ms$/,
  );
  assert.deepEqual(limits, [10_000]);
});

Deno.test("a call's own limits bound it, retries included, and never stretch to the short retry's floor", async () => {
  const clock = new FakeClock();
  const refused = limitRecorder(clock, () => false);
  const client = new KubeClient({
    server: SERVER,
    transport: refused.transport,
    clock,
    sleep: clock.sleep,
  });
  const start = clock.ms;
  await assert.rejects(
    () => client.get({ kind: "Node", name: "n" }, { timeoutMs: 1200 }),
    /refused/,
  );
  // Retried at 500ms; the next retry (1500ms) would start past the call's 1200ms.
  assert.deepEqual(refused.limits, [1200, 700]);
  assert.equal(clock.ms - start, 500);

  const silent = limitRecorder(clock, () => true);
  const once = new KubeClient({
    server: SERVER,
    transport: silent.transport,
    clock,
    sleep: clock.sleep,
  })
    .withRetry({ timeoutMs: 0 });
  await assert.rejects(
    () => once.list("Pod", { namespace: "kube-system" }, { timeoutMs: 800 }),
    (e: unknown) => {
      assert.ok(e instanceof ApiError && e.reason === "Timeout");
      assert.match(
        e.message,
        /context deadline exceeded \(no complete response within the call's deadline of 800ms, counted from its first attempt\)$/,
      );
      return true;
    },
  );
  await assert.rejects(() => once.getRaw("/livez", { timeoutMs: 300 }), /timeout after 300ms/);
  const short = once.withRetry(SHORT_RETRY_POLICY);
  await assert.rejects(
    () =>
      short.get({ kind: "ConfigMap", namespace: "kube-system", name: "x" }, { timeoutMs: 3000 }),
    /call's deadline of 3s/,
  );
  assert.deepEqual(silent.limits, [800, 300, 3000]);
});

Deno.test("a 403 fails at once naming the object and carrying the server message", async () => {
  const { api, client, clock } = setup();
  api.failNext({
    match: requestMatching("POST"),
    status: 403,
    reason: "Forbidden",
    message:
      'configmaps is forbidden: User "system:anonymous" cannot create resource "configmaps" in API group "" in the namespace "kube-system"',
  });
  await assert.rejects(() => client.createOrUpdate(configMap({})), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.status, 403);
    assert.equal(e.reason, "Forbidden");
    assert.deepEqual(e.object, {
      kind: "ConfigMap",
      namespace: "kube-system",
      name: "kubeadm-config",
    });
    assert.match(e.message, /^unable to create ConfigMap kube-system\/kubeadm-config: /);
    assert.match(e.message, /User "system:anonymous" cannot create resource "configmaps"/);
    assert.match(e.hint ?? "", /RBAC/);
    return true;
  });
  assert.equal(api.requests.length, 1);
  assert.deepEqual(clock.sleeps, []);
});

Deno.test("401, 404, 409 and 422 give typed errors with reasons and hints", async () => {
  const { api, client } = setup();
  await assert.rejects(
    () => client.get({ kind: "Node", name: "missing" }),
    (e: unknown) =>
      isNotFound(e) &&
      /unable to get Node missing: nodes "missing" not found/.test((e as Error).message),
  );
  await client.create(configMap({}));
  await assert.rejects(() => client.create(configMap({})), isAlreadyExists);
  api.failNext({ match: () => true, status: 401, reason: "Unauthorized", message: "Unauthorized" });
  await assert.rejects(() => client.get({ kind: "Node", name: "n" }), (e: unknown) => {
    assert.ok(e instanceof ApiError && e.status === 401);
    assert.match(e.hint ?? "", /credentials/);
    return true;
  });
  api.failNext({
    match: () => true,
    status: 422,
    reason: "Invalid",
    message:
      'Service "kube-dns" is invalid: spec.clusterIP: Invalid value: "10.96.0.10": provided IP is already allocated',
  });
  await assert.rejects(() => client.get({ kind: "Node", name: "n" }), (e: unknown) => {
    assert.ok(e instanceof ApiError && e.reason === "Invalid");
    assert.match(e.message, /provided IP is already allocated/);
    return true;
  });
});

Deno.test("bootstrap token secrets are redacted from server messages", async () => {
  const { api, client } = setup();
  api.failNext({
    match: () => true,
    status: 422,
    reason: "Invalid",
    message: "bad token abcdef.0123456789abcdef",
  });
  await assert.rejects(() => client.get({ kind: "Node", name: "n" }), (e: unknown) => {
    assert.doesNotMatch((e as Error).message, /0123456789abcdef/);
    assert.match((e as Error).message, /abcdef\.<redacted>/);
    return true;
  });
});

Deno.test("connection refused from the transport is retried; TLS trust errors are not", async () => {
  const { api, client, clock } = setup();
  api.failNext({
    match: () => true,
    error: new ApiError('Get "https://10.0.0.1:6443/x": dial tcp: connect: connection refused', {
      status: 0,
      reason: "ConnectionRefused",
    }),
    times: 2,
  });
  await client.create(configMap({}));
  assert.equal(clock.sleeps.length, 2);
  api.failNext({
    match: () => true,
    error: new ApiError("x509: certificate signed by unknown authority", {
      status: 0,
      reason: "UnknownAuthority",
      hint: "wrong CA",
    }),
  });
  await assert.rejects(() => client.get({ kind: "Node", name: "n" }), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.reason, "UnknownAuthority");
    assert.equal(e.hint, "wrong CA");
    assert.match(e.message, /^unable to get Node n: x509: certificate signed by unknown authority/);
    return true;
  });
  assert.equal(clock.sleeps.length, 2);
});

Deno.test("patch uses the content type of the patch kind", async () => {
  const { api, client } = setup({
    objects: [{ apiVersion: "v1", kind: "Node", metadata: { name: "n1", labels: { a: "1" } } }],
  });
  const node = await client.patch<Node>(
    { kind: "Node", name: "n1" },
    { metadata: { labels: { b: "2" } } },
    "strategic",
  );
  assert.deepEqual(node.metadata?.labels, { a: "1", b: "2" });
  assert.equal(
    api.requests[0].headers.get("Content-Type"),
    "application/strategic-merge-patch+json",
  );
  await client.patch({ kind: "Node", name: "n1" }, { metadata: {} }, "merge");
  assert.equal(api.requests[1].headers.get("Content-Type"), "application/merge-patch+json");
});

Deno.test("list sends selectors and returns typed items", async () => {
  const { api, client } = setup({
    objects: [
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "coredns", namespace: "kube-system", labels: { "k8s-app": "kube-dns" } },
      },
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "other", namespace: "kube-system", labels: { "k8s-app": "x" } },
      },
    ],
  });
  const items = await client.list("Deployment", {
    namespace: "kube-system",
    labelSelector: "k8s-app=kube-dns",
  });
  assert.deepEqual(items.map((d) => d.metadata?.name), ["coredns"]);
  assert.equal(items[0].kind, "Deployment");
  assert.equal(api.requests[0].path, "/apis/apps/v1/namespaces/kube-system/deployments");
  assert.equal(api.requests[0].query.get("labelSelector"), "k8s-app=kube-dns");
});

Deno.test("delete sends preconditions and removes the object", async () => {
  const { api, client } = setup({ objects: [configMap({})] });
  const uid = api.get("ConfigMap", "kube-system", "kubeadm-config")!.metadata!.uid!;
  await assert.rejects(() =>
    client.delete({ kind: "ConfigMap", namespace: "kube-system", name: "kubeadm-config" }, {
      uid: "wrong",
    })
  );
  await client.delete({ kind: "ConfigMap", namespace: "kube-system", name: "kubeadm-config" }, {
    uid,
    propagationPolicy: "Background",
  });
  assert.deepEqual(api.requests[1].body, {
    apiVersion: "v1",
    kind: "DeleteOptions",
    preconditions: { uid },
    propagationPolicy: "Background",
  });
  assert.equal(api.get("ConfigMap", "kube-system", "kubeadm-config"), undefined);
});

Deno.test("raw endpoints: healthz/readyz/livez and version", async () => {
  const { api, client } = setup();
  assert.equal(await client.healthy("healthz"), true);
  api.raw.set("/readyz", { status: 500, body: "[-]etcd failed" });
  assert.equal(await client.healthy("readyz"), false);
  assert.deepEqual(await client.getRaw("/readyz"), { status: 500, body: "[-]etcd failed" });
  assert.equal((await client.version()).gitVersion, "v1.37.2");
});

Deno.test("namespaced kinds need a namespace; unknown kinds are rejected", async () => {
  const { client } = setup();
  await assert.rejects(
    () => client.get({ kind: "ConfigMap", name: "x" }),
    /a namespace is required for ConfigMap objects/,
  );
  await assert.rejects(
    () => client.get({ kind: "Widget", name: "x" }),
    /unsupported API resource Widget/,
  );
});

Deno.test("the server URL may end with a slash", async () => {
  const api = new FakeKubeApi();
  const client = new KubeClient({
    server: `${SERVER}/`,
    transport: api.transport,
    ...platformTime,
  });
  await client.getRaw("/healthz");
  assert.equal(api.requests[0].path, "/healthz");
});
