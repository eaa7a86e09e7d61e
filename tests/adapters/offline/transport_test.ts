import { platformTime } from "../../support/platform.ts";
import { realSleep } from "../../../adapters/web/clock.ts";
import { parseDryRunActions } from "../../support/dry_run_output.ts";
import assert from "node:assert/strict";
import type { ConfigMap, Node, Secret } from "kubernetes-types/core/v1.d.ts";
import { KubeClient } from "../../../core/kube/client.ts";
import { createDryRunTransport } from "../../../adapters/offline/transport.ts";
import { isNotFound } from "../../../core/kube/status.ts";
import { KUBERNETES_VERSION } from "../../../core/versions.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";

function setup(objects: ConfigMap[] = []) {
  const out = new RecordingPrinter();
  const dry = createDryRunTransport({ out, objects });
  const client = new KubeClient({
    server: "https://10.0.0.1:6443",
    transport: dry.transport,
    ...platformTime,
  });
  return { out, dry, client };
}

const cm: ConfigMap = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "kubeadm-config", namespace: "kube-system" },
  data: { ClusterConfiguration: "x" },
};

Deno.test("dry-run records and prints writes instead of sending them", async () => {
  const { out, dry, client } = setup();
  const r = await client.createOrUpdate(cm);
  assert.equal(r.action, "created");
  assert.deepEqual(r.object.data, cm.data, "returns what it would create");
  await client.patch(
    { kind: "Node", name: "n1" },
    { metadata: { labels: { a: "" } } },
    "strategic",
  );
  await client.delete({ kind: "Secret", namespace: "kube-system", name: "s" });
  const text = out.lines.join("\n");
  assert.deepEqual(parseDryRunActions(text).map((a) => `${a.verb} ${a.resource} ${a.name}`), [
    "CREATE configmaps kubeadm-config",
    "PATCH nodes n1",
    "DELETE secrets s",
  ]);
  assert.ok(
    out.lines.includes(
      '[dryrun] Would perform action CREATE on resource "configmaps" in API group "core/v1"',
    ),
  );
  assert.deepEqual(parseDryRunActions(text)[0].object?.data, cm.data, "the object is printed");
  assert.deepEqual(dry.actions.map((a) => a.verb), ["create", "patch", "delete"]);
  assert.deepEqual(dry.actions[0].object?.metadata?.name, "kubeadm-config");
});

Deno.test("dry-run serves back objects it 'created' and synthesizes Nodes", async () => {
  const { client } = setup();
  await client.create<Secret>({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "bootstrap-token-abcdef", namespace: "kube-system" },
  });
  const s = await client.get<Secret>({
    kind: "Secret",
    namespace: "kube-system",
    name: "bootstrap-token-abcdef",
  });
  assert.ok(s.metadata?.uid, "a uid is assigned for owner references");
  const node = await client.get<Node>({ kind: "Node", name: "cp-1" });
  assert.equal(node.metadata?.labels?.["kubernetes.io/hostname"], "cp-1");
  await assert.rejects(
    () => client.get({ kind: "ConfigMap", namespace: "kube-system", name: "nope" }),
    isNotFound,
  );
});

Deno.test("dry-run seeds, lists and raw endpoints", async () => {
  const { client, out } = setup([cm]);
  const kept = await client.createOrRetain({ ...cm, data: { other: "1" } });
  assert.equal(kept.action, "retained");
  assert.deepEqual(out.lines, [
    '[dryrun] Would perform action GET on resource "configmaps" in API group "core/v1"',
    '[dryrun] Resource name "kubeadm-config", namespace "kube-system"',
  ], "reads are printed as upstream does, without an attached object");
  const before = out.lines.length;
  assert.equal((await client.list("ConfigMap", { namespace: "kube-system" })).length, 1);
  assert.deepEqual(out.lines.slice(before), [
    '[dryrun] Would perform action LIST on resource "configmaps" in API group "core/v1"',
  ], "a list names no resource (client-go's list action has no name)");
  assert.equal(await client.healthy("readyz"), true);
  // The dry-run API server is the version kubeadm-ts matches, its minor derived from it.
  const version = await client.version();
  assert.equal(version.gitVersion, KUBERNETES_VERSION);
  assert.equal(version.major, "1");
  assert.equal(version.minor, KUBERNETES_VERSION.split(".")[1]);
});

