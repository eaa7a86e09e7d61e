// Which checks init, join and join --control-plane run, in upstream's order (upstream kubeadm
// v1.37.2 `preflight/checks.go` and its `init --dry-run` output).
import assert from "node:assert/strict";
import {
  imagePullChecks,
  initNodeChecks,
  joinNodeChecks,
  rootChecks,
} from "../../../core/preflight/catalog.ts";
import { initConfigFixture } from "../../support/init_config_fixture.ts";

const INIT_ORDER = [
  "NumCPU",
  "Mem",
  "KubernetesVersion",
  "Firewalld",
  "Port-6443",
  "Port-10259",
  "Port-10257",
  "FileAvailable--etc-kubernetes-manifests-kube-apiserver.yaml",
  "FileAvailable--etc-kubernetes-manifests-kube-controller-manager.yaml",
  "FileAvailable--etc-kubernetes-manifests-kube-scheduler.yaml",
  "FileAvailable--etc-kubernetes-manifests-etcd.yaml",
  "HTTPProxy",
  "HTTPProxyCIDR",
  "CRI",
  "ContainerRuntimeVersion",
  "Swap",
  "FileExisting-losetup",
  "FileExisting-mount",
  "FileExisting-cp",
  "SystemVerification",
  "Hostname",
  "KubeletVersion",
  "Service-kubelet",
  "Port-10250",
  "FileContent--proc-sys-net-ipv4-ip_forward",
  "Port-2379",
  "Port-2380",
  "DirAvailable--var-lib-etcd",
];

Deno.test("init: the default configuration's checks, in order", () => {
  assert.deepEqual(initNodeChecks(initConfigFixture()).map((c) => c.name), INIT_ORDER);
  assert.deepEqual(rootChecks().map((c) => c.name), ["IsPrivilegedUser"]);
  assert.deepEqual(imagePullChecks(initConfigFixture()).map((c) => c.name), ["ImagePull"]);
});

Deno.test("init: ports are checked on the components' bind and advertise addresses (v1.37)", async () => {
  const { FakeMachine } = await import("../../support/fake_machine.ts");
  const cfg = initConfigFixture();
  cfg.cluster.apiServer.extraArgs = [{ name: "bind-address", value: "10.9.9.9" }];
  cfg.cluster.scheduler.extraArgs = [{ name: "bind-address", value: "127.0.0.1" }];
  const host = new FakeMachine();
  host.foreignAddresses.add("10.9.9.9").add("192.168.0.10");
  const outcome = async (name: string) => {
    const check = initNodeChecks(cfg).find((c) => c.name === name)!;
    return (await check.run(host)).errors;
  };
  assert.deepEqual(await outcome("Port-6443"), ["Port 6443 is in use"]);
  assert.deepEqual(await outcome("Port-10259"), []);
  assert.deepEqual(await outcome("Port-10257"), []);
  // etcd binds the advertise address: one not on this host reads "in use", as upstream.
  assert.deepEqual(await outcome("Port-2379"), ["Port 2379 is in use"]);
  assert.deepEqual(await outcome("Port-2380"), ["Port 2380 is in use"]);
  cfg.cluster.apiServer.extraArgs = [{ name: "advertise-address", value: "127.0.0.1" }];
  assert.deepEqual(await outcome("Port-2379"), []);
});

Deno.test("init: bind port, dual-stack subnets and a custom etcd data dir change the list", () => {
  const cfg = initConfigFixture();
  cfg.init.localAPIEndpoint.bindPort = 7443;
  cfg.cluster.networking.serviceSubnet = "10.96.0.0/12,fd01::/108";
  cfg.cluster.networking.podSubnet = "10.244.0.0/16";
  cfg.cluster.etcd = { local: { dataDir: "/data/etcd" } };
  const names = initNodeChecks(cfg).map((c) => c.name);
  assert.ok(names.includes("Port-7443") && !names.includes("Port-6443"));
  assert.equal(names.filter((n) => n === "HTTPProxyCIDR").length, 3);
  assert.ok(names.includes("FileContent--proc-sys-net-ipv6-conf-default-forwarding"));
  assert.ok(names.includes("DirAvailable--data-etcd"));
});

