import assert from "node:assert/strict";
import type { ConfigMap, Secret } from "kubernetes-types/core/v1.d.ts";
import type {
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
} from "kubernetes-types/rbac/v1.d.ts";
import {
  applyBootstrapTokenPhase,
  getNodesClusterRole,
  updateOrCreateTokens,
} from "../../../core/cluster/bootstrap_token.ts";
import { clusterInfoKubeconfig } from "../../../core/cluster/cluster_info.ts";
import type { Kubeconfig } from "../../../core/kubeconfig/kubeconfig.ts";
import { fakeApiClient } from "../../support/fake_kube_api.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";

const CA_B64 = btoa("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
const TOKEN = "abcdef.0123456789abcdef";

function admin(): Kubeconfig {
  return {
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: [{
      name: "kubernetes",
      cluster: {
        server: "https://10.0.0.1:6443",
        "certificate-authority-data": CA_B64,
        "unknown-field": "dropped",
      },
    }],
    contexts: [{
      name: "kubernetes-admin@kubernetes",
      context: { cluster: "kubernetes", user: "kubernetes-admin" },
    }],
    "current-context": "kubernetes-admin@kubernetes",
    users: [{ name: "kubernetes-admin", user: { "client-key-data": "c2VjcmV0" } }],
  };
}

function setup() {
  return fakeApiClient([], Date.UTC(1970, 0, 1, 1, 1, 1));
}

Deno.test("cluster-info kubeconfig is client-go 1.34's serialization of one unnamed cluster", () => {
  assert.equal(
    clusterInfoKubeconfig(admin()),
    `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA_B64}
    server: https://10.0.0.1:6443
  name: ""
contexts: null
current-context: ""
kind: Config
users: null
`,
  );
});

Deno.test("the bootstrap-token phase creates tokens, RBAC and cluster-info, in order, with upstream's lines", async () => {
  const { api, client } = setup();
  const out = new RecordingPrinter();
  await applyBootstrapTokenPhase(client, {
    tokens: [{
      token: TOKEN,
      ttl: "2h0m0s",
      usages: ["signing", "authentication"],
      groups: ["system:bootstrappers:kubeadm:default-node-token"],
    }],
    now: new Date(Date.UTC(1970, 0, 1, 1, 1, 1)),
    admin: admin(),
  }, out);
  assert.deepEqual(out.lines, [
    `[bootstrap-token] Using token: ${TOKEN}`,
    "[bootstrap-token] Configuring bootstrap tokens, cluster-info ConfigMap, RBAC Roles",
    "[bootstrap-token] Configured RBAC rules to allow Node Bootstrap tokens to get nodes",
    "[bootstrap-token] Configured RBAC rules to allow Node Bootstrap tokens to post CSRs in order for nodes to get long term certificate credentials",
    "[bootstrap-token] Configured RBAC rules to allow the csrapprover controller automatically approve CSRs from a Node Bootstrap Token",
    "[bootstrap-token] Configured RBAC rules to allow certificate rotation for all node client certificates in the cluster",
    "[bootstrap-token] Configured RBAC rules to allow the API server kubelet client certificate to access the kubelet API",
    '[bootstrap-token] Creating the "cluster-info" ConfigMap in the "kube-public" namespace',
  ]);
  assert.deepEqual(api.calls().filter((c) => c.startsWith("POST")), [
    "POST /api/v1/namespaces/kube-system/secrets",
    "POST /apis/rbac.authorization.k8s.io/v1/clusterroles",
    "POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    "POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    "POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    "POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    "POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    "POST /api/v1/namespaces/kube-public/configmaps",
    "POST /apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/roles",
    "POST /apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/rolebindings",
  ]);

  const secret = api.get<Secret>("Secret", "kube-system", "bootstrap-token-abcdef")!;
  assert.equal(secret.type, "bootstrap.kubernetes.io/token");
  const data = Object.fromEntries(Object.entries(secret.data!).map(([k, v]) => [k, atob(v)]));
  assert.deepEqual(data, {
    "auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token",
    expiration: "1970-01-01T03:01:01Z",
    "token-id": "abcdef",
    "token-secret": "0123456789abcdef",
    "usage-bootstrap-authentication": "true",
    "usage-bootstrap-signing": "true",
  });

  const crb = (name: string) => api.get<ClusterRoleBinding>("ClusterRoleBinding", undefined, name)!;
  const bootstrappers = [{
    kind: "Group",
    name: "system:bootstrappers:kubeadm:default-node-token",
  }];
  assert.deepEqual(crb("kubeadm:get-nodes").roleRef, {
    apiGroup: "rbac.authorization.k8s.io",
    kind: "ClusterRole",
    name: "kubeadm:get-nodes",
  });
  assert.deepEqual(crb("kubeadm:get-nodes").subjects, bootstrappers);
  assert.equal(crb("kubeadm:kubelet-bootstrap").roleRef.name, "system:node-bootstrapper");
  assert.deepEqual(crb("kubeadm:kubelet-bootstrap").subjects, bootstrappers);
  assert.equal(
    crb("kubeadm:node-autoapprove-bootstrap").roleRef.name,
    "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
  );
  assert.deepEqual(crb("kubeadm:node-autoapprove-bootstrap").subjects, bootstrappers);
  assert.equal(
    crb("kubeadm:node-autoapprove-certificate-rotation").roleRef.name,
    "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
  );
  assert.deepEqual(crb("kubeadm:node-autoapprove-certificate-rotation").subjects, [
    { kind: "Group", name: "system:nodes" },
  ]);
  // v1.37: the API server's kubelet client certificate gets the kubelet API by this binding.
  assert.deepEqual(crb("kubeadm:apiserver-kubelet-client").roleRef, {
    apiGroup: "rbac.authorization.k8s.io",
    kind: "ClusterRole",
    name: "system:kubelet-api-admin",
  });
  assert.deepEqual(crb("kubeadm:apiserver-kubelet-client").subjects, [
    { kind: "User", name: "kube-apiserver-kubelet-client" },
  ]);
  assert.deepEqual(api.get<ClusterRole>("ClusterRole", undefined, "kubeadm:get-nodes")?.rules, [
    { verbs: ["get"], apiGroups: [""], resources: ["nodes"] },
  ]);

  const info = api.get<ConfigMap>("ConfigMap", "kube-public", "cluster-info")!;
  assert.deepEqual(Object.keys(info.data!), ["kubeconfig"]);
  assert.ok(!info.data!.kubeconfig.includes("c2VjcmV0"), "no user credentials leak");
  const role = api.get<Role>("Role", "kube-public", "kubeadm:bootstrap-signer-clusterinfo")!;
  assert.deepEqual(role.rules, [{
    verbs: ["get"],
    apiGroups: [""],
    resources: ["configmaps"],
    resourceNames: ["cluster-info"],
  }]);
  const rb = api.get<RoleBinding>(
    "RoleBinding",
    "kube-public",
    "kubeadm:bootstrap-signer-clusterinfo",
  )!;
  assert.deepEqual(rb.subjects, [{ kind: "User", name: "system:anonymous" }]);
  assert.equal(rb.roleRef.kind, "Role");
});

Deno.test("re-running the phase updates existing objects; token print can be skipped", async () => {
  const { api, client } = setup();
  const input = {
    tokens: [{ token: TOKEN, ttl: "24h0m0s" }],
    now: new Date(0),
    admin: admin(),
  };
  await applyBootstrapTokenPhase(client, input, new RecordingPrinter());
  const out = new RecordingPrinter();
  await applyBootstrapTokenPhase(client, { ...input, skipTokenPrint: true }, out);
  assert.ok(!out.lines.some((l) => l.includes(TOKEN)));
  assert.equal(api.calls().filter((c) => c.startsWith("PUT")).length, 10);
});

Deno.test("token create semantics: failIfExists rejects an existing id", async () => {
  const { client } = setup();
  await updateOrCreateTokens(client, [{ token: TOKEN }], new Date(0));
  await assert.rejects(
    () => updateOrCreateTokens(client, [{ token: TOKEN }], new Date(0), { failIfExists: true }),
    /a token with id "abcdef" already exists/,
  );
});

Deno.test("get-nodes ClusterRole builder", () => {
  assert.equal(getNodesClusterRole().kind, "ClusterRole");
  assert.equal(getNodesClusterRole().apiVersion, "rbac.authorization.k8s.io/v1");
});
