// Every preflight check against a fake host: it passes on a healthy node, fails (or warns)
// with upstream's name and message when broken, and is downgraded when ignored by name
// (case-insensitively) or by `all`.
import assert from "node:assert/strict";
import type { Check } from "../../../core/preflight/check.ts";
import {
  containerRuntimeCheck,
  containerRuntimeVersionCheck,
  imagePullCheck,
  RUNTIME_CONFIG_UNIMPLEMENTED,
} from "../../../core/preflight/checks/container_runtime.ts";
import { inPathCheck } from "../../../core/preflight/checks/executables.ts";
import { externalEtcdVersionCheck } from "../../../core/preflight/checks/external_etcd.ts";
import { hostnameCheck } from "../../../core/preflight/checks/hostname.ts";
import {
  dirAvailableCheck,
  fileAvailableCheck,
  fileContentCheck,
  fileExistingCheck,
  IPV4_FORWARD,
  IPV6_DEFAULT_FORWARDING,
} from "../../../core/preflight/checks/paths.ts";
import { portOpenCheck } from "../../../core/preflight/checks/ports.ts";
import { isPrivilegedUserCheck } from "../../../core/preflight/checks/privileges.ts";
import { httpProxyCheck, httpProxyCIDRCheck } from "../../../core/preflight/checks/proxy.ts";
import { memCheck, numCPUCheck } from "../../../core/preflight/checks/resources.ts";
import { firewalldCheck, serviceCheck } from "../../../core/preflight/checks/services.ts";
import { SWAP_WARNING, swapCheck } from "../../../core/preflight/checks/swap.ts";
import { systemVerificationCheck } from "../../../core/preflight/checks/system_verification.ts";
import { upgradeChecks } from "../../../core/preflight/catalog.ts";
import {
  kubeletVersionCheck,
  kubernetesVersionCheck,
} from "../../../core/preflight/checks/versions.ts";
import { resolveIgnoreSet } from "../../../core/preflight/ignore.ts";
import { PreflightRun } from "../../../core/preflight/runner.ts";
import { PreflightError } from "../../../core/errors.ts";
import { CapturePrinter, FakeMachine } from "../../support/fake_machine.ts";

const SOCKET = "unix:///var/run/containerd/containerd.sock";
const ETCD = {
  endpoints: ["https://10.0.0.5:2379"],
  httpEndpoints: ["https://10.0.0.5:2379"],
  caFile: "/etc/etcd/ca.crt",
  certFile: "/etc/etcd/client.crt",
  keyFile: "/etc/etcd/client.key",
};

/** One check scenario: how to build the check, how to break the host, what it then reports. */
interface Case {
  name: string;
  check: () => Check;
  /** Prepares a healthy host for the check (extra state the default host lacks). */
  healthy?: (h: FakeMachine) => void;
  /** Makes the check find a problem. */
  breakIt: (h: FakeMachine) => void;
  level: "error" | "warning";
  message: string | RegExp;
}