Deno.test("init: an IPv6-only node checks IPv6 forwarding only", () => {
  const cfg = initConfigFixture();
  cfg.init.localAPIEndpoint.advertiseAddress = "fd00::10";
  cfg.cluster.networking.serviceSubnet = "fd01::/108";
  const names = initNodeChecks(cfg).map((c) => c.name);
  assert.ok(names.includes("FileContent--proc-sys-net-ipv6-conf-default-forwarding"));
  assert.ok(!names.includes("FileContent--proc-sys-net-ipv4-ip_forward"));
});

Deno.test("init: external etcd checks its version and client files instead of local etcd", () => {
  const cfg = initConfigFixture();
  cfg.cluster.etcd = {
    external: {
      endpoints: ["https://10.0.0.5:2379"],
      caFile: "/etc/etcd/ca.crt",
      certFile: "/etc/etcd/c.crt",
      keyFile: "/etc/etcd/c.key",
    },
  };
  const names = initNodeChecks(cfg).map((c) => c.name);
  assert.ok(names.includes("ExternalEtcdVersion"));
  assert.equal(names.filter((n) => n === "ExternalEtcdClientCertificates").length, 3);
  assert.ok(!names.includes("Port-2379") && !names.includes("DirAvailable--var-lib-etcd"));
  // a secondary control plane downloading certificates skips the client files and the version
  const secondary = initNodeChecks(cfg, { isSecondaryControlPlane: true, downloadCerts: true })
    .map((c) => c.name);
  assert.ok(!secondary.includes("ExternalEtcdClientCertificates"));
  assert.ok(!secondary.includes("ExternalEtcdVersion"));
});

Deno.test("join --control-plane runs the init list without the common and forwarding checks", () => {
  const names = initNodeChecks(initConfigFixture(), { isSecondaryControlPlane: true }).map((c) =>
    c.name
  );
  assert.deepEqual(names, [
    ...INIT_ORDER.slice(0, 13),
    "Port-2379",
    "Port-2380",
    "DirAvailable--var-lib-etcd",
  ]);
});

Deno.test("join: worker and control-plane lists, in order", () => {
  const worker = joinNodeChecks({
    nodeName: "w-1",
    criSocket: "unix:///run/containerd/containerd.sock",
    caCertPath: "/etc/kubernetes/pki/ca.crt",
    controlPlane: false,
    discoveryEndpoint: "192.168.0.10:6443",
  }).map((c) => c.name);
  assert.deepEqual(worker, [
    "FileAvailable--etc-kubernetes-kubelet.conf",
    "FileAvailable--etc-kubernetes-bootstrap-kubelet.conf",
    "CRI",
    "ContainerRuntimeVersion",
    "Swap",
    "FileExisting-losetup",
    "FileExisting-mount",
    "FileExisting-cp",
    "SystemVerification",
    "Hostname",
    "KubeletVersion",
    "Service-kubelet",
    "Port-10250",
    "FileAvailable--etc-kubernetes-pki-ca.crt",
    "HTTPProxy",
    "FileContent--proc-sys-net-ipv4-ip_forward",
  ]);
  const cp = joinNodeChecks({
    nodeName: "c-2",
    criSocket: "unix:///run/containerd/containerd.sock",
    caCertPath: "/etc/kubernetes/pki/ca.crt",
    controlPlane: true,
    discoveryEndpoint: "[fd00::1]:6443",
  }).map((c) => c.name);
  assert.ok(!cp.includes("FileAvailable--etc-kubernetes-pki-ca.crt"));
  assert.deepEqual(cp.slice(-2), [
    "HTTPProxy",
    "FileContent--proc-sys-net-ipv6-conf-default-forwarding",
  ]);
  // file discovery (no endpoint) and a host name endpoint add no forwarding check
  const file = joinNodeChecks({
    nodeName: "w",
    criSocket: "unix:///x.sock",
    caCertPath: "/etc/kubernetes/pki/ca.crt",
    controlPlane: false,
  }).map((c) => c.name);
  assert.equal(file.at(-1), "FileAvailable--etc-kubernetes-pki-ca.crt");
  const named = joinNodeChecks({
    nodeName: "w",
    criSocket: "unix:///x.sock",
    caCertPath: "/etc/kubernetes/pki/ca.crt",
    controlPlane: false,
    discoveryEndpoint: "api.example.com:6443",
  }).map((c) => c.name);
  assert.equal(named.at(-1), "HTTPProxy");
});
