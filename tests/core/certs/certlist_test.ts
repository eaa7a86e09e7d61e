import assert from "node:assert/strict";
import {
  apiServerAltNames,
  CERT_SUB_PHASES,
  certConfigFor,
  certListFor,
  CERTS_WITHOUT_ETCD,
  certSpec,
  etcdAltNames,
  KUBEADM_CERTS,
} from "../../../core/certs/certlist.ts";
import { dedupeAltNames } from "../../../core/pki/extensions.ts";
import { initConfigFixture } from "../../support/init_config_fixture.ts";

Deno.test("KUBEADM_CERTS lists upstream's inventory in creation order", () => {
  assert.deepEqual(KUBEADM_CERTS.map((c) => [c.name, c.baseName, c.caName ?? "", c.commonName]), [
    ["ca", "ca", "", "kubernetes"],
    ["apiserver", "apiserver", "ca", "kube-apiserver"],
    ["apiserver-kubelet-client", "apiserver-kubelet-client", "ca", "kube-apiserver-kubelet-client"],
    ["front-proxy-ca", "front-proxy-ca", "", "front-proxy-ca"],
    ["front-proxy-client", "front-proxy-client", "front-proxy-ca", "front-proxy-client"],
    ["etcd-ca", "etcd/ca", "", "etcd-ca"],
    ["etcd-server", "etcd/server", "etcd-ca", ""],
    ["etcd-peer", "etcd/peer", "etcd-ca", ""],
    [
      "etcd-healthcheck-client",
      "etcd/healthcheck-client",
      "etcd-ca",
      "kube-etcd-healthcheck-client",
    ],
    ["apiserver-etcd-client", "apiserver-etcd-client", "etcd-ca", "kube-apiserver-etcd-client"],
  ]);
  // kubeadm v1.37: the API server's kubelet client is no longer in kubeadm:cluster-admins.
  assert.deepEqual(certSpec("apiserver-kubelet-client").organization, []);
  assert.deepEqual(certSpec("etcd-healthcheck-client").organization, []);
  assert.deepEqual(certSpec("apiserver-etcd-client").organization, []);
  assert.deepEqual(certSpec("etcd-server").usages, ["serverAuth", "clientAuth"]);
  assert.deepEqual(certSpec("apiserver").usages, ["serverAuth"]);
  assert.deepEqual(CERTS_WITHOUT_ETCD.map((c) => c.name), [
    "ca",
    "apiserver",
    "apiserver-kubelet-client",
    "front-proxy-ca",
    "front-proxy-client",
  ]);
  const cfg = initConfigFixture();
  assert.equal(certListFor(cfg).length, 10);
  cfg.cluster.etcd = { external: { endpoints: ["https://10.0.0.9:2379"] } };
  assert.equal(certListFor(cfg).length, 5);
  assert.throws(() => certSpec("nope"), /unknown certificate "nope"/);
});

Deno.test("apiServerAltNames() follows GetAPIServerAltNames, warning about invalid certSANs", () => {
  const cfg = initConfigFixture();
  cfg.cluster.controlPlaneEndpoint = "lb.example.com:6443";
  cfg.cluster.apiServer.certSANs = [
    "10.0.0.7",
    "api.example.com",
    "*.apps.example.com",
    "Bad_Name",
    "fd00::7",
  ];
  const warnings: string[] = [];
  const alt = apiServerAltNames(cfg, (l) => warnings.push(l));
  assert.deepEqual(alt.dnsNames, [
    "cp-1",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
    "lb.example.com",
    "api.example.com",
    "*.apps.example.com",
  ]);
  assert.deepEqual(alt.ips, ["10.96.0.1", "192.168.0.10", "10.0.0.7", "fd00::7"]);
  assert.deepEqual(warnings, [
    "[certificates] WARNING: 'Bad_Name' was not added to the 'apiserver' SAN, because it is not a valid IP or RFC-1123 compliant DNS entry",
  ]);
  cfg.cluster.controlPlaneEndpoint = "10.0.0.100";
  assert.deepEqual(apiServerAltNames(cfg).ips.slice(0, 3), [
    "10.96.0.1",
    "192.168.0.10",
    "10.0.0.100",
  ]);
  cfg.init.localAPIEndpoint.advertiseAddress = "not-an-ip";
  assert.throws(
    () => apiServerAltNames(cfg),
    /error parsing LocalAPIEndpoint AdvertiseAddress not-an-ip: is not a valid textual representation of an IP address/,
  );
});