const CASES: Case[] = [
  {
    name: "IsPrivilegedUser",
    check: isPrivilegedUserCheck,
    breakIt: (h) => h.uidValue = 1000,
    level: "error",
    message: "user is not running as root",
  },
  {
    name: "NumCPU",
    check: () => numCPUCheck(),
    breakIt: (h) => h.cpus = 1,
    level: "error",
    message: "the number of available CPUs 1 is less than the required 2",
  },
  {
    name: "Mem",
    check: () => memCheck(),
    breakIt: (h) => h.memMiB = 1024,
    level: "error",
    message: "the system RAM (1024 MB) is less than the minimum 1700 MB",
  },
  {
    name: "KubernetesVersion",
    check: () => kubernetesVersionCheck("v1.38.0"),
    healthy: () => {},
    breakIt: () => {},
    level: "warning",
    message: "Kubernetes version is greater than kubeadm version. Please consider to upgrade " +
      "kubeadm. Kubernetes version: 1.38.0. Kubeadm version: 1.37.x",
  },
  {
    name: "Firewalld",
    check: () => firewalldCheck([6443, 10250]),
    breakIt: (h) => h.init!.services.set("firewalld", { enabled: true, active: true }),
    level: "warning",
    message:
      "firewalld is active, please ensure ports [6443 10250] are open or your cluster may not function correctly",
  },
  {
    name: "Port-6443",
    check: () => portOpenCheck(6443),
    breakIt: (h) => h.busyPorts.add(6443),
    level: "error",
    message: "Port 6443 is in use",
  },
  {
    name: "Port-10250",
    check: () => portOpenCheck(10250),
    breakIt: (h) => h.busyPorts.add(10250),
    level: "error",
    message: "Port 10250 is in use",
  },
  {
    name: "FileAvailable--etc-kubernetes-manifests-kube-apiserver.yaml",
    check: () => fileAvailableCheck("/etc/kubernetes/manifests/kube-apiserver.yaml"),
    breakIt: (h) => h.files.put("/etc/kubernetes/manifests/kube-apiserver.yaml", "x"),
    level: "error",
    message: "/etc/kubernetes/manifests/kube-apiserver.yaml already exists",
  },
  {
    name: "FileAvailable--etc-kubernetes-kubelet.conf",
    check: () => fileAvailableCheck("/etc/kubernetes/kubelet.conf"),
    breakIt: (h) => h.files.put("/etc/kubernetes/kubelet.conf", "x"),
    level: "error",
    message: "/etc/kubernetes/kubelet.conf already exists",
  },
  {
    name: "FileAvailable--etc-kubernetes-pki-ca.crt",
    check: () => fileAvailableCheck("/etc/kubernetes/pki/ca.crt"),
    breakIt: (h) => h.files.put("/etc/kubernetes/pki/ca.crt", "x"),
    level: "error",
    message: "/etc/kubernetes/pki/ca.crt already exists",
  },
  {
    name: "HTTPProxy",
    check: () => httpProxyCheck("192.168.0.10"),
    breakIt: (h) => h.envVars.HTTPS_PROXY = "proxy.example:3128",
    level: "warning",
    message: 'Connection to "https://192.168.0.10" uses proxy "http://proxy.example:3128". ' +
      "If that is not intended, adjust your proxy settings",
  },
  {
    name: "HTTPProxyCIDR",
    check: () => httpProxyCIDRCheck("10.96.0.0/12"),
    breakIt: (h) => h.envVars.https_proxy = "http://proxy.example:3128",
    level: "warning",
    message: 'connection to "10.96.0.0/12" uses proxy "http://proxy.example:3128". This may ' +
      "lead to malfunctional cluster setup. Make sure that Pod and Services IP ranges " +
      "specified correctly as exceptions in proxy configuration",
  },
  {
    name: "CRI",
    check: () => containerRuntimeCheck(SOCKET),
    breakIt: (h) => h.runtime(SOCKET).runningError = new Error("runtime not ready"),
    level: "error",
    message: "container runtime is not running: runtime not ready",
  },
  {
    name: "ContainerRuntimeVersion",
    check: () => containerRuntimeVersionCheck(SOCKET),
    breakIt: (h) => h.runtime(SOCKET).config = undefined,
    level: "warning",
    message: RUNTIME_CONFIG_UNIMPLEMENTED,
  },
  {
    name: "Swap",
    check: swapCheck,
    breakIt: (h) =>
      h.setSystemFile(
        "/proc/swaps",
        "Filename\tType\tSize\tUsed\tPriority\n/swapfile file 1048572 0 -2\n",
      ),
    level: "warning",
    message: SWAP_WARNING,
  },
  {
    name: "FileExisting-losetup",
    check: () => inPathCheck("losetup", true),
    breakIt: (h) => h.executables.delete("losetup"),
    level: "error",
    message: "losetup not found in system path",
  },
  {
    name: "SystemVerification",
    check: () => systemVerificationCheck(),
    breakIt: (h) => h.setSystemFile("/sys/fs/cgroup/cgroup.controllers", "cpuset cpu memory\n"),
    level: "error",
    message: "missing required cgroups: pids",
  },
  {
    name: "Hostname",
    check: () => hostnameCheck("cp-1"),
    healthy: (h) => h.dns.set("cp-1", ["192.168.0.10"]),
    breakIt: (h) => h.dns.delete("cp-1"),
    level: "warning",
    message: 'hostname "cp-1" could not be reached',
  },
  {
    name: "KubeletVersion",
    check: () => kubeletVersionCheck("v1.37.2"),
    breakIt: (h) => h.kubeletOutput = "Kubernetes v1.33.9",
    level: "error",
    message: 'Kubelet version "1.33.9" is lower than kubeadm can support. Please upgrade kubelet',
  },
  {
    name: "Service-kubelet",
    check: () => serviceCheck("kubelet"),
    breakIt: (h) => h.init!.services.set("kubelet", { enabled: false, active: false }),
    level: "warning",
    message: "kubelet service is not enabled, please run 'systemctl enable kubelet.service'",
  },
  {
    name: "FileContent--proc-sys-net-ipv4-ip_forward",
    check: () => fileContentCheck(IPV4_FORWARD),
    breakIt: (h) => h.setSystemFile(IPV4_FORWARD, "0\n"),
    level: "error",
    message: "/proc/sys/net/ipv4/ip_forward contents are not set to 1",
  },
  {
    name: "FileContent--proc-sys-net-ipv6-conf-default-forwarding",
    check: () => fileContentCheck(IPV6_DEFAULT_FORWARDING),
    breakIt: (h) => h.systemFiles.delete(IPV6_DEFAULT_FORWARDING),
    level: "error",
    message: "/proc/sys/net/ipv6/conf/default/forwarding does not exist",
  },
  {
    name: "ExternalEtcdVersion",
    check: () => externalEtcdVersionCheck(ETCD),
    healthy: (h) => {
      h.files.put(ETCD.caFile, "CA").put(ETCD.certFile, "CERT").put(ETCD.keyFile, "KEY");
      h.http = () => ({ status: 200, statusText: "200 OK", body: '{"etcdserver":"3.6.5"}' });
    },
    breakIt: (h) =>
      h.http = () => ({ status: 200, statusText: "200 OK", body: '{"etcdserver":"3.4.13"}' }),
    level: "error",
    message:
      "this version of kubeadm only supports external etcd version >= 3.5.24-0. Current version: 3.4.13",
  },
  {
    name: "DirAvailable--var-lib-etcd",
    check: () => dirAvailableCheck("/var/lib/etcd"),
    breakIt: (h) => h.files.put("/var/lib/etcd/member/snap/db", "x"),
    level: "error",
    message: "/var/lib/etcd is not empty",
  },
  {
    name: "ExternalEtcdClientCertificates",
    check: () => fileExistingCheck(ETCD.caFile, "ExternalEtcdClientCertificates"),
    healthy: (h) => h.files.put(ETCD.caFile, "CA"),
    breakIt: (h) => h.files.files.delete(ETCD.caFile),
    level: "error",
    message: "/etc/etcd/ca.crt doesn't exist",
  },
  {
    name: "ImagePull",
    check: () =>
      imagePullCheck({
        socket: SOCKET,
        images: ["registry.k8s.io/pause:3.10.1"],
        sandboxImage: "registry.k8s.io/pause:3.10.1",
        policy: "IfNotPresent",
        serial: true,
      }),
    breakIt: (h) => h.runtime(SOCKET).connectError = new Error("dial unix: no such file"),
    level: "error",
    message: "could not connect to the container runtime: dial unix: no such file",
  },
];

