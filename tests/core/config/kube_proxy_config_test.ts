import assert from "node:assert/strict";
import { defaultKubeProxyConfiguration } from "../../../core/config/kube_proxy_config.ts";
import { resolveForTest } from "../../support/config.ts";

Deno.test("kube-proxy defaults: bind address by family, cluster CIDR, kubeconfig, mode iptables (v1.37)", () => {
  const v4 = defaultKubeProxyConfiguration(undefined, {
    advertiseAddress: "10.0.0.1",
    podSubnet: "10.244.0.0/16",
  });
  assert.equal(v4.config.bindAddress, "0.0.0.0");
  assert.equal(v4.config.clusterCIDR, "10.244.0.0/16");
  assert.deepEqual(v4.config.clientConnection, {
    acceptContentTypes: "",
    burst: 0,
    contentType: "",
    kubeconfig: "/var/lib/kube-proxy/kubeconfig.conf",
    qps: 0,
  });
  assert.equal(v4.config.mode, "iptables");
  assert.equal(v4.config.oomScoreAdj, null);
  assert.deepEqual(v4.warnings, []);
  const v6 = defaultKubeProxyConfiguration(undefined, { advertiseAddress: "fd00::1" });
  assert.equal(v6.config.bindAddress, "::");
  assert.equal(v6.config.clusterCIDR, "");
});

Deno.test("kube-proxy user values are kept and warned about", () => {
  const { config, warnings } = defaultKubeProxyConfiguration(
    {
      mode: "ipvs",
      clusterCIDR: "10.1.0.0/16",
      ipvs: { syncPeriod: "5s", strictARP: true },
      clientConnection: null,
    },
    { advertiseAddress: "10.0.0.1", podSubnet: "10.244.0.0/16" },
  );
  assert.equal(config.mode, "ipvs");
  assert.deepEqual(config.ipvs, {
    excludeCIDRs: null,
    minSyncPeriod: "0s",
    scheduler: "",
    strictARP: true,
    syncPeriod: "5s",
    tcpFinTimeout: "0s",
    tcpTimeout: "0s",
    udpTimeout: "0s",
  });
  assert.equal(
    (config.clientConnection as Record<string, unknown>).kubeconfig,
    "/var/lib/kube-proxy/kubeconfig.conf",
  );
  assert.deepEqual(warnings, [
    'The recommended value for "clusterCIDR" in "KubeProxyConfiguration" is: 10.244.0.0/16; the provided value is: 10.1.0.0/16',
    'The "KubeProxyConfiguration" field "mode" is set to "ipvs" which has been deprecated since version v1.35. For newer Linux kernel versions, we recommend using the "nftables" mode, which has been GA since v1.33. For older Linux kernel versions, you can use the "iptables" mode which is still the default one.',
  ]);
  const nft = defaultKubeProxyConfiguration({ mode: "nftables" }, { advertiseAddress: "10.0.0.1" });
  assert.equal(nft.config.mode, "nftables");
  assert.deepEqual(nft.warnings, []);
});

Deno.test("kube-proxy bindAddress (v1.37): wildcards of either family accepted, others compared with their own family", () => {
  const bind = (bindAddress: string, advertiseAddress = "10.0.0.1") =>
    defaultKubeProxyConfiguration({ bindAddress }, { advertiseAddress });
  assert.deepEqual(bind("::").warnings, [], "an IPv6 wildcard with an IPv4 advertise address");
  assert.deepEqual(bind("0.0.0.0", "fd00::1").warnings, []);
  assert.deepEqual(bind("10.0.0.1").warnings, [
    'The recommended value for "bindAddress" in "KubeProxyConfiguration" is: 0.0.0.0; the provided value is: 10.0.0.1',
  ]);
  assert.deepEqual(bind("fd00::2").warnings, [
    'The recommended value for "bindAddress" in "KubeProxyConfiguration" is: ::; the provided value is: fd00::2',
  ]);
  assert.deepEqual(bind("not-an-ip").warnings, [
    'The bindAddress "not-an-ip" in "KubeProxyConfiguration" is not a valid IP address',
  ]);
  assert.equal(bind("not-an-ip").config.bindAddress, "not-an-ip");
});

Deno.test("resolved kube-proxy config uses the advertise address and pod subnet", () => {
  const { config } = resolveForTest(undefined, { podSubnet: "192.168.0.0/16" });
  assert.equal(config.kubeProxy.clusterCIDR, "192.168.0.0/16");
  assert.equal(config.kubeProxy.bindAddress, "0.0.0.0");
  assert.equal(config.kubeProxy.apiVersion, "kubeproxy.config.k8s.io/v1alpha1");
  assert.equal(config.userSupplied.kubeProxy, false);
});
