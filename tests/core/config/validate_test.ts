import assert from "node:assert/strict";
import { ValidationError } from "../../../core/errors.ts";
import type { Inputs } from "../../../core/config/inputs.ts";
import { assertConfigFailure, resolveForTest } from "../../support/config.ts";

const INIT = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n";
const CLUSTER = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n";

/** Resolves and expects a ValidationError (exit 3) whose message has all fragments. */
function rejects(
  text: string | undefined,
  inputs: Inputs | undefined,
  ...fragments: string[]
) {
  return assertConfigFailure(() => resolveForTest(text, inputs), ValidationError, ...fragments);
}

Deno.test("a valid config passes", () => {
  const { config } = resolveForTest(
    `${INIT}bootstrapTokens:\n- token: abcdef.0123456789abcdef\n  description: test\n---\n${CLUSTER}networking:\n  podSubnet: 10.244.0.0/16,fd00:10:244::/56\n  serviceSubnet: 10.96.0.0/16,fd00:10:96::/112\n`,
  );
  assert.equal(config.cluster.networking.podSubnet, "10.244.0.0/16,fd00:10:244::/56");
});

Deno.test("bootstrap token format, with the secret redacted", () => {
  const err = rejects(
    undefined,
    { token: "abcdef.NOTLOWERCASE1234" },
    "bootstrapTokens[0].token",
    "abcdef.<redacted>",
  );
  assert.ok(!err.message.includes("NOTLOWERCASE1234"));
  assert.equal(err.errors[0].value, "abcdef.<redacted>");
});

Deno.test("bootstrap token usages and groups", () => {
  rejects(
    `${INIT}bootstrapTokens:\n- usages: [signing, foo]\n`,
    undefined,
    "bootstrapTokens[0].usages",
    "valid usage options: signing,authentication",
  );
  rejects(
    `${INIT}bootstrapTokens:\n- groups: [system:bootstrappers:Bad]\n`,
    undefined,
    "bootstrapTokens[0].groups",
    "is invalid (must match",
  );
  rejects(
    `${INIT}bootstrapTokens:\n- usages: [signing]\n  groups: [system:bootstrappers:x]\n`,
    undefined,
    "bootstrapTokens[0].groups",
    'unless --usages includes "authentication"',
  );
});

Deno.test("bootstrap token ttl and expires", () => {
  rejects(
    `${INIT}bootstrapTokens:\n- ttl: 1h\n  expires: "2030-01-01T00:00:00Z"\n`,
    undefined,
    "bootstrapTokens[0]",
    "mutually exclusive",
  );
  rejects(undefined, { tokenTTL: "1day" }, "bootstrapTokens[0].ttl", "unknown unit");
  rejects(undefined, { tokenTTL: "-1h" }, "bootstrapTokens[0].ttl", "negative");
  // expires alone is accepted (no default TTL added)
  const { config } = resolveForTest(`${INIT}bootstrapTokens:\n- expires: 2030-01-01T00:00:00Z\n`);
  assert.equal(config.init.bootstrapTokens[0].expires, "2030-01-01T00:00:00Z");
  assert.equal(config.init.bootstrapTokens[0].ttl, undefined);
});

Deno.test("certificate key must be 32 hex-encoded bytes and is never echoed", () => {
  const bad = "zz".repeat(32);
  const err = rejects(undefined, { certificateKey: bad }, "certificateKey", "decoding error");
  assert.ok(!err.message.includes(bad));
  rejects(
    undefined,
    { certificateKey: "ab".repeat(16) },
    "certificateKey",
    "invalid certificate key size 16",
  );
});

Deno.test("node name must be a DNS-1123 subdomain", () => {
  rejects(
    undefined,
    { nodeName: "bad_name" },
    "nodeRegistration.name",
    "RFC 1123 subdomain",
    '"bad_name"',
  );
});

Deno.test("CRI socket must be a unix URL", () => {
  rejects(
    undefined,
    { criSocket: "tcp://1.2.3.4:1234" },
    "nodeRegistration.criSocket",
    'only URL scheme "unix" is supported, got "tcp"',
  );
});

Deno.test("taints need a valid key and effect", () => {
  rejects(
    `${INIT}nodeRegistration:\n  taints:\n  - key: a/b/c!\n    effect: Sometimes\n`,
    undefined,
    "nodeRegistration.taints[0].key",
    "nodeRegistration.taints[0].effect",
    '"NoSchedule", "PreferNoSchedule", "NoExecute"',
  );
});

Deno.test("image pull policy", () => {
  rejects(
    `${INIT}nodeRegistration:\n  imagePullPolicy: Sometimes\n`,
    undefined,
    "nodeRegistration.imagePullPolicy",
    '"Always", "IfNotPresent", "Never"',
  );
});

Deno.test("bind port range", () => {
  rejects(undefined, { bindPort: 70000 }, "localAPIEndpoint.bindPort", "1-65535");
});