function healthyHost(c: Case): FakeMachine {
  const h = new FakeMachine();
  c.healthy?.(h);
  return h;
}

function matches(text: string, expected: string | RegExp): boolean {
  return typeof expected === "string" ? text === expected : expected.test(text);
}

async function runOne(host: FakeMachine, check: Check, ignore: string[] = []) {
  const out = new CapturePrinter();
  const run = new PreflightRun(host, {
    command: "test",
    out,
    ignore: resolveIgnoreSet(ignore, [], [check.name]),
  });
  let error: unknown;
  try {
    await run.run([check]);
  } catch (e) {
    error = e;
  }
  return { out, error, result: run.results[0] };
}

for (const c of CASES) {
  Deno.test(`check ${c.name}`, async (t) => {
    assert.equal(c.check().name, c.name);
    assert.equal(c.check().severity, c.level === "warning" ? "warning" : c.check().severity);

    if (c.name !== "KubernetesVersion") {
      await t.step("passes on a healthy node", async () => {
        const outcome = await c.check().run(healthyHost(c));
        assert.deepEqual(outcome.errors, []);
        assert.deepEqual(outcome.warnings, []);
      });
    } else {
      await t.step("passes for the kubeadm release itself", async () => {
        const outcome = await kubernetesVersionCheck("v1.37.2").run(healthyHost(c));
        assert.deepEqual([...outcome.errors, ...outcome.warnings], []);
      });
    }

    await t.step(
      `reports the problem as ${c.level === "error" ? "an error" : "a warning"}`,
      async () => {
        const h = healthyHost(c);
        c.breakIt(h);
        const { out, error, result } = await runOne(h, c.check());
        const texts = result.messages.filter((m) => m.level === c.level).map((m) => m.text);
        assert.ok(
          texts.some((t) => matches(t, c.message)),
          `${c.name}: got ${JSON.stringify(result.messages)}`,
        );
        if (c.level === "error") {
          assert.ok(error instanceof PreflightError);
          assert.equal(error.exitCode, 2);
          assert.equal(result.status, "error");
          assert.ok(
            out.stderr.some((l) => l.startsWith(`\t[ERROR ${c.name}]: `)),
            out.stderr.join("\n"),
          );
        } else {
          assert.equal(error, undefined);
          assert.equal(result.status, "warning");
          assert.ok(out.stderr.some((l) => l.startsWith(`\t[WARNING ${c.name}]: `)));
        }
      },
    );

    for (const ignore of [c.name.toLowerCase(), "all"]) {
      await t.step(`is not fatal when ignored with ${JSON.stringify(ignore)}`, async () => {
        const h = healthyHost(c);
        c.breakIt(h);
        const { out, error, result } = await runOne(h, c.check(), [ignore]);
        assert.equal(error, undefined);
        assert.equal(result.status, c.level === "error" ? "ignored" : "warning");
        assert.ok(out.stderr.some((l) => l.startsWith(`\t[WARNING ${c.name}]: `)));
        assert.ok(!out.stderr.some((l) => l.includes("[ERROR")));
      });
    }
  });
}

