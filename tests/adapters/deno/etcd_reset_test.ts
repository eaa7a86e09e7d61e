// remove-etcd-member against a real two-member etcd cluster on loopback (TLS, client
// certificates from openssl): the reset of member m2 removes it from the cluster.
import assert from "node:assert/strict";
import http from "node:http";
import { buildResetData } from "../../../core/phases/reset/data.ts";
import { runReset } from "../../../core/phases/reset/workflow.ts";
import { EtcdGatewayClient } from "../../../adapters/deno/etcd.ts";
import { DenoNodeHost } from "../../../adapters/deno/node.ts";
import { EtcdMemberNotFound } from "../../../core/ports/etcd.ts";
import { startEtcdCluster } from "../../support/etcd_cluster.ts";
import { CapturePrinter } from "../../support/fake_machine.ts";

Deno.test({
  name: "reset removes this node's member from a real two-member etcd cluster",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const cluster = await startEtcdCluster(2);
    const root = await Deno.makeTempDir({ prefix: "kubeadm-ts-etcd-node-" });
    try {
      const [m1, m2] = cluster.members;
      const pki = `${root}/etc/kubernetes/pki`;
      await Deno.mkdir(`${pki}/etcd`, { recursive: true });
      await Deno.copyFile(cluster.pki.caCrt, `${pki}/etcd/ca.crt`);
      await Deno.copyFile(cluster.pki.clientCrt, `${pki}/apiserver-etcd-client.crt`);
      await Deno.copyFile(cluster.pki.clientKey, `${pki}/apiserver-etcd-client.key`);
      await Deno.mkdir(`${root}/etc/kubernetes/manifests`, { recursive: true });
      await Deno.writeTextFile(
        `${root}/etc/kubernetes/manifests/etcd.yaml`,
        [
          "apiVersion: v1",
          "kind: Pod",
          "spec:",
          "  containers:",
          "  - name: etcd",
          "    command:",
          "    - etcd",
          `    - --name=${m2.name}`,
          `    - --advertise-client-urls=${m2.clientURL}`,
          `    - --initial-advertise-peer-urls=${m2.peerURL}`,
          `    - --initial-cluster=${cluster.initialCluster}`,
          "  volumes:",
          "  - name: etcd-data",
          "    hostPath: {path: /var/lib/etcd}",
          "",
        ].join("\n"),
      );
      await Deno.mkdir(`${root}/var/lib/etcd/member`, { recursive: true });
      await Deno.writeTextFile(`${root}/var/lib/etcd/member/db`, "x");

      const tls = {
        caPem: await Deno.readTextFile(cluster.pki.caCrt),
        certPem: await Deno.readTextFile(cluster.pki.clientCrt),
        keyPem: await Deno.readTextFile(cluster.pki.clientKey),
      };
      const client = new EtcdGatewayClient([m1.clientURL], tls, 10_000, 120_000);
      assert.deepEqual((await client.listMembers()).map((m) => m.name).sort(), ["m1", "m2"]);
      await assert.rejects(() => client.removeMember("12345"), EtcdMemberNotFound);

      const out = new CapturePrinter();
      const data = buildResetData({
        inputs: { force: true },
        out,
        node: new DenoNodeHost({ root, etcd: { timeoutMs: 10_000, retryForMs: 120_000 } }),
        confirm: () => Promise.resolve(undefined),
      });
      await runReset(data, { only: "remove-etcd-member" });
      assert.deepEqual(out.stderr, [
        "[reset] No kubeadm config, using etcd pod spec to get data directory",
      ]);
      assert.deepEqual(out.stdout, [
        "[reset] Deleted contents of the etcd data directory: /var/lib/etcd",
      ]);
      assert.deepEqual([...Deno.readDirSync(`${root}/var/lib/etcd`)], []);

      const members = await client.listMembers();
      assert.deepEqual(members.map((m) => m.name), [m1.name]);
      assert.deepEqual(members[0].peerURLs, [m1.peerURL]);
    } finally {
      await cluster.stop();
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("the etcd client reports unreachable endpoints after a short grace period", async () => {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  const client = new EtcdGatewayClient([`https://127.0.0.1:${port}`], {}, 1000, 1000);
  await assert.rejects(
    () => client.listMembers(),
    /^Error: no etcd endpoint answered: https:\/\/127\.0\.0\.1:\d+\/v3\/cluster\/member\/list: /,
  );
});

Deno.test("a retried etcd call has one deadline: a request hanging near its end is cut there", async () => {
  // Answers "unavailable" twice (retried), then never answers.
  let requests = 0;
  const server = http.createServer((_req, res) => {
    if (++requests > 2) return;
    res.writeHead(503, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ code: 14, message: "etcdserver: unhealthy cluster" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  // 8s per request, 1.5s for the whole call.
  const client = new EtcdGatewayClient([endpoint], {}, 8_000, 1_500);
  const started = Date.now();
  try {
    await assert.rejects(
      () => client.listMembers(),
      new RegExp(
        "^Error: no etcd endpoint answered within the call's deadline of 1\\.5s: " +
          `${endpoint.replaceAll(".", "\\.")}/v3/cluster/member/list: .*context deadline exceeded`,
      ),
    );
    assert.equal(requests, 3);
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started}ms`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
