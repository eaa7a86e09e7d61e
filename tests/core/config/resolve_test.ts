import assert from "node:assert/strict";
import { ConfigError, FlagError, ValidationError } from "../../../core/errors.ts";
import { KUBERNETES_VERSION } from "../../../core/versions.ts";
import { resolveInitConfig } from "../../../core/config/resolve.ts";
import { validateMixedArguments } from "../../../core/config/mixed_flags.ts";
import { staticInitDefaults } from "../../../core/config/print.ts";
import {
  assertConfigFailure,
  counterRandom,
  resolveForTest,
  TEST_HOST,
} from "../../support/config.ts";

const INIT = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n";
const CLUSTER = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n";

Deno.test("no config: every default filled in", () => {
  const { config, warnings } = resolveForTest();
  // The default kubernetesVersion (stable-1) falls back offline, as upstream without internet.
  assert.equal(warnings.length, 2);
  assert.equal(warnings[1], `falling back to the local client version: ${KUBERNETES_VERSION}`);
  const { init, cluster } = config;
  assert.equal(init.bootstrapTokens.length, 1);
  assert.match(init.bootstrapTokens[0].token, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
  assert.equal(init.bootstrapTokens[0].ttl, "24h0m0s");
  assert.deepEqual(init.bootstrapTokens[0].usages, ["signing", "authentication"]);
  assert.deepEqual(init.bootstrapTokens[0].groups, [
    "system:bootstrappers:kubeadm:default-node-token",
  ]);
  assert.deepEqual(init.localAPIEndpoint, { advertiseAddress: "192.0.2.10", bindPort: 6443 });
  assert.equal(init.nodeRegistration.name, "test-node");
  assert.equal(init.nodeRegistration.criSocket, "unix:///var/run/containerd/containerd.sock");
  assert.deepEqual(init.nodeRegistration.taints, [
    { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" },
  ]);
  assert.equal(init.nodeRegistration.imagePullPolicy, "IfNotPresent");
  assert.equal(init.nodeRegistration.imagePullSerial, true);
  assert.deepEqual(init.timeouts, {
    controlPlaneComponentHealthCheck: "4m0s",
    kubeletHealthCheck: "4m0s",
    kubernetesAPICall: "1m0s",
    etcdAPICall: "2m0s",
    tlsBootstrap: "5m0s",
    discovery: "5m0s",
    upgradeManifests: "5m0s",
  });
  assert.equal(cluster.kubernetesVersion, KUBERNETES_VERSION);
  assert.deepEqual(cluster.networking, {
    serviceSubnet: "10.96.0.0/12",
    dnsDomain: "cluster.local",
  });
  assert.equal(cluster.certificatesDir, "/etc/kubernetes/pki");
  assert.equal(cluster.imageRepository, "registry.k8s.io");
  assert.equal(cluster.clusterName, "kubernetes");
  assert.equal(cluster.encryptionAlgorithm, "RSA-2048");
  assert.equal(cluster.certificateValidityPeriod, "8760h0m0s");
  assert.equal(cluster.caCertificateValidityPeriod, "87600h0m0s");
  assert.deepEqual(cluster.etcd, { local: { dataDir: "/var/lib/etcd" } });
  assert.equal(config.uploadCerts, false);
  assert.deepEqual(config.userSupplied, { kubelet: false, kubeProxy: false });
});

Deno.test("defaults of an empty config file equal the printed static defaults", () => {
  const fromFile = resolveForTest(`${INIT}---\n${CLUSTER}`).config;
  const printed = staticInitDefaults();
  // Everything but the host-dependent and label-resolved values is identical.
  assert.deepEqual(fromFile.init.timeouts, printed.init.timeouts);
  assert.deepEqual(
    fromFile.init.localAPIEndpoint.bindPort,
    printed.init.localAPIEndpoint?.bindPort,
  );
  const { kubernetesVersion: _a, ...restFile } = fromFile.cluster;
  const { kubernetesVersion: _b, ...restPrinted } = printed.cluster;
  assert.deepEqual(restFile, restPrinted);
  assert.deepEqual(fromFile.kubelet, printed.kubelet);
});

Deno.test("flags override values from the file", () => {
  const { config } = resolveForTest(
    `${INIT}localAPIEndpoint:\n  bindPort: 7000\n---\n${CLUSTER}networking:\n  podSubnet: 10.0.0.0/16\n`,
    {
      bindPort: 8443,
      podSubnet: "10.244.0.0/16",
      nodeName: "CP-1",
      token: "abcdef.0123456789abcdef",
      tokenTTL: "1h0m0s",
      kubernetesVersion: "v1.36.2",
      controlPlaneEndpoint: "lb.example.com",
      certSANs: ["EXTRA.example.com", "10.0.0.9"],
      featureGates: { RootlessControlPlane: true },
      skipPhases: ["preflight"],
      patchesDir: "/etc/patches",
    },
  );
  assert.equal(config.init.localAPIEndpoint.bindPort, 8443);
  assert.equal(config.cluster.networking.podSubnet, "10.244.0.0/16");
  assert.equal(config.init.nodeRegistration.name, "cp-1");
  assert.equal(config.init.bootstrapTokens[0].token, "abcdef.0123456789abcdef");
  assert.equal(config.init.bootstrapTokens[0].ttl, "1h0m0s");
  assert.equal(config.cluster.kubernetesVersion, "v1.36.2");
  assert.equal(config.cluster.controlPlaneEndpoint, "lb.example.com:8443");
  assert.deepEqual(config.cluster.apiServer.certSANs, ["extra.example.com", "10.0.0.9"]);
  assert.deepEqual(config.cluster.featureGates, { RootlessControlPlane: true });
  assert.deepEqual(config.init.skipPhases, ["preflight"]);
  assert.deepEqual(config.init.patches, { directory: "/etc/patches" });
  assert.equal(config.kubeProxy.clusterCIDR, "10.244.0.0/16");
});

Deno.test("dynamic defaults: advertise address, CRI socket scheme, IPv6", () => {
  const r = resolveForTest(
    `${INIT}localAPIEndpoint:\n  advertiseAddress: 0.0.0.0\nnodeRegistration:\n  criSocket: /run/crio/crio.sock\n`,
  );
  assert.equal(r.config.init.localAPIEndpoint.advertiseAddress, "192.0.2.10");
  assert.equal(r.config.init.nodeRegistration.criSocket, "unix:///run/crio/crio.sock");
  assert.ok(r.warnings.some((w) => w.includes('Automatically prepending scheme "unix"')));

  const v6 = resolveForTest(undefined, { advertiseAddress: "FD00::0010" });
  assert.equal(v6.config.init.localAPIEndpoint.advertiseAddress, "fd00::10");
  assert.equal(v6.config.kubeProxy.bindAddress, "::");

  const detected = resolveForTest(undefined, {}, {
    host: { criSocket: "unix:///var/run/crio/crio.sock" },
  });
  assert.equal(detected.config.init.nodeRegistration.criSocket, "unix:///var/run/crio/crio.sock");

  assertConfigFailure(
    () => resolveForTest(undefined, { advertiseAddress: "not-an-ip" }),
    ConfigError,
    `couldn't use "not-an-ip" as "apiserver-advertise-address", must be ipv4 or ipv6 address`,
  );
  assertConfigFailure(
    () => resolveForTest(undefined, { advertiseAddress: "127.0.0.1" }),
    ConfigError,
    "unable to resolve link-local addresses",
  );
  const lo = resolveForTest(undefined, { advertiseAddress: "127.0.0.1" }, {
    host: { loopbackAdvertiseAddress: "203.0.113.5" },
  });
  assert.equal(lo.config.init.localAPIEndpoint.advertiseAddress, "203.0.113.5");
});

Deno.test("explicit empty taints stay empty", () => {
  const { config } = resolveForTest(`${INIT}nodeRegistration:\n  taints: []\n`);
  assert.deepEqual(config.init.nodeRegistration.taints, []);
});

Deno.test("kubernetesVersion labels fall back to kubeadm's version; explicit versions are kept", () => {
  const stable = resolveForTest(undefined, { kubernetesVersion: "stable" });
  assert.equal(stable.config.cluster.kubernetesVersion, KUBERNETES_VERSION);
  assert.ok(
    stable.warnings.includes(`falling back to the local client version: ${KUBERNETES_VERSION}`),
  );
  assert.equal(
    resolveForTest(undefined, { kubernetesVersion: "1.36.1" }).config.cluster.kubernetesVersion,
    "v1.36.1",
  );
  // A newer target passes config resolution; preflight's KubernetesVersion check warns.
  const newer = resolveForTest(undefined, { kubernetesVersion: "v1.38.0" });
  assert.equal(newer.config.cluster.kubernetesVersion, "v1.38.0");
  const old = assertConfigFailure(
    () => resolveForTest(undefined, { kubernetesVersion: "v1.35.9" }),
    ConfigError,
    "this version of kubeadm only supports deploying clusters with the control plane version >= 1.36.0. Current version: v1.35.9",
  );
  assert.equal(old.field, "kubernetesVersion");
  const bad = assertConfigFailure(
    () => resolveForTest(undefined, { kubernetesVersion: "v1.37" }),
    ConfigError,
    "doesn't match patterns",
  );
  assert.equal(bad.field, "kubernetesVersion");
});

Deno.test("skipping addon phases disables the addons and vice versa", () => {
  const a = resolveForTest(undefined, { skipPhases: ["addon/kube-proxy"] }).config;
  assert.equal(a.cluster.proxy.disabled, true);
  assert.equal(a.cluster.dns.disabled, undefined);
  const b = resolveForTest(`${CLUSTER}dns:\n  disabled: true\n`).config;
  assert.deepEqual(b.init.skipPhases, ["addon/coredns"]);
  const c = resolveForTest(undefined, { skipPhases: ["addon"] }).config;
  assert.equal(c.cluster.dns.disabled, true);
  assert.equal(c.cluster.proxy.disabled, true);
  assert.deepEqual(c.init.skipPhases, ["addon", "addon/coredns", "addon/kube-proxy"]);
});

Deno.test("--upload-certs generates a certificate key from the random source", () => {
  const { config } = resolveInitConfig({
    inputs: { uploadCerts: true },
    host: TEST_HOST,
    random: counterRandom(0),
  });
  assert.equal(config.uploadCerts, true);
  assert.match(config.init.certificateKey ?? "", /^[0-9a-f]{64}$/);
  const given = "0".repeat(64);
  assert.equal(
    resolveForTest(undefined, { uploadCerts: true, certificateKey: given }).config.init
      .certificateKey,
    given,
  );
});

Deno.test("ignore-preflight-errors merges flags and config, lowercased", () => {
  const { config } = resolveForTest(`${INIT}nodeRegistration:\n  ignorePreflightErrors: [Swap]\n`, {
    ignorePreflightErrors: ["NumCPU", "swap"],
  });
  assert.deepEqual(config.init.nodeRegistration.ignorePreflightErrors, ["numcpu", "swap"]);
  assertConfigFailure(
    () => resolveForTest(undefined, { ignorePreflightErrors: ["all", "Swap"] }),
    ValidationError,
    "ignore-preflight-errors",
    "don't specify individual checks if 'all' is used",
  );
});

Deno.test("the removed PublicKeysECDSA gate is refused; encryptionAlgorithm alone decides", () => {
  assertConfigFailure(
    () => resolveForTest(undefined, { featureGates: { PublicKeysECDSA: true } }),
    ValidationError,
    "PublicKeysECDSA is not a valid feature name.",
  );
  const r = resolveForTest(`${CLUSTER}encryptionAlgorithm: ECDSA-P256\n`);
  assert.equal(r.config.cluster.encryptionAlgorithm, "ECDSA-P256");
});

Deno.test("a cluster's stored kubeadm-config keeps removed gates (carried along, never refused); a file's are refused", () => {
  const text =
    `${CLUSTER}featureGates:\n  NodeLocalCRISocket: true\n  RootlessControlPlane: false\n`;
  const { config } = resolveInitConfig({
    text,
    fromCluster: true,
    host: TEST_HOST,
    random: counterRandom(0),
  });
  assert.deepEqual(config.cluster.featureGates, {
    NodeLocalCRISocket: true,
    RootlessControlPlane: false,
  });
  assertConfigFailure(
    () => resolveInitConfig({ text, host: TEST_HOST, random: counterRandom(0) }),
    ValidationError,
    "NodeLocalCRISocket is not a valid feature name.",
  );
});

Deno.test("external etcd: httpEndpoints default to endpoints; empty endpoints are refused", () => {
  const ext = (body: string) => `${CLUSTER}etcd:\n  external:\n${body}`;
  const { config } = resolveForTest(ext("    endpoints: [https://10.0.0.5:2379]\n"));
  assert.deepEqual(config.cluster.etcd.external?.httpEndpoints, ["https://10.0.0.5:2379"]);
  const own = resolveForTest(
    ext("    endpoints: [https://10.0.0.5:2379]\n    httpEndpoints: [http://10.0.0.5:2381]\n"),
  );
  assert.deepEqual(own.config.cluster.etcd.external?.httpEndpoints, ["http://10.0.0.5:2381"]);
  assertConfigFailure(
    () => resolveForTest(ext("    endpoints: []\n")),
    ValidationError,
    // upstream kubeadm v1.37.2: errors/validate-external-etcd-no-endpoints.txt
    'etcd.external.endpoints: Invalid value: "": at least one endpoint must be specified',
  );
  assertConfigFailure(
    () =>
      resolveForTest(
        ext(
          "    endpoints: [https://10.0.0.5:2379]\n    httpEndpoints: [10.0.0.5]\n    caFile: /ca.crt\n",
        ),
      ),
    ValidationError,
    'etcd.external.httpEndpoints: Invalid value: "10.0.0.5": the URL without scheme is not allowed',
  );
});

Deno.test("mixing --config with other flags", () => {
  validateMixedArguments(["config", "skip-phases", "upload-certs", "dry-run", "node-name", "v"]);
  validateMixedArguments(["token", "pod-network-cidr"]);
  const err = assertConfigFailure(
    () => validateMixedArguments(["config", "token", "pod-network-cidr", "skip-token-print"]),
    FlagError,
    "can not mix '--config' with arguments [pod-network-cidr token]",
  );
  assert.equal(err.field, "--pod-network-cidr");
});

Deno.test("the resolved config is independent of the loaded documents", () => {
  const text = `${INIT}bootstrapTokens:\n- token: abcdef.0123456789abcdef\n`;
  const a = resolveForTest(text).config;
  a.init.bootstrapTokens[0].token = "mutated";
  const b = resolveForTest(text).config;
  assert.equal(b.init.bootstrapTokens[0].token, "abcdef.0123456789abcdef");
});

// Issue 9, finding 10: an advertiseAddress error names where the value came from.
Deno.test("advertiseAddress errors name the config field from --config and the flag from the flag", () => {
  const fromFile = assertConfigFailure(
    () => resolveForTest(`${INIT}localAPIEndpoint:\n  advertiseAddress: not-an-ip\n`),
    ConfigError,
    `couldn't use "not-an-ip" as "localAPIEndpoint.advertiseAddress", must be ipv4 or ipv6 address`,
  );
  assert.equal(fromFile.field, "localAPIEndpoint.advertiseAddress");
  assert.ok(!fromFile.message.includes("apiserver-advertise-address"), fromFile.message);
  const loopback = assertConfigFailure(
    () => resolveForTest(`${INIT}localAPIEndpoint:\n  advertiseAddress: 127.0.0.1\n`),
    ConfigError,
    "unable to resolve link-local addresses",
  );
  assert.equal(loopback.field, "localAPIEndpoint.advertiseAddress");
  const fromFlag = assertConfigFailure(
    () => resolveForTest(undefined, { advertiseAddress: "not-an-ip" }),
    ConfigError,
    `couldn't use "not-an-ip" as "apiserver-advertise-address", must be ipv4 or ipv6 address`,
  );
  assert.equal(fromFlag.field, "--apiserver-advertise-address");
});

Deno.test("null values decode as Go's zero values (found by scripts/fuzz: bootstrapTokens: [null] threw a TypeError)", () => {
  const { config } = resolveForTest(
    `${INIT}bootstrapTokens:\n  - null\nnodeRegistration: null\nlocalAPIEndpoint:\n  advertiseAddress: null\n---\n${CLUSTER}networking:\n  podSubnet: null\napiServer:\n  extraArgs: null\n`,
  );
  // One empty token, defaulted as upstream defaults a zero BootstrapToken.
  assert.equal(config.init.bootstrapTokens.length, 1);
  assert.match(config.init.bootstrapTokens[0].token ?? "", /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
  assert.deepEqual(config.init.bootstrapTokens[0].usages, ["signing", "authentication"]);
  assert.equal(config.cluster.networking.podSubnet, undefined);
  assert.throws(
    () => resolveForTest(`${CLUSTER}apiServer:\n  certSANs: [null]\n`),
    (e) =>
      e instanceof ValidationError && /^apiServer\.certSANs: Invalid value: ""/.test(e.message),
  );
  assert.throws(
    () => resolveForTest(`${INIT}nodeRegistration:\n  kubeletExtraArgs: [null]\n`),
    (e) =>
      e instanceof ValidationError &&
      /nodeRegistration\.kubeletExtraArgs: .*argument has no name/.test(e.message),
  );
});