Deno.test("IsPrivilegedUser only accepts uid 0", async () => {
  const h = new FakeMachine();
  for (const uid of [1, 65534]) {
    h.uidValue = uid;
    assert.deepEqual((await isPrivilegedUserCheck().run(h)).errors, [
      "user is not running as root",
    ]);
  }
});

Deno.test("Mem reports a host that cannot tell its memory", async () => {
  const h = new FakeMachine();
  h.memMiB = new Error("sysinfo: not permitted");
  assert.deepEqual((await memCheck().run(h)).errors, [
    "failed to get system info: sysinfo: not permitted",
  ]);
  h.memMiB = 1700;
  assert.deepEqual((await memCheck().run(h)).errors, []);
  h.memMiB = 1699;
  assert.equal((await memCheck().run(h)).errors.length, 1);
});

Deno.test("KubernetesVersion: boundaries and parse failures", async () => {
  const h = new FakeMachine();
  const outcome = async (v: string, kubeadm?: string) =>
    await kubernetesVersionCheck(v, kubeadm).run(h);
  assert.deepEqual((await outcome("v1.37.99")).warnings, []);
  assert.deepEqual((await outcome("v1.36.0")).warnings, []);
  // x.(y+1).0-0 is the first unsupported version: pre-releases of the next minor warn too.
  assert.equal((await outcome("v1.38.0-alpha.1")).warnings.length, 1);
  assert.deepEqual((await outcome("v2.0.0")).warnings, [
    "Kubernetes version is greater than kubeadm version. Please consider to upgrade kubeadm. " +
    "Kubernetes version: 2.0.0. Kubeadm version: 1.37.x",
  ]);
  assert.deepEqual((await outcome("not-a-version")).errors, [
    'couldn\'t parse Kubernetes version "not-a-version": could not parse "not-a-version" as version',
  ]);
  assert.deepEqual(await outcome("v9.0.0", "v0.0.0-master"), { warnings: [], errors: [] });
});