Deno.test("control-plane endpoint", () => {
  rejects(
    undefined,
    { controlPlaneEndpoint: "lb.example.com:99999" },
    "controlPlaneEndpoint",
    "endpoint is not valid",
  );
  rejects(
    undefined,
    { controlPlaneEndpoint: "under_score:6443" },
    "controlPlaneEndpoint",
    "RFC-1123",
  );
});

Deno.test("service subnet: valid CIDRs, dual-stack, size limits", () => {
  rejects(
    undefined,
    { serviceSubnet: "10.96.0.0" },
    "networking.serviceSubnet",
    "couldn't parse subnet",
  );
  rejects(
    undefined,
    { serviceSubnet: "10.96.0.0/16,10.97.0.0/16" },
    "networking.serviceSubnet",
    "two CIDRs from each family",
  );
  rejects(
    undefined,
    { serviceSubnet: "10.96.0.0/16,fd00::/112,fd01::/112" },
    "networking.serviceSubnet",
    "expected one (IPv4 or IPv6)",
  );
  rejects(
    undefined,
    { serviceSubnet: "10.96.0.0/29" },
    "networking.serviceSubnet",
    "subnet with 8 address(es) is too small, the minimum is 10",
  );
  rejects(
    undefined,
    { serviceSubnet: "10.0.0.0/8" },
    "networking.serviceSubnet",
    "the mask must be >= 12",
  );
  rejects(
    undefined,
    { serviceSubnet: "fd00::/64" },
    "networking.serviceSubnet",
    "for 128-bit addresses, the mask must be >= 108",
  );
});

Deno.test("pod subnet: valid, minimum size, node mask", () => {
  rejects(
    undefined,
    { podSubnet: "10.244.0.0/33" },
    "networking.podSubnet",
    "couldn't parse subnet",
  );
  rejects(
    undefined,
    { podSubnet: "10.244.0.0/29" },
    "networking.podSubnet",
    "too small, the minimum is 14",
  );
  rejects(
    undefined,
    { podSubnet: "10.0.0.0/4" },
    "networking.podSubnet",
    "difference is greater than 16",
  );
  rejects(
    undefined,
    { podSubnet: "10.244.0.0/25" },
    "networking.podSubnet",
    "smaller than the size of node subnet with mask 24",
  );
  // the node mask comes from the controller-manager flags; allocate-node-cidrs=false skips it
  resolveForTest(
    `${CLUSTER}networking:\n  podSubnet: 10.244.0.0/25\ncontrollerManager:\n  extraArgs:\n  - name: node-cidr-mask-size-ipv4\n    value: "28"\n`,
  );
  resolveForTest(
    `${CLUSTER}networking:\n  podSubnet: 10.0.0.0/4\ncontrollerManager:\n  extraArgs:\n  - name: allocate-node-cidrs\n    value: "false"\n`,
  );
});

Deno.test("dns domain", () => {
  rejects(undefined, { dnsDomain: "Cluster.Local" }, "networking.dnsDomain", "RFC 1123 subdomain");
});

Deno.test("cert SANs: IPs, DNS names and wildcards only", () => {
  resolveForTest(undefined, {
    certSANs: ["10.0.0.1", "*.example.com", "api.example.com", "fd00::1"],
  });
  rejects(
    `${CLUSTER}apiServer:\n  certSANs: ["bad_san!"]\n`,
    undefined,
    "apiServer.certSANs",
    "altname is not a valid IP address",
  );
  rejects(
    `${CLUSTER}etcd:\n  local:\n    serverCertSANs: ["a..b"]\n`,
    undefined,
    "etcd.local.serverCertSANs",
  );
});

Deno.test("etcd: local XOR external, TLS files all-or-none, URLs", () => {
  rejects(
    `${CLUSTER}etcd:\n  local:\n    dataDir: /var/lib/etcd\n  external:\n    endpoints: [https://e:2379]\n`,
    undefined,
    "etcd",
    "mutually exclusive",
  );
  rejects(
    `${CLUSTER}etcd:\n  external:\n    endpoints: [https://e:2379]\n    certFile: /c.crt\n`,
    undefined,
    "etcd.external",
    "either both or none of .Etcd.External.CertFile and .Etcd.External.KeyFile must be set",
  );
  rejects(
    `${CLUSTER}etcd:\n  external:\n    endpoints: [https://e:2379]\n    certFile: /c.crt\n    keyFile: /c.key\n`,
    undefined,
    "etcd.external",
    "requires .Etcd.External.CAFile",
  );
  rejects(
    `${CLUSTER}etcd:\n  external:\n    endpoints: [http://e:2379]\n    caFile: /ca.crt\n    certFile: /c.crt\n    keyFile: /c.key\n`,
    undefined,
    "etcd.external.endpoints",
    "HTTPS",
  );
  // Go's url.Parse: "e:2379" has the scheme "e"; "10.0.0.5" none; "10.0.0.5:2379" fails.
  rejects(
    `${CLUSTER}etcd:\n  external:\n    endpoints: [10.0.0.5]\n`,
    undefined,
    'etcd.external.endpoints: Invalid value: "10.0.0.5": the URL without scheme is not allowed',
  );
  rejects(
    `${CLUSTER}etcd:\n  external:\n    endpoints: ["10.0.0.5:2379"]\n`,
    undefined,
    'etcd.external.endpoints: Invalid value: "10.0.0.5:2379": URL parse error: parse "10.0.0.5:2379": first path segment in URL cannot contain colon',
  );
  resolveForTest(`${CLUSTER}etcd:\n  external:\n    endpoints: [e:2379]\n`);
  rejects(
    `${CLUSTER}etcd:\n  external:\n    caFile: ca.crt\n    endpoints: [https://e:2379]\n`,
    undefined,
    "etcd.external.caFile",
    "path is not absolute",
  );
  rejects(
    `${CLUSTER}etcd:\n  local:\n    dataDir: relative/dir\n`,
    undefined,
    "etcd.local.dataDir",
    "path is not absolute",
  );
  resolveForTest(`${CLUSTER}etcd:\n  external:\n    endpoints: [http://e:2379]\n`);
});

