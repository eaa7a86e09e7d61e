/**
 * A hand-built {@link ResolvedConfig}: what `kubeadm init` resolves for a default v1beta4
 * configuration on a node `cp-1` advertising `192.168.0.10:6443`, Kubernetes v1.37.2.
 * Tests take a fresh deep copy and edit the fields they care about.
 *
 * @module
 */
import type { KubeletConfiguration, ResolvedConfig } from "../../core/config/types.ts";

/** The KubeletConfiguration kubeadm v1.37 writes for the default configuration. */
export function kubeletConfigFixture(): KubeletConfiguration {
  return {
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    authentication: {
      anonymous: { enabled: false },
      webhook: { cacheTTL: "0s", enabled: true },
      x509: { clientCAFile: "/etc/kubernetes/pki/ca.crt" },
    },
    authorization: {
      mode: "Webhook",
      webhook: { cacheAuthorizedTTL: "0s", cacheUnauthorizedTTL: "0s" },
    },
    cgroupDriver: "systemd",
    clusterDNS: ["10.96.0.10"],
    clusterDomain: "cluster.local",
    containerRuntimeEndpoint: "",
    cpuManagerReconcilePeriod: "0s",
    crashLoopBackOff: {},
    evictionPressureTransitionPeriod: "0s",
    fileCheckFrequency: "0s",
    healthzBindAddress: "127.0.0.1",
    healthzPort: 10248,
    httpCheckFrequency: "0s",
    imageMaximumGCAge: "0s",
    imageMinimumGCAge: "0s",
    kind: "KubeletConfiguration",
    logging: {
      flushFrequency: 0,
      options: { json: { infoBufferSize: "0" }, text: { infoBufferSize: "0" } },
      verbosity: 0,
    },
    memorySwap: {},
    nodeStatusReportFrequency: "0s",
    nodeStatusUpdateFrequency: "0s",
    rotateCertificates: true,
    runtimeRequestTimeout: "0s",
    shutdownGracePeriod: "0s",
    shutdownGracePeriodCriticalPods: "0s",
    staticPodPath: "/etc/kubernetes/manifests",
    streamingConnectionIdleTimeout: "0s",
    syncFrequency: "0s",
    volumeStatsAggPeriod: "0s",
  };
}

/** A fresh default resolved init configuration. */
export function initConfigFixture(): ResolvedConfig {
  return {
    init: {
      apiVersion: "kubeadm.k8s.io/v1beta4",
      kind: "InitConfiguration",
      bootstrapTokens: [{
        token: "abcdef.0123456789abcdef",
        ttl: "24h0m0s",
        usages: ["signing", "authentication"],
        groups: ["system:bootstrappers:kubeadm:default-node-token"],
      }],
      nodeRegistration: {
        name: "cp-1",
        criSocket: "unix:///var/run/containerd/containerd.sock",
        imagePullPolicy: "IfNotPresent",
        imagePullSerial: true,
        taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }],
        kubeletExtraArgs: [],
      },
      localAPIEndpoint: { advertiseAddress: "192.168.0.10", bindPort: 6443 },
      timeouts: {
        controlPlaneComponentHealthCheck: "4m0s",
        kubeletHealthCheck: "4m0s",
        kubernetesAPICall: "1m0s",
        etcdAPICall: "2m0s",
        tlsBootstrap: "5m0s",
        discovery: "5m0s",
        upgradeManifests: "5m0s",
      },
    },
    cluster: {
      apiVersion: "kubeadm.k8s.io/v1beta4",
      kind: "ClusterConfiguration",
      etcd: { local: { dataDir: "/var/lib/etcd" } },
      networking: { serviceSubnet: "10.96.0.0/12", dnsDomain: "cluster.local" },
      kubernetesVersion: "v1.37.2",
      apiServer: {},
      controllerManager: {},
      scheduler: {},
      dns: {},
      proxy: {},
      certificatesDir: "/etc/kubernetes/pki",
      imageRepository: "registry.k8s.io",
      clusterName: "kubernetes",
      encryptionAlgorithm: "RSA-2048",
      certificateValidityPeriod: "8760h0m0s",
      caCertificateValidityPeriod: "87600h0m0s",
    },
    kubelet: kubeletConfigFixture(),
    kubeProxy: {
      apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
      kind: "KubeProxyConfiguration",
      bindAddress: "0.0.0.0",
      clientConnection: { kubeconfig: "/var/lib/kube-proxy/kubeconfig.conf" },
    },
    userSupplied: { kubelet: false, kubeProxy: false },
    uploadCerts: false,
  };
}