Deno.test("KubeletVersion: execution, parsing and skew errors", async () => {
  const h = new FakeMachine();
  const errors = async (output: string | Error, cp = "v1.37.2") => {
    h.kubeletOutput = output;
    return (await kubeletVersionCheck(cp).run(h)).errors;
  };
  // upstream v1.37: MinimumKubeletVersion 1.34.0, and no kubelet newer than the control plane.
  assert.deepEqual(await errors("Kubernetes v1.34.0"), []);
  assert.deepEqual(await errors("  Kubernetes v1.37.2+abc  \n"), []);
  assert.deepEqual(await errors("Kubernetes v1.33.9"), [
    'Kubelet version "1.33.9" is lower than kubeadm can support. Please upgrade kubelet',
  ]);
  assert.deepEqual(
    await errors(
      new Error("cannot execute 'kubelet --version': executable file not found in $PATH"),
    ),
    [
      "couldn't get kubelet version: cannot execute 'kubelet --version': executable file not found in $PATH",
    ],
  );
  assert.deepEqual(await errors("kubelet version 1.34"), [
    'couldn\'t get kubelet version: Unable to parse output from Kubelet: "kubelet version 1.34"',
  ]);
  // A v1.37 kubelet cannot host a v1.36 control plane.
  assert.deepEqual(await errors("Kubernetes v1.37.2", "v1.36.3"), [
    "the kubelet version is higher than the control plane version. This is not a supported " +
    'version skew and may lead to a malfunctional cluster. Kubelet version: "1.37.2" Control ' +
    'plane version: "1.36.3"',
  ]);
  assert.deepEqual(await errors("Kubernetes v1.36.3", "v1.36.3"), []);
  // join passes no control-plane version: only the minimum applies.
  h.kubeletOutput = "Kubernetes v1.38.1";
  assert.deepEqual((await kubeletVersionCheck().run(h)).errors, []);
});

Deno.test("Service-kubelet and Firewalld without an init system, or with a missing unit", async () => {
  const h = new FakeMachine();
  h.init = undefined;
  const none = "no supported init system detected, skipping checking for services";
  assert.deepEqual((await serviceCheck("kubelet").run(h)).warnings, [none]);
  assert.deepEqual((await firewalldCheck([6443, 10250]).run(h)).warnings, [none]);
  const h2 = new FakeMachine();
  h2.init!.services.delete("kubelet");
  assert.deepEqual((await serviceCheck("kubelet").run(h2)).warnings, [
    "kubelet service does not exist",
  ]);
  // an inactive firewalld is fine; checkIfActive turns an inactive service into an error.
  h2.init!.services.set("firewalld", { enabled: true, active: false });
  assert.deepEqual(await firewalldCheck([6443, 10250]).run(h2), { warnings: [], errors: [] });
  h2.init!.services.set("docker", { enabled: true, active: false });
  assert.deepEqual((await serviceCheck("docker", true).run(h2)).errors, [
    "docker service is not active, please run 'systemctl start docker.service'",
  ]);
  // v1.35+: the service name as is (upstream dropped strings.Title).
  assert.equal(serviceCheck("docker").name, "Service-docker");
});

