// The TLS bootstrap kubeconfig after discovery: its cluster renamed to the cluster's name, and a
// malformed one refused with upstream's v1.35+ messages (no crash).
import assert from "node:assert/strict";
import { renameBootstrapCluster } from "../../../../core/phases/join/data.ts";
import type { Kubeconfig } from "../../../../core/kubeconfig/kubeconfig.ts";
import { DiscoveryError } from "../../../../core/errors.ts";
import type { TransportLimits } from "../../../../core/ports/transport.ts";
import { fakeCluster, fakeJoin, TOKEN } from "./support.ts";

function bootstrap(): Kubeconfig {
  return {
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: [{ name: "kubernetes", cluster: { server: "https://10.0.0.1:6443" } }],
    contexts: [{
      name: "tls-bootstrap-token-user@kubernetes",
      context: { cluster: "kubernetes", user: "tls-bootstrap-token-user" },
    }],
    "current-context": "tls-bootstrap-token-user@kubernetes",
    users: [{ name: "tls-bootstrap-token-user", user: { token: "abcdef.0123456789abcdef" } }],
  };
}

Deno.test("the bootstrap kubeconfig's cluster takes the cluster's name", () => {
  const cfg = bootstrap();
  renameBootstrapCluster(cfg, "prod");
  assert.deepEqual(cfg.clusters, [{ name: "prod", cluster: { server: "https://10.0.0.1:6443" } }]);
  assert.equal(cfg.contexts![0].context.cluster, "prod");
});

Deno.test("a bootstrap kubeconfig whose current-context is missing is refused as upstream does", () => {
  const cfg = bootstrap();
  cfg.clusters = [{ name: "", cluster: { server: "https://10.0.0.1:6443" } }];
  cfg["current-context"] = "gone";
  assert.throws(
    () => renameBootstrapCluster(cfg, "prod"),
    (e: unknown) =>
      e instanceof DiscoveryError &&
      e.message ===
        'the TLS bootstrap kubeconfig is malformed: "gone" set as current-context, but not found in context list',
  );
  const noCluster = bootstrap();
  noCluster["current-context"] = "gone";
  assert.throws(
    () => renameBootstrapCluster(noCluster, "prod"),
    /^DiscoveryError: the TLS bootstrap kubeconfig is malformed: /,
  );
});

// scripts/bench-joiners (issue 25): with a thousand nodes joining at once, reading kubeadm-config
// took longer than the transport's default 30s per request; upstream's requests have no
// deadline of their own. The join's API clients retry each call for timeouts.kubernetesAPICall,
// as upstream's polls do, and give each request that long too.
Deno.test("the join's API clients take timeouts.kubernetesAPICall as their retry and request bound", async () => {
  const cluster = await fakeCluster();
  const j = fakeJoin(cluster, {
    apiServerEndpoint: "10.0.0.1:6443",
    token: TOKEN,
    caCertHashes: [cluster.pin],
  });
  j.data.cfg.timeouts.kubernetesAPICall = "2m30s";
  const limits: (TransportLimits | undefined)[] = [];
  j.data.ports.clientTransportFor = (_params, l) => {
    limits.push(l);
    return cluster.api.transport;
  };
  const client = await j.data.bootstrapClient();
  assert.deepEqual(limits, [{ timeoutMs: 150_000 }]);
  assert.equal(client.retry.timeoutMs, 150_000);
});
