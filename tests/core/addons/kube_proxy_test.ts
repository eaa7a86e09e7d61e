import { platformTime } from "../../support/platform.ts";
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import type { DaemonSet } from "kubernetes-types/apps/v1.d.ts";
import type { ConfigMap } from "kubernetes-types/core/v1.d.ts";
import type { ClusterRoleBinding, Role, RoleBinding } from "kubernetes-types/rbac/v1.d.ts";
import {
  ensureKubeProxy,
  kubeProxyConfigMap,
  kubeProxyDaemonSet,
  proxyEnvVars,
} from "../../../core/addons/kube_proxy.ts";
import {
  COMPONENT_CONFIG_HASH_ANNOTATION,
  configMapChecksum,
} from "../../../core/cluster/component_config_hash.ts";
import { KubeClient } from "../../../core/kube/client.ts";
import { toKubeYaml } from "../../../core/yaml/kube_yaml.ts";
import { FakeKubeApi } from "../../support/fake_kube_api.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";

const PROXY_CONFIG =
  "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nbindAddress: 0.0.0.0\nkind: KubeProxyConfiguration\n";
const CM_INPUT = {
  kubeProxyConfigurationYaml: PROXY_CONFIG,
  controlPlaneEndpoint: "https://10.0.0.1:6443",
  userSupplied: false,
  crypto: webCryptoPort,
};

Deno.test("ConfigMap kube-proxy: exact kubeconfig.conf, config.conf without final newline, hash", async () => {
  const cm = await kubeProxyConfigMap(CM_INPUT);
  assert.deepEqual(cm.metadata?.labels, { app: "kube-proxy" });
  assert.equal(
    cm.data!["kubeconfig.conf"],
    `apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt
    server: https://10.0.0.1:6443
  name: default
contexts:
- context:
    cluster: default
    namespace: default
    user: default
  name: default
current-context: default
users:
- name: default
  user:
    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token`,
  );
  assert.equal(cm.data!["config.conf"], PROXY_CONFIG.trimEnd());
  assert.equal(
    cm.metadata?.annotations?.[COMPONENT_CONFIG_HASH_ANNOTATION],
    await configMapChecksum(cm, webCryptoPort),
  );
  const user = await kubeProxyConfigMap({ ...CM_INPUT, userSupplied: true });
  assert.equal(user.metadata?.annotations, undefined);
  assert.ok(
    toKubeYaml(cm.data).includes(
      "config.conf: |-\n  apiVersion: kubeproxy.config.k8s.io/v1alpha1\n",
    ),
  );
});

Deno.test("proxy environment", () => {
  assert.deepEqual(
    proxyEnvVars({
      no_proxy: "10.0.0.0/8",
      HTTPS_PROXY: "http://p:3128",
      PATH: "/bin",
      http_proxy: "",
    }),
    [{ name: "HTTPS_PROXY", value: "http://p:3128" }, { name: "no_proxy", value: "10.0.0.0/8" }],
  );
});

Deno.test("DaemonSet kube-proxy", () => {
  const ds = kubeProxyDaemonSet("registry.k8s.io/kube-proxy:v1.37.2", { NO_PROXY: "x" });
  const pod = ds.spec!.template.spec!;
  const c = pod.containers[0];
  assert.deepEqual(c.command, [
    "/usr/local/bin/kube-proxy",
    "--config=/var/lib/kube-proxy/config.conf",
    "--hostname-override=$(NODE_NAME)",
  ]);
  assert.deepEqual(c.env, [
    { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
    { name: "NO_PROXY", value: "x" },
  ]);
  assert.deepEqual(c.securityContext, { privileged: true });
  assert.deepEqual(c.volumeMounts, [
    { mountPath: "/var/lib/kube-proxy", name: "kube-proxy" },
    { mountPath: "/run/xtables.lock", name: "xtables-lock" },
    { mountPath: "/lib/modules", name: "lib-modules", readOnly: true },
  ]);
  assert.deepEqual(pod.volumes, [
    { name: "kube-proxy", configMap: { name: "kube-proxy" } },
    { name: "xtables-lock", hostPath: { path: "/run/xtables.lock", type: "FileOrCreate" } },
    { name: "lib-modules", hostPath: { path: "/lib/modules" } },
  ]);
  assert.equal(pod.hostNetwork, true);
  assert.equal(pod.priorityClassName, "system-node-critical");
  assert.deepEqual(pod.tolerations, [{ operator: "Exists" }]);
  assert.deepEqual(ds.spec?.updateStrategy, { type: "RollingUpdate" });
  assert.deepEqual(ds.spec?.selector, { matchLabels: { "k8s-app": "kube-proxy" } });
});

Deno.test("ensureKubeProxy applies in upstream's order and binds the right subjects", async () => {
  const api = new FakeKubeApi();
  const client = new KubeClient({
    server: "https://h:6443",
    transport: api.transport,
    ...platformTime,
  });
  const out = new RecordingPrinter();
  await ensureKubeProxy(client, {
    ...CM_INPUT,
    image: "registry.k8s.io/kube-proxy:v1.37.2",
    crypto: webCryptoPort,
  }, out);
  assert.deepEqual(out.lines, ["[addons] Applied essential addon: kube-proxy"]);
  assert.deepEqual(api.calls(), [
    "POST /api/v1/namespaces/kube-system/configmaps",
    "POST /apis/apps/v1/namespaces/kube-system/daemonsets",
    "POST /api/v1/namespaces/kube-system/serviceaccounts",
    "POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    "POST /apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles",
    "POST /apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings",
  ]);
  const crb = api.get<ClusterRoleBinding>("ClusterRoleBinding", undefined, "kubeadm:node-proxier")!;
  assert.equal(crb.roleRef.name, "system:node-proxier");
  assert.deepEqual(crb.subjects, [{
    kind: "ServiceAccount",
    name: "kube-proxy",
    namespace: "kube-system",
  }]);
  assert.deepEqual(api.get<Role>("Role", "kube-system", "kube-proxy")?.rules, [{
    verbs: ["get"],
    apiGroups: [""],
    resources: ["configmaps"],
    resourceNames: ["kube-proxy"],
  }]);
  assert.deepEqual(api.get<RoleBinding>("RoleBinding", "kube-system", "kube-proxy")?.subjects, [
    { kind: "Group", name: "system:bootstrappers:kubeadm:default-node-token" },
  ]);
  assert.ok(api.get<DaemonSet>("DaemonSet", "kube-system", "kube-proxy"));
  assert.ok(api.get<ConfigMap>("ConfigMap", "kube-system", "kube-proxy"));
  await ensureKubeProxy(client, { ...CM_INPUT, image: "i", crypto: webCryptoPort }, out);
  assert.equal(api.calls().filter((c) => c.startsWith("PUT")).length, 6, "second run updates");
});