Deno.test("Hostname warns about invalid names and lookup errors, in upstream's order", async () => {
  const h = new FakeMachine();
  const outcome = await hostnameCheck("Bad_Name_").run(h);
  assert.deepEqual(outcome.warnings, [
    'invalid node name format "Bad_Name_": name part must consist of alphanumeric characters, ' +
    "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  " +
    "or 'my.name',  or '123-abc', regex used for validation is " +
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    'hostname "Bad_Name_" could not be reached',
    'hostname "Bad_Name_": lookup Bad_Name_ on 10.0.0.53:53: no such host',
  ]);
  h.dns.set("node-a", ["10.0.0.1"]);
  assert.deepEqual(await hostnameCheck("node-a").run(h), { warnings: [], errors: [] });
});

Deno.test("HTTPProxy: IPv6 hosts get a dummy port; NO_PROXY and loopback bypass the proxy", async () => {
  const h = new FakeMachine();
  h.envVars.HTTPS_PROXY = "http://proxy:3128";
  assert.deepEqual((await httpProxyCheck("fd00::10").run(h)).warnings, [
    'Connection to "https://[fd00::10]:1234" uses proxy "http://proxy:3128". If that is not ' +
    "intended, adjust your proxy settings",
  ]);
  assert.deepEqual((await httpProxyCheck("127.0.0.1").run(h)).warnings, []);
  h.envVars.NO_PROXY = "192.168.0.0/16";
  assert.deepEqual((await httpProxyCheck("192.168.0.10").run(h)).warnings, []);
  // only HTTPS_PROXY matters for https URLs
  const h2 = new FakeMachine();
  h2.envVars.HTTP_PROXY = "http://proxy:3128";
  assert.deepEqual((await httpProxyCheck("192.168.0.10").run(h2)).warnings, []);
});

Deno.test("HTTPProxyCIDR: empty passes, bad CIDR fails, uses the first address", async () => {
  const h = new FakeMachine();
  h.envVars.HTTPS_PROXY = "http://proxy:3128";
  assert.deepEqual(await httpProxyCIDRCheck("").run(h), { warnings: [], errors: [] });
  assert.deepEqual((await httpProxyCIDRCheck("10.96.0.0/33").run(h)).errors, [
    'error parsing CIDR "10.96.0.0/33": invalid CIDR address: 10.96.0.0/33',
  ]);
  h.envVars.NO_PROXY = "10.96.0.1";
  assert.deepEqual((await httpProxyCIDRCheck("10.96.0.0/12").run(h)).warnings, []);
  h.envVars.NO_PROXY = "10.96.0.2";
  assert.equal((await httpProxyCIDRCheck("10.96.0.0/12").run(h)).warnings.length, 1);
});

Deno.test("CRI and ContainerRuntimeVersion: a runtime that does not answer is an error (v1.35+)", async () => {
  const h = new FakeMachine();
  h.runtime(SOCKET).connectError = new Error(
    "dial unix /run/x.sock: connect: no such file or directory",
  );
  const refused = {
    warnings: [],
    errors: [
      "could not connect to the container runtime: dial unix /run/x.sock: connect: no such file or directory",
    ],
  };
  assert.deepEqual(await containerRuntimeCheck(SOCKET).run(h), refused);
  assert.deepEqual(await containerRuntimeVersionCheck(SOCKET).run(h), refused);
});

Deno.test("upgradeChecks: SystemVerification at the kubelet's next minor, then ContainerRuntimeVersion on the node's socket", async () => {
  const checks = upgradeChecks(SOCKET);
  assert.deepEqual(checks.map((c) => c.name), ["SystemVerification", "ContainerRuntimeVersion"]);
  const h = new FakeMachine();
  h.runtime(SOCKET).connectError = new Error("dial unix /run/x.sock: connect: refused");
  assert.deepEqual((await checks[1].run(h)).errors, [
    "could not connect to the container runtime: dial unix /run/x.sock: connect: refused",
  ]);
});

