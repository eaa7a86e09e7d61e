import assert from "node:assert/strict";
import {
  createBasicKubeconfig,
  createKubeconfigWithCerts,
  createKubeconfigWithToken,
  embedData,
  embeddedText,
  parseKubeconfig,
  resolveContext,
  serializeKubeconfig,
} from "../../../core/kubeconfig/kubeconfig.ts";
import { ConfigError } from "../../../core/errors.ts";

const CA = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";

Deno.test("serializeKubeconfig() writes client-go's layout", () => {
  const cfg = createKubeconfigWithCerts(
    "https://10.0.0.1:6443",
    "kubernetes",
    "kubernetes-admin",
    CA,
    "KEY",
    "CERT",
  );
  assert.equal(
    serializeKubeconfig(cfg),
    `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${embedData(CA)}
    server: https://10.0.0.1:6443
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: kubernetes-admin
  name: kubernetes-admin@kubernetes
current-context: kubernetes-admin@kubernetes
kind: Config
users:
- name: kubernetes-admin
  user:
    client-certificate-data: ${embedData("CERT")}
    client-key-data: ${embedData("KEY")}
`,
  );
});

Deno.test("createBasicKubeconfig()/createKubeconfigWithToken() build upstream's shapes", () => {
  const basic = createBasicKubeconfig("https://[fd00::1]:6443", "c1", "u1", "");
  assert.deepEqual(basic.clusters, [{ name: "c1", cluster: { server: "https://[fd00::1]:6443" } }]);
  assert.deepEqual(basic.users, [{ name: "u1", user: {} }]);
  assert.equal(basic["current-context"], "u1@c1");
  const tok = createKubeconfigWithToken(
    "https://x:6443",
    "c",
    "tls-bootstrap-token-user",
    CA,
    "abcdef.0123456789abcdef",
  );
  assert.deepEqual(tok.users[0].user, { token: "abcdef.0123456789abcdef" });
  assert.ok(serializeKubeconfig(basic).endsWith("users:\n- name: u1\n  user: {}\n"));
});

Deno.test("parseKubeconfig() round-trips and resolves the current context", () => {
  const cfg = createKubeconfigWithCerts(
    "https://10.0.0.1:6443",
    "kubernetes",
    "admin",
    CA,
    "KEY",
    "CERT",
  );
  const back = parseKubeconfig(serializeKubeconfig(cfg), "/etc/kubernetes/admin.conf");
  assert.deepEqual(back, cfg);
  const cur = resolveContext(back);
  assert.equal(cur.cluster.server, "https://10.0.0.1:6443");
  assert.equal(embeddedText(cur.user!["client-key-data"]!), "KEY");
  assert.equal(embeddedText(cur.cluster["certificate-authority-data"]!).trim(), CA.trim());
});

Deno.test("resolveContext() and parseKubeconfig() report broken files in upstream's words", () => {
  const cfg = createBasicKubeconfig("https://x:6443", "c", "u", CA);
  cfg["current-context"] = "nope";
  assert.throws(
    () => resolveContext(cfg, { source: "/k.conf", wording: "kubeadm" }),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.message === "failed to find CurrentContext in Contexts of the kubeconfig file /k.conf",
  );
  const noCluster = createBasicKubeconfig("https://x:6443", "c", "u", CA);
  noCluster.clusters = [];
  assert.throws(
    () => resolveContext(noCluster, { source: "/k.conf", wording: "kubeadm" }),
    /failed to find the given CurrentContext Cluster in Clusters of the kubeconfig file \/k\.conf/,
  );
  assert.throws(
    () => parseKubeconfig("- a\n- b\n", "/k.conf"),
    /\/k\.conf: the kubeconfig must be a mapping/,
  );
  assert.throws(() => parseKubeconfig("kind: Pod\n", "/k.conf"), /kind must be "Config"/);
  assert.throws(() => parseKubeconfig("clusters: 3\n", "/k.conf"), /clusters must be a list/);
  assert.throws(() => parseKubeconfig("a: [\n", "/k.conf"), /couldn't load kubeconfig/);
  const empty = parseKubeconfig("apiVersion: v1\nkind: Config\n");
  assert.deepEqual([empty.clusters, empty.contexts, empty.users, empty["current-context"]], [
    [],
    [],
    [],
    "",
  ]);
});
