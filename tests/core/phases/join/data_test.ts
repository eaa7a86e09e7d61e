// The TLS bootstrap kubeconfig after discovery: its cluster renamed to the cluster's name, and a
// malformed one refused with upstream's v1.35+ messages (no crash).
import assert from "node:assert/strict";
import { renameBootstrapCluster } from "../../../../core/phases/join/data.ts";
import type { Kubeconfig } from "../../../../core/kubeconfig/kubeconfig.ts";
import { DiscoveryError } from "../../../../core/errors.ts";

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