Deno.test("ContainerRuntimeVersion: RuntimeConfig unimplemented warns (v1.37.2), any other failure errs", async () => {
  const h = new FakeMachine();
  assert.deepEqual(await containerRuntimeVersionCheck(SOCKET).run(h), {
    warnings: [],
    errors: [],
  });
  h.runtime(SOCKET).config = {};
  assert.deepEqual(await containerRuntimeVersionCheck(SOCKET).run(h), {
    warnings: [],
    errors: [],
  });
  h.runtime(SOCKET).config = undefined;
  assert.deepEqual((await containerRuntimeVersionCheck(SOCKET).run(h)).warnings, [
    "You must update your container runtime to a version that supports the CRI method RuntimeConfig. Falling back to using cgroupDriver from kubelet config will be removed in 1.38. For more information, see https://git.k8s.io/enhancements/keps/sig-node/4033-group-driver-detection-over-cri",
  ]);
  h.runtime(SOCKET).configError = new Error(
    "failed to call RuntimeConfig gRPC method: rpc error: code = Internal desc = boom",
  );
  assert.deepEqual((await containerRuntimeVersionCheck(SOCKET).run(h)).errors, [
    "could not check if the runtime config is available: failed to call RuntimeConfig gRPC method: rpc error: code = Internal desc = boom",
  ]);
});

Deno.test("ImagePull: policies, present images, pull errors, sandbox image", async () => {
  const images = ["a:1", "b:1", "c:1"];
  const check = (policy: string, serial = true) =>
    imagePullCheck({ socket: SOCKET, images, sandboxImage: "pause:3.10.1", policy, serial });
  const h = new FakeMachine();
  const rt = h.runtime(SOCKET);
  rt.images.add("b:1");
  rt.pullErrors.set("c:1", "manifest unknown");
  rt.sandbox = "pause:3.9";
  const logged: string[] = [];
  const log = (level: number, source: string, m: string) => logged.push(`${level} ${source} ${m}`);
  const outcome = await check("IfNotPresent").run(h, log);
  assert.deepEqual(rt.pulled, ["a:1"]);
  // Upstream's -v=1 lines of a serial pull.
  assert.deepEqual(logged.splice(0), [
    "1 container_runtime.ts using image pull policy: IfNotPresent",
    "1 container_runtime.ts pulling: a:1",
    "1 container_runtime.ts image exists: b:1",
    "1 container_runtime.ts pulling: c:1",
  ]);
  assert.deepEqual(outcome.errors, [
    // Upstream names the image twice: its runtime's error, wrapped by the check.
    "failed to pull image c:1: failed to pull image c:1: manifest unknown",
  ]);
  assert.deepEqual(outcome.warnings, [
    'detected that the sandbox image "pause:3.9" of the container runtime is inconsistent with ' +
    'that used by kubeadm. It is recommended to use "pause:3.10.1" as the CRI sandbox image.',
  ]);
  rt.pulled.length = 0;
  await check("Always", false).run(h, log);
  assert.deepEqual(rt.pulled.sort(), ["a:1", "b:1"]);
  assert.deepEqual(logged.splice(0, 2), [
    "1 container_runtime.ts using image pull policy: Always",
    "1 container_runtime.ts pulling all images in parallel",
  ]);
  assert.deepEqual(logged.splice(0).sort(), [
    "1 container_runtime.ts done pulling: a:1",
    "1 container_runtime.ts done pulling: b:1",
  ]);
  rt.pulled.length = 0;
  assert.deepEqual(await check("Never").run(h, log), { warnings: [], errors: [] });
  assert.deepEqual(logged, [
    "1 container_runtime.ts skipping the pull of all images due to policy: Never",
  ]);
  assert.deepEqual(rt.pulled, []);
  assert.deepEqual((await check("Sometimes").run(h)).errors, [
    'unsupported pull policy "Sometimes"',
  ]);
});