Deno.test("apiserver SANs: DNS sorted and deduplicated, IPs first-seen (dual-stack service subnet)", () => {
  const cfg = initConfigFixture();
  cfg.cluster.networking.serviceSubnet = "fd00:10:96::/108,10.96.0.0/12";
  cfg.cluster.apiServer.certSANs = ["kubernetes", "192.168.0.10"];
  const alt = apiServerAltNames(cfg);
  assert.deepEqual(dedupeAltNames(alt.dnsNames, alt.ips), {
    dnsNames: [
      "cp-1",
      "kubernetes",
      "kubernetes.default",
      "kubernetes.default.svc",
      "kubernetes.default.svc.cluster.local",
    ],
    ips: ["fd00:10:96::1", "192.168.0.10"],
  });
});

Deno.test("etcdAltNames() adds localhost, loopbacks and serverCertSANs/peerCertSANs", () => {
  const cfg = initConfigFixture();
  cfg.cluster.etcd = {
    local: {
      serverCertSANs: ["etcd.example.com", "10.1.1.1"],
      peerCertSANs: ["peer.example.com", "x y"],
    },
  };
  assert.deepEqual(etcdAltNames(cfg, "server"), {
    dnsNames: ["cp-1", "localhost", "etcd.example.com"],
    ips: ["192.168.0.10", "127.0.0.1", "::1", "10.1.1.1"],
  });
  const warnings: string[] = [];
  assert.deepEqual(etcdAltNames(cfg, "peer", (l) => warnings.push(l)).dnsNames, [
    "cp-1",
    "localhost",
    "peer.example.com",
  ]);
  assert.match(warnings[0], /'x y' was not added to the 'etcd\/peer' SAN/);
});

Deno.test("certConfigFor() applies node-name CNs and validity from the configuration", () => {
  const cfg = initConfigFixture();
  cfg.cluster.certificateValidityPeriod = "48h0m0s";
  const start = new Date("2026-01-01T00:00:00Z");
  const server = certConfigFor(certSpec("etcd-server"), cfg, start);
  assert.equal(server.commonName, "cp-1");
  assert.equal(server.notBefore?.toISOString(), "2025-12-31T23:55:00.000Z");
  assert.equal(server.notAfter?.toISOString(), "2026-01-03T00:00:00.000Z");
  const ca = certConfigFor(certSpec("ca"), cfg, start);
  assert.equal(ca.notAfter?.toISOString(), "2035-12-30T00:00:00.000Z");
  assert.deepEqual(ca.usages, []);
  assert.deepEqual(ca.dnsNames, []);
});

Deno.test("CERT_SUB_PHASES carries upstream's sub-phase names and help", () => {
  assert.deepEqual(CERT_SUB_PHASES.map((p) => p.name), [
    "ca",
    "apiserver",
    "apiserver-kubelet-client",
    "front-proxy-ca",
    "front-proxy-client",
    "etcd-ca",
    "etcd-server",
    "etcd-peer",
    "etcd-healthcheck-client",
    "apiserver-etcd-client",
    "sa",
  ]);
  const apiserver = CERT_SUB_PHASES[1];
  assert.equal(apiserver.short, "Generate the certificate for serving the Kubernetes API");
  assert.equal(
    apiserver.long,
    "Generate the certificate for serving the Kubernetes API, and save them into apiserver.crt and apiserver.key files.\n\n" +
      "Default SANs are kubernetes, kubernetes.default, kubernetes.default.svc, kubernetes.default.svc.cluster.local, 10.96.0.1, 127.0.0.1\n\n" +
      "If both files already exist, kubeadm skips the generation step and existing files will be used.",
  );
  assert.match(
    CERT_SUB_PHASES[6].long,
    /save them into etcd\/server\.crt and etcd\/server\.key files\.\n\nDefault SANs are localhost, 127\.0\.0\.1, 127\.0\.0\.1, ::1\n/,
  );
  assert.match(
    CERT_SUB_PHASES[10].long,
    /^Generate the private key for signing service account tokens along with its public key, and save them into\nsa\.key and sa\.pub files\./,
  );
});
