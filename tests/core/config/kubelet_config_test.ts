import assert from "node:assert/strict";
import {
  defaultKubeletConfiguration,
  nodeKubeletConfiguration,
} from "../../../core/config/kubelet_config.ts";
import { applyClusterStaticDefaults } from "../../../core/config/defaults.ts";
import { toKubeYaml } from "../../../core/yaml/kube_yaml.ts";
import { resolveForTest } from "../../support/config.ts";

/** The kubelet defaulting inputs of a defaulted ClusterConfiguration. */
function clusterInputs() {
  const cluster = applyClusterStaticDefaults({});
  return { networking: cluster.networking, certificatesDir: cluster.certificatesDir };
}

/** What upstream kubeadm v1.37.2 writes to /var/lib/kubelet/config.yaml by default (its init --dry-run). */
const UPSTREAM_CONFIG_YAML = `apiVersion: kubelet.config.k8s.io/v1beta1
authentication:
  anonymous:
    enabled: false
  webhook:
    cacheTTL: 0s
    enabled: true
  x509:
    clientCAFile: /etc/kubernetes/pki/ca.crt
authorization:
  mode: Webhook
  webhook:
    cacheAuthorizedTTL: 0s
    cacheUnauthorizedTTL: 0s
cgroupDriver: systemd
clusterDNS:
- 10.96.0.10
clusterDomain: cluster.local
containerRuntimeEndpoint: ""
cpuManagerReconcilePeriod: 0s
crashLoopBackOff: {}
evictionPressureTransitionPeriod: 0s
fileCheckFrequency: 0s
healthzBindAddress: 127.0.0.1
healthzPort: 10248
httpCheckFrequency: 0s
imageMaximumGCAge: 0s
imageMinimumGCAge: 0s
kind: KubeletConfiguration
logging:
  flushFrequency: 0
  options:
    json:
      infoBufferSize: "0"
    text:
      infoBufferSize: "0"
  verbosity: 0
memorySwap: {}
nodeStatusReportFrequency: 0s
nodeStatusUpdateFrequency: 0s
rotateCertificates: true
runtimeRequestTimeout: 0s
shutdownGracePeriod: 0s
shutdownGracePeriodCriticalPods: 0s
staticPodPath: /etc/kubernetes/manifests
streamingConnectionIdleTimeout: 0s
syncFrequency: 0s
volumeStatsAggPeriod: 0s
`;

Deno.test("default kubelet config matches what upstream writes", () => {
  const { config, warnings } = defaultKubeletConfiguration(undefined, clusterInputs());
  assert.equal(toKubeYaml(config), UPSTREAM_CONFIG_YAML);
  assert.deepEqual(warnings, []);
});

Deno.test("systemd-resolved changes this node's copy only, never the cluster's (v1.37)", () => {
  const cluster = defaultKubeletConfiguration(undefined, clusterInputs()).config;
  const node = nodeKubeletConfiguration(cluster, { systemdResolvedActive: true });
  assert.equal(node.config.resolvConf, "/run/systemd/resolve/resolv.conf");
  assert.deepEqual(node.warnings, []);
  assert.equal(cluster.resolvConf, undefined, "the cluster-wide configuration is untouched");
  assert.deepEqual(nodeKubeletConfiguration(cluster, {}).config, cluster);
  const custom = nodeKubeletConfiguration({ ...cluster, resolvConf: "/etc/resolv.conf" }, {
    systemdResolvedActive: true,
  });
  assert.equal(custom.config.resolvConf, "/etc/resolv.conf");
  assert.deepEqual(custom.warnings, [
    'The recommended value for "resolvConf" in "KubeletConfiguration" is: /run/systemd/resolve/resolv.conf; the provided value is: /etc/resolv.conf',
  ]);
});

Deno.test("kubelet config follows the cluster configuration", () => {
  const { config } = resolveForTest(undefined, {
    serviceSubnet: "10.100.0.0/16",
    dnsDomain: "corp.local",
    certificatesDir: "/srv/pki",
  });
  assert.deepEqual(config.kubelet.clusterDNS, ["10.100.0.10"]);
  assert.equal(config.kubelet.clusterDomain, "corp.local");
  assert.deepEqual(config.kubelet.authentication, {
    anonymous: { enabled: false },
    webhook: { cacheTTL: "0s", enabled: true },
    x509: { clientCAFile: "/srv/pki/ca.crt" },
  });
  assert.equal(config.kubelet.resolvConf, undefined);
});

Deno.test("user values are kept, warned about when they differ from kubeadm's", () => {
  const { config, warnings } = defaultKubeletConfiguration(
    {
      cgroupDriver: "cgroupfs",
      staticPodPath: "/etc/other",
      clusterDNS: ["10.96.0.53"],
      readOnlyPort: 10255,
      rotateCertificates: false,
      authentication: { anonymous: { enabled: true } },
      syncFrequency: "1m",
      maxPods: 50,
    },
    clusterInputs(),
  );
  assert.equal(config.cgroupDriver, "cgroupfs");
  assert.equal(config.staticPodPath, "/etc/other");
  assert.equal(config.rotateCertificates, true);
  assert.equal(config.syncFrequency, "1m0s");
  assert.equal(config.maxPods, 50);
  assert.deepEqual(warnings, [
    'The recommended value for "staticPodPath" in "KubeletConfiguration" is: /etc/kubernetes/manifests; the provided value is: /etc/other',
    'The recommended value for "clusterDNS" in "KubeletConfiguration" is: [10.96.0.10]; the provided value is: [10.96.0.53]',
    'The recommended value for "authentication.anonymous.enabled" in "KubeletConfiguration" is: false; the provided value is: true',
    'The recommended value for "readOnlyPort" in "KubeletConfiguration" is: 0; the provided value is: 10255',
  ]);
});

Deno.test("a user-supplied kubelet config is flagged as such", () => {
  const r = resolveForTest(
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n---\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: cgroupfs\n",
  );
  assert.equal(r.config.userSupplied.kubelet, true);
  assert.equal(r.config.kubelet.cgroupDriver, "cgroupfs");
});