Deno.test("ExternalEtcdVersion: TLS material, retries on 5xx and connection errors", async () => {
  const h = new FakeMachine();
  h.files.put(ETCD.caFile, "CA").put(ETCD.certFile, "CERT").put(ETCD.keyFile, "KEY");
  let calls = 0;
  h.http = () => {
    calls++;
    return calls === 1
      ? new Error("dial tcp 10.0.0.5:2379: connect: connection refused")
      : calls === 2
      ? { status: 503, statusText: "503 Service Unavailable", body: "" }
      : { status: 200, statusText: "200 OK", body: '{"etcdserver":"3.6.5","etcdcluster":"3.6.0"}' };
  };
  assert.deepEqual(await externalEtcdVersionCheck(ETCD).run(h), { warnings: [], errors: [] });
  assert.equal(calls, 3);
  assert.deepEqual(h.sleeps, [5000, 5000]);
  assert.equal(h.httpCalls[0].url, "https://10.0.0.5:2379/version");
  assert.deepEqual(h.httpCalls[0].tls, { caPem: "CA", certPem: "CERT", keyPem: "KEY" });

  const down = new FakeMachine();
  down.files.put(ETCD.caFile, "CA").put(ETCD.certFile, "CERT").put(ETCD.keyFile, "KEY");
  down.http = () => new Error("connection refused");
  assert.deepEqual((await externalEtcdVersionCheck(ETCD).run(down)).errors, [
    'Get "https://10.0.0.5:2379/version": connection refused',
  ]);
  assert.equal(down.httpCalls.length, 4);

  const noCA = new FakeMachine();
  assert.deepEqual((await externalEtcdVersionCheck(ETCD).run(noCA)).errors, [
    "couldn't load external etcd's server certificate /etc/etcd/ca.crt: open /etc/etcd/ca.crt: no such file or directory",
  ]);
  assert.deepEqual(await externalEtcdVersionCheck(undefined).run(noCA), {
    warnings: [],
    errors: [],
  });

  // v1.35+: the version is read from httpEndpoints, which may differ from the gRPC endpoints.
  const split = new FakeMachine();
  split.files.put(ETCD.caFile, "CA").put(ETCD.certFile, "CERT").put(ETCD.keyFile, "KEY");
  split.http = () => ({ status: 200, statusText: "200 OK", body: '{"etcdserver":"3.5.23"}' });
  assert.deepEqual(
    (await externalEtcdVersionCheck({ ...ETCD, httpEndpoints: ["http://10.0.0.6:2381"] }).run(
      split,
    ))
      .errors,
    [
      "this version of kubeadm only supports external etcd version >= 3.5.24-0. Current version: 3.5.23",
    ],
  );
  assert.deepEqual(split.httpCalls.map((c) => c.url), ["http://10.0.0.6:2381/version"]);
});

Deno.test("DirAvailable: missing and empty directories pass; a file in its place fails", async () => {
  const h = new FakeMachine();
  const check = dirAvailableCheck("/var/lib/etcd");
  assert.deepEqual((await check.run(h)).errors, []);
  h.files.mkdir("/var/lib/etcd");
  assert.deepEqual((await check.run(h)).errors, []);
  const h2 = new FakeMachine();
  h2.files.put("/var/lib/etcd", "not a directory");
  assert.deepEqual((await check.run(h2)).errors, ["/var/lib/etcd is not empty"]);
  assert.equal(dirAvailableCheck("/data/etcd").name, "DirAvailable--data-etcd");
});

Deno.test("FileExisting warns instead of failing for optional tools, with a suggestion", async () => {
  const h = new FakeMachine();
  assert.deepEqual(await inPathCheck("socat", false, "install socat").run(h), {
    warnings: ["socat not found in system path\nSuggestion: install socat"],
    errors: [],
  });
});