Deno.test("dry-run never prints Secret values: create, update and patch show the keys only", async () => {
  const { out, dry, client } = setup();
  const secretB64 = btoa("0123456789abcdef");
  const secret: Secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "bootstrap-token-abcdef", namespace: "kube-system" },
    type: "bootstrap.kubernetes.io/token",
    data: { "token-id": btoa("abcdef"), "token-secret": secretB64 },
    stringData: { "plain": "hunter2" },
  };
  await client.createOrUpdate(secret);
  await client.update({ ...secret, data: { ...secret.data, extra: btoa("more-secret") } });
  await client.patch(
    { kind: "Secret", namespace: "kube-system", name: "bootstrap-token-abcdef" },
    { data: { "token-secret": btoa("patched-secret") } },
    "merge",
  );
  const text = out.lines.join("\n");
  for (const leak of [secretB64, "hunter2", btoa("more-secret"), btoa("patched-secret")]) {
    assert.ok(!text.includes(leak), `${leak} printed:\n${text}`);
  }
  const printed = parseDryRunActions(text);
  assert.deepEqual(printed.map((a) => a.verb), ["CREATE", "UPDATE", "PATCH"]);
  assert.deepEqual(printed[0].object?.data, {
    "token-id": "<redacted>",
    "token-secret": "<redacted>",
  });
  assert.deepEqual(printed[0].object?.stringData, { plain: "<redacted>" });
  assert.equal(printed[0].object?.type, "bootstrap.kubernetes.io/token", "the rest is printed");
  assert.deepEqual(printed[2].object, { data: { "token-secret": "<redacted>" } });
  // What the simulated server keeps (and serves back) is the real object.
  assert.equal((dry.actions[0].object as Secret).data?.["token-secret"], secretB64);
  const got = await client.get<Secret>({
    kind: "Secret",
    namespace: "kube-system",
    name: "bootstrap-token-abcdef",
  });
  assert.equal(got.data?.["token-secret"], btoa("patched-secret"));
});

Deno.test("dry-run answers the same over HTTP messages as through its in-process exchange", async () => {
  // A client takes the transport's exchange when it has one; a wrapper without it sends Requests.
  const script = async (client: KubeClient) => [
    await client.createOrUpdate(cm),
    await client.createOrUpdate({ ...cm, data: { other: "1" } }),
    await client.patch({ kind: "Node", name: "n1" }, { metadata: { labels: { a: "" } } }, "merge"),
    await client.tryGet({ kind: "Secret", namespace: "kube-system", name: "absent" }),
    await client.list("ConfigMap", { namespace: "kube-system" }),
    await client.getRaw("/readyz"),
    await client.version(),
    await client.delete({ kind: "ConfigMap", namespace: "kube-system", name: "kubeadm-config" }),
  ];
  const direct = createDryRunTransport({ objects: [] });
  assert.ok(direct.transport.exchange, "the dry-run transport offers an exchange");
  const http = createDryRunTransport({ objects: [] });
  const server = "https://10.0.0.1:6443";
  const viaExchange = await script(
    new KubeClient({ server, transport: direct.transport, ...platformTime }),
  );
  const viaHttp = await script(
    new KubeClient({ server, transport: (request) => http.transport(request), ...platformTime }),
  );
  assert.deepEqual(viaHttp, viaExchange);
  assert.deepEqual(http.actions, direct.actions);
  assert.deepEqual(direct.actions.map((a) => a.verb), [
    "create",
    "create",
    "patch",
    "get",
    "list",
    "delete",
  ]);
});

Deno.test("reads from a real cluster behind a dry run get the client's per-attempt limits", async () => {
  const seen: (number | undefined)[] = [];
  const dry = createDryRunTransport({
    backing: (request, limits) => {
      seen.push(limits?.timeoutMs);
      return Promise.resolve(
        request.url.endsWith("/version")
          ? Response.json({ major: "1", minor: "37", gitVersion: "v1.37.2" })
          : Response.json({ kind: "Status", code: 404, reason: "NotFound" }, { status: 404 }),
      );
    },
  });
  const clock = { now: () => new Date(0) };
  const client = new KubeClient({
    server: "https://10.0.0.1:6443",
    transport: dry.transport,
    clock,
    retry: { timeoutMs: 5000 },
    sleep: realSleep,
  });
  assert.equal((await client.version()).gitVersion, "v1.37.2");
  await client.tryGet({ kind: "ConfigMap", namespace: "kube-system", name: "x" });
  assert.deepEqual(seen, [5000, 5000]);
});
