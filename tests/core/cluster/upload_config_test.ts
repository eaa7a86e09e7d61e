import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import type { ConfigMap, Node } from "kubernetes-types/core/v1.d.ts";
import type { Role, RoleBinding } from "kubernetes-types/rbac/v1.d.ts";
import { configMapChecksum } from "../../../core/cluster/component_config_hash.ts";
import {
  kubeletConfigConfigMap,
  uploadKubeadmConfig,
  uploadKubeletConfig,
} from "../../../core/cluster/upload_config.ts";
import type { KubeObject } from "../../../core/kube/client.ts";
import { fakeApiClient } from "../../support/fake_kube_api.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";

const NODE: Node = {
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: "cp-1", labels: { "kubernetes.io/hostname": "cp-1" } },
};

function setup(objects: KubeObject[] = []) {
  return { ...fakeApiClient(objects), out: new RecordingPrinter() };
}

Deno.test("upload-config/kubeadm stores the ClusterConfiguration and the node-read RBAC", async () => {
  const { api, client, out } = setup();
  await uploadKubeadmConfig(
    client,
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n",
    out,
  );
  assert.deepEqual(out.lines, [
    '[upload-config] Storing the configuration used in ConfigMap "kubeadm-config" in the "kube-system" Namespace',
  ]);
  const cm = api.get<ConfigMap>("ConfigMap", "kube-system", "kubeadm-config")!;
  assert.deepEqual(cm.data, {
    ClusterConfiguration: "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n",
  });
  const role = api.get<Role>("Role", "kube-system", "kubeadm:nodes-kubeadm-config")!;
  assert.deepEqual(role.rules, [{
    verbs: ["get"],
    apiGroups: [""],
    resources: ["configmaps"],
    resourceNames: ["kubeadm-config"],
  }]);
  const rb = api.get<RoleBinding>("RoleBinding", "kube-system", "kubeadm:nodes-kubeadm-config")!;
  assert.deepEqual(rb.roleRef, {
    apiGroup: "rbac.authorization.k8s.io",
    kind: "Role",
    name: "kubeadm:nodes-kubeadm-config",
  });
  assert.deepEqual(rb.subjects, [
    { kind: "Group", name: "system:bootstrappers:kubeadm:default-node-token" },
    { kind: "Group", name: "system:nodes" },
  ]);
});

Deno.test("upload-config/kubeadm replaces only its key in an existing ConfigMap", async () => {
  const existing: ConfigMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "kubeadm-config", namespace: "kube-system" },
    data: { ClusterConfiguration: "old", ClusterStatus: "legacy" },
  };
  const { api, client, out } = setup([existing]);
  await uploadKubeadmConfig(client, "new", out);
  assert.deepEqual(api.get<ConfigMap>("ConfigMap", "kube-system", "kubeadm-config")!.data, {
    ClusterConfiguration: "new",
    ClusterStatus: "legacy",
  });
});

Deno.test("upload-config/kubelet: hashed ConfigMap and RBAC, no CRI socket annotation (v1.37)", async () => {
  const { api, client, out } = setup([NODE]);
  await uploadKubeletConfig(client, {
    kubeletConfigurationYaml:
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n",
    userSupplied: false,
    crypto: webCryptoPort,
  }, out);
  assert.deepEqual(out.lines, [
    '[kubelet] Creating a ConfigMap "kubelet-config" in namespace kube-system with the configuration for the kubelets in the cluster',
  ]);
  const cm = api.get<ConfigMap>("ConfigMap", "kube-system", "kubelet-config")!;
  assert.deepEqual(Object.keys(cm.data!), ["kubelet"]);
  assert.match(
    cm.metadata!.annotations!["kubeadm.kubernetes.io/component-config.hash"],
    /^sha256:[0-9a-f]{64}$/,
  );
  const rb = api.get<RoleBinding>("RoleBinding", "kube-system", "kubeadm:kubelet-config")!;
  assert.deepEqual(rb.subjects, [
    { kind: "Group", name: "system:nodes" },
    { kind: "Group", name: "system:bootstrappers:kubeadm:default-node-token" },
  ]);
  assert.deepEqual(
    api.get<Role>("Role", "kube-system", "kubeadm:kubelet-config")!.rules![0].resourceNames,
    [
      "kubelet-config",
    ],
  );
  // The Node is neither read nor patched: the CRI socket lives in instance-config.yaml.
  assert.ok(!api.calls().some((c) => c.includes("/nodes/")));
  assert.equal(api.get<Node>("Node", undefined, "cp-1")!.metadata!.annotations, undefined);
});

Deno.test("a user-supplied KubeletConfiguration is not hashed", async () => {
  const { api, client } = setup();
  await uploadKubeletConfig(
    client,
    { kubeletConfigurationYaml: "k", userSupplied: true, crypto: webCryptoPort },
    new RecordingPrinter(),
  );
  const cm = api.get<ConfigMap>("ConfigMap", "kube-system", "kubelet-config")!;
  assert.equal(cm.metadata?.annotations, undefined, "user-supplied configs are not hashed");
});

Deno.test("component-config hash: sha256 over data values in key order", async () => {
  const xy = "sha256:769a4e6d0003189c7e96c5d9b7e810a0d11c3a12832527ec94b0f86d277f51ca";
  const cm = await kubeletConfigConfigMap("xy", false, webCryptoPort);
  assert.equal(cm.metadata!.annotations!["kubeadm.kubernetes.io/component-config.hash"], xy);
  assert.equal(await configMapChecksum({ data: { b: "y", a: "x" } }, webCryptoPort), xy);
  assert.notEqual(await configMapChecksum({ data: { a: "y", b: "x" } }, webCryptoPort), xy);
  assert.equal(
    await configMapChecksum({ data: { a: "x" }, binaryData: { z: btoa("y") } }, webCryptoPort),
    xy,
    "binaryData values follow data values",
  );
  assert.equal(
    await configMapChecksum({}, webCryptoPort),
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
});
