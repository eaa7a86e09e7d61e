import assert from "node:assert/strict";
import {
  describeObject,
  parseResourcePath,
  resourceFor,
  resourcePath,
  RESOURCES,
} from "../../../core/kube/resources.ts";

Deno.test("paths of core, grouped, namespaced and cluster-scoped resources", () => {
  assert.equal(
    resourcePath(resourceFor("ConfigMap"), "kube-system", "kubeadm-config"),
    "/api/v1/namespaces/kube-system/configmaps/kubeadm-config",
  );
  assert.equal(resourcePath(resourceFor("Node"), undefined, "n1"), "/api/v1/nodes/n1");
  assert.equal(
    resourcePath(resourceFor("ClusterRoleBinding"), undefined, "kubeadm:get-nodes"),
    "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kubeadm%3Aget-nodes",
  );
  assert.equal(
    resourcePath(resourceFor("Deployment"), "kube-system"),
    "/apis/apps/v1/namespaces/kube-system/deployments",
  );
  assert.equal(
    resourcePath(resourceFor("CertificateSigningRequest"), undefined, "csr-1"),
    "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-1",
  );
});

Deno.test("every resource path parses back to the same resource", () => {
  for (const info of RESOURCES) {
    const ns = info.namespaced ? "kube-public" : undefined;
    const parsed = parseResourcePath(resourcePath(info, ns, "a:b"));
    assert.equal(parsed?.info, info, info.kind);
    assert.equal(parsed?.name, "a:b");
    assert.equal(parsed?.namespace, ns);
    assert.equal(parseResourcePath(resourcePath(info, ns))?.name, undefined);
  }
  assert.equal(parseResourcePath("/api/v1/namespaces/kube-system")?.info.kind, "Namespace");
  assert.equal(parseResourcePath("/healthz"), undefined);
  assert.equal(parseResourcePath("/apis/apps/v1/widgets/x"), undefined);
  assert.equal(parseResourcePath("/api/v1/configmaps/x"), undefined, "needs a namespace");
  assert.equal(
    parseResourcePath("/apis/certificates.k8s.io/v1/certificatesigningrequests/c/approval")
      ?.subresource,
    "approval",
  );
});

Deno.test("kind lookup honours the API version", () => {
  assert.equal(resourceFor("Role", "rbac.authorization.k8s.io/v1").plural, "roles");
  assert.throws(() => resourceFor("Role", "v1"), /unsupported API resource v1 Role/);
});

Deno.test("objects are named kind namespace/name", () => {
  assert.equal(describeObject("ConfigMap", "kube-system", "x"), "ConfigMap kube-system/x");
  assert.equal(describeObject("Node", undefined, "n1"), "Node n1");
  assert.equal(describeObject("Secret", "kube-system"), "Secret in namespace kube-system");
});
