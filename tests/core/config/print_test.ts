import assert from "node:assert/strict";
import { ConfigError } from "../../../core/errors.ts";
import { clusterConfigurationForUpload, printInitDefaults } from "../../../core/config/print.ts";
import { assertConfigFailure, resolveForTest } from "../../support/config.ts";

/** Upstream kubeadm v1.37.2's `config print init-defaults` (static values). */
const INIT_DEFAULTS = `apiVersion: kubeadm.k8s.io/v1beta4
bootstrapTokens:
- groups:
  - system:bootstrappers:kubeadm:default-node-token
  token: abcdef.0123456789abcdef
  ttl: 24h0m0s
  usages:
  - signing
  - authentication
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: 1.2.3.4
  bindPort: 6443
nodeRegistration:
  criSocket: unix:///var/run/containerd/containerd.sock
  imagePullPolicy: IfNotPresent
  imagePullSerial: true
  name: node
  taints: null
timeouts:
  controlPlaneComponentHealthCheck: 4m0s
  discovery: 5m0s
  etcdAPICall: 2m0s
  kubeletHealthCheck: 4m0s
  kubernetesAPICall: 1m0s
  tlsBootstrap: 5m0s
  upgradeManifests: 5m0s
---
apiServer: {}
apiVersion: kubeadm.k8s.io/v1beta4
caCertificateValidityPeriod: 87600h0m0s
certificateValidityPeriod: 8760h0m0s
certificatesDir: /etc/kubernetes/pki
clusterName: kubernetes
controllerManager: {}
dns: {}
encryptionAlgorithm: RSA-2048
etcd:
  local:
    dataDir: /var/lib/etcd
imageRepository: registry.k8s.io
kind: ClusterConfiguration
kubernetesVersion: 1.37.0
networking:
  dnsDomain: cluster.local
  serviceSubnet: 10.96.0.0/12
proxy: {}
scheduler: {}
`;

Deno.test("config print init-defaults matches upstream byte for byte", () => {
  assert.equal(printInitDefaults(), INIT_DEFAULTS);
});

Deno.test("--component-configs appends the component configs", () => {
  const out = printInitDefaults({
    componentConfigs: ["KubeletConfiguration", "KubeProxyConfiguration"],
  });
  const docs = out.split("---\n");
  assert.equal(docs.length, 4);
  assert.ok(docs[2].startsWith("apiVersion: kubelet.config.k8s.io/v1beta1\nauthentication:\n"));
  assert.ok(docs[2].includes("clusterDNS:\n- 10.96.0.10\n"));
  assert.ok(docs[2].includes("rotateCertificates: true\n"));
  assert.ok(!docs[2].includes("resolvConf"));
  assert.ok(
    docs[3].startsWith("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nbindAddress: 0.0.0.0\n"),
  );
  assert.ok(docs[3].includes("  kubeconfig: /var/lib/kube-proxy/kubeconfig.conf\n"));
  // upstream kubeadm v1.37.2: the only change from 1.34 in these documents.
  assert.ok(docs[3].includes("\nmode: iptables\n"));
});

Deno.test("--component-configs rejects unknown kinds", () => {
  assertConfigFailure(
    () => printInitDefaults({ componentConfigs: ["SchedulerConfiguration"] }),
    ConfigError,
    "--component-configs needs to contain some of [KubeProxyConfiguration KubeletConfiguration]",
  );
});

Deno.test("kubeadm-config ConfigMap content: v1beta4 ClusterConfiguration only", () => {
  const { config } = resolveForTest(
    `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
controlPlaneEndpoint: cp.example.com
networking:
  podSubnet: 10.244.0.0/16
apiServer:
  certSANs: [API.Example.com]
  extraArgs:
  - name: v
    value: "2"
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
`,
  );
  const text = clusterConfigurationForUpload(config.cluster);
  assert.equal(
    text,
    `apiServer:
  certSANs:
  - api.example.com
  extraArgs:
  - name: v
    value: "2"
apiVersion: kubeadm.k8s.io/v1beta4
caCertificateValidityPeriod: 87600h0m0s
certificateValidityPeriod: 8760h0m0s
certificatesDir: /etc/kubernetes/pki
clusterName: kubernetes
controlPlaneEndpoint: cp.example.com:6443
controllerManager: {}
dns: {}
encryptionAlgorithm: RSA-2048
etcd:
  local:
    dataDir: /var/lib/etcd
imageRepository: registry.k8s.io
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
networking:
  dnsDomain: cluster.local
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
proxy: {}
scheduler: {}
`,
  );
  assert.ok(!text.includes("token"));
  assert.ok(!text.includes("cgroupDriver"));
});
