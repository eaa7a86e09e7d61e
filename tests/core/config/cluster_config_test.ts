// Reading the cluster's configuration (join, upgrade, certs): upstream's order of reads
// (kubeadm-config, then the component configs kube-proxy and kubelet), an optional kube-proxy
// ConfigMap, and upstream's error for one that lacks its key.
import assert from "node:assert/strict";
import type { ConfigMap } from "kubernetes-types/core/v1.d.ts";
import { fetchClusterConfigDocuments } from "../../../core/config/cluster_config.ts";
import { fakeApiClient } from "../../support/fake_kube_api.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";

const map = (name: string, data: Record<string, string>): ConfigMap => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "kube-system" },
  data,
});
const kubeadmConfig = map("kubeadm-config", {
  ClusterConfiguration: "kind: ClusterConfiguration\n",
});
const kubeletConfig = map("kubelet-config", { kubelet: "kind: KubeletConfiguration\n" });

Deno.test("cluster config: kubeadm-config, then kube-proxy, then kubelet-config, as upstream", async () => {
  const { api, client } = fakeApiClient([
    kubeadmConfig,
    kubeletConfig,
    map("kube-proxy", { "config.conf": "kind: KubeProxyConfiguration\n" }),
  ]);
  const docs = await fetchClusterConfigDocuments(client, new RecordingPrinter(), "upgrade");
  assert.equal(docs.kubeProxy, "kind: KubeProxyConfiguration\n");
  assert.deepEqual(api.requests.map((r) => r.path.split("/").pop()), [
    "kubeadm-config",
    "kube-proxy",
    "kubelet-config",
  ]);
});

Deno.test("cluster config: no kube-proxy ConfigMap is fine; one without config.conf is upstream's error", async () => {
  const without = fakeApiClient([kubeadmConfig, kubeletConfig]);
  const docs = await fetchClusterConfigDocuments(without.client, new RecordingPrinter());
  assert.equal(docs.kubeProxy, undefined);
  assert.equal(docs.kubelet, "kind: KubeletConfiguration\n");

  const broken = fakeApiClient([kubeadmConfig, kubeletConfig, map("kube-proxy", { other: "x" })]);
  await assert.rejects(
    () => fetchClusterConfigDocuments(broken.client, new RecordingPrinter()),
    (e: Error) => {
      assert.equal(
        e.message,
        'unable to fetch the kubeadm-config ConfigMap: failed to get component configs: could not download the kube-proxy configuration from ConfigMap "kube-proxy": unexpected error when reading kube-proxy ConfigMap: config.conf key value pair missing',
      );
      return true;
    },
  );
});