Deno.test("extraArgs need names; extraVolumes need fields and a known pathType; extraEnvs need names", () => {
  rejects(
    `${CLUSTER}apiServer:\n  extraArgs:\n  - value: x\n`,
    undefined,
    "apiServer.extraArgs",
    "argument has no name",
  );
  rejects(
    `${INIT}nodeRegistration:\n  kubeletExtraArgs:\n  - value: x\n`,
    undefined,
    "nodeRegistration.kubeletExtraArgs",
    "argument has no name",
  );
  rejects(
    `${CLUSTER}controllerManager:\n  extraVolumes:\n  - name: v\n    pathType: Sometimes\n`,
    undefined,
    "controllerManager.extraVolumes[0].hostPath",
    "controllerManager.extraVolumes[0].mountPath",
    "controllerManager.extraVolumes[0].pathType",
    '"DirectoryOrCreate"',
  );
  rejects(
    `${CLUSTER}scheduler:\n  extraEnvs:\n  - value: x\n`,
    undefined,
    "scheduler.extraEnvs[0].name",
  );
});

Deno.test("feature gates: known kubeadm gates only, removed ones with upstream's message", () => {
  rejects(
    `${CLUSTER}featureGates:\n  NoSuchGate: true\n`,
    undefined,
    'featureGates: Invalid value: {"NoSuchGate":true}: NoSuchGate is not a valid feature name.',
  );
  rejects(
    `${CLUSTER}featureGates:\n  NodeLocalCRISocket: true\n`,
    undefined,
    'featureGates: Invalid value: {"NodeLocalCRISocket":true}: NodeLocalCRISocket is not a valid feature name.',
  );
});

Deno.test("encryption algorithm and validity periods", () => {
  rejects(
    `${CLUSTER}encryptionAlgorithm: DSA-1024\n`,
    undefined,
    "encryptionAlgorithm",
    "ECDSA-P256",
    "RSA-4096",
  );
  rejects(
    `${CLUSTER}certificateValidityPeriod: 0s\n`,
    undefined,
    "certificateValidityPeriod",
    "greater than 0",
  );
  rejects(
    `${CLUSTER}caCertificateValidityPeriod: -1h\n`,
    undefined,
    "caCertificateValidityPeriod",
    "greater than 0",
  );
  rejects(
    `${CLUSTER}certificateValidityPeriod: 1y\n`,
    undefined,
    "certificateValidityPeriod",
    "unknown unit",
  );
  const long = resolveForTest(`${CLUSTER}certificateValidityPeriod: 17520h\n`);
  assert.ok(
    long.warnings.some((w) =>
      w.includes(
        "certificateValidityPeriod: the value 17520h0m0s is more than the recommended default for certificate expiration: 8760h0m0s",
      )
    ),
  );
});

Deno.test("image repositories", () => {
  rejects(
    undefined,
    { imageRepository: "Bad Repo" },
    "imageRepository",
    "invalid image repository format",
  );
  rejects(`${CLUSTER}dns:\n  imageRepository: "bad//repo"\n`, undefined, "dns.imageRepository");
  resolveForTest(undefined, { imageRepository: "my-registry.local:5000/mirror/k8s" });
});

Deno.test("certificates dir must be absolute", () => {
  rejects(undefined, { certificatesDir: "pki" }, "certificatesDir", "path is not absolute");
});

Deno.test("timeouts must be durations", () => {
  rejects(
    `${INIT}timeouts:\n  kubeletHealthCheck: soon\n`,
    undefined,
    "timeouts.kubeletHealthCheck",
    "invalid duration",
  );
});

Deno.test("all problems are aggregated into one error", () => {
  const err = rejects(undefined, {
    bindPort: 0x10000,
    nodeName: "bad_name",
    serviceSubnet: "nope",
  });
  assert.ok(err.errors.length >= 3);
  const fields = err.errors.map((e) => e.field);
  for (
    const f of ["localAPIEndpoint.bindPort", "nodeRegistration.name", "networking.serviceSubnet"]
  ) {
    assert.ok(fields.includes(f), f);
  }
  assert.ok(err.message.startsWith("["));
});
