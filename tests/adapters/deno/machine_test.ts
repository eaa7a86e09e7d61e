// The Deno preflight host on the real machine: its facts match what the OS tools say, a port
// the test holds is reported in use, and init's preflight runs against it under --rootfs.
import assert from "node:assert/strict";
import {
  countCPUList,
  criEndpointInRoot,
  DenoMachine,
  hostsFileAddresses,
  unescapeMountPath,
} from "../../../adapters/deno/machine.ts";
import { CriSocketRuntime } from "../../../adapters/deno/container_runtime.ts";
import { criSocketPath } from "../../../adapters/deno/cri/endpoint.ts";
import { lookPath } from "../../../adapters/deno/host/exec.ts";
import { runInitPreflight } from "../../../core/preflight/init.ts";
import type { PreflightReport } from "../../../core/preflight/runner.ts";
import { initDataFixture } from "../../support/init_data_fixture.ts";
import { runTool } from "../../support/openssl.ts";

async function sh(cmd: string, ...args: string[]): Promise<string> {
  const r = await runTool(cmd, args);
  assert.equal(r.code, 0, `${cmd}: ${r.stderr}`);
  return r.stdout.trim();
}

function heldPort(): { port: number; close(): void } {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  return { port: (l.addr as Deno.NetAddr).port, close: () => l.close() };
}

Deno.test("host facts match the OS tools", async () => {
  const host = new DenoMachine();
  const nproc = Number(await sh("nproc"));
  assert.equal(await host.numCPU(), nproc);
  assert.equal(navigator.hardwareConcurrency, nproc);
  assert.equal(await host.uid(), Number(await sh("id", "-u")));
  assert.equal(await host.kernelRelease(), await sh("uname", "-r"));
  assert.equal(await host.osName(), await sh("uname", "-s"));
  const memKiB = Number(
    (await Deno.readTextFile("/proc/meminfo")).match(/^MemTotal:\s+(\d+) kB$/m)![1],
  );
  assert.equal(await host.memTotalMiB(), Math.floor(memKiB / 1024));
  const fsType = await sh("stat", "-fc", "%T", "/sys/fs/cgroup");
  assert.equal(await host.cgroupVersion(), fsType === "cgroup2fs" ? 2 : 1);
  assert.deepEqual(await host.readSystemFile("/proc/does-not-exist"), undefined);
  assert.ok((await host.readSystemFile("/proc/sys/net/ipv4/ip_forward"))!.length > 0);
});

Deno.test("a port held by the test is in use; once closed it is free", async () => {
  const host = new DenoMachine();
  const held = heldPort();
  try {
    assert.equal(await host.isPortFree(held.port), false);
  } finally {
    held.close();
  }
  assert.equal(await host.isPortFree(held.port), true);
});

Deno.test("init preflight with the Deno host under --rootfs (dry-run, JSON)", async () => {
  const root = await Deno.makeTempDir({ prefix: "kubeadm-ts-preflight-" });
  const held = heldPort();
  try {
    await Deno.mkdir(`${root}/etc/kubernetes/manifests`, { recursive: true });
    await Deno.writeTextFile(`${root}/etc/kubernetes/manifests/kube-scheduler.yaml`, "x");
    const { data, out } = initDataFixture({ dryRun: true });
    data.cfg.init.localAPIEndpoint.bindPort = held.port;
    data.cfg.init.nodeRegistration.name = "localhost";
    const report = await runInitPreflight(data, new DenoMachine({ root }), {
      ignore: [],
      output: "json",
    });
    assert.equal(out.lines.length, 1);
    assert.deepEqual(JSON.parse(out.lines[0]), report);
    const byName = (n: string) => report.checks.find((c) => c.name === n)!;
    assert.deepEqual(byName(`Port-${held.port}`), {
      name: `Port-${held.port}`,
      severity: "error",
      status: "error",
      messages: [{ level: "error", text: `Port ${held.port} is in use` }],
    });
    assert.equal(
      byName("FileAvailable--etc-kubernetes-manifests-kube-scheduler.yaml").status,
      "error",
    );
    assert.equal(
      byName("FileAvailable--etc-kubernetes-manifests-kube-apiserver.yaml").status,
      "pass",
    );
    assert.equal(byName("DirAvailable--var-lib-etcd").status, "pass");
    const cpus = Number(await sh("nproc"));
    assert.deepEqual(
      byName("NumCPU").messages,
      cpus < 2
        ? [{
          level: "error",
          text: `the number of available CPUs ${cpus} is less than the required 2`,
        }]
        : [],
    );
    assert.equal(
      byName("IsPrivilegedUser").status,
      (await sh("id", "-u")) === "0" ? "pass" : "error",
    );
    assert.equal(byName("Hostname").status, "pass");
    assert.equal(report.failed, true);
  } finally {
    held.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("init preflight text output for a held port, with the fatal block (not dry-run)", async () => {
  const root = await Deno.makeTempDir({ prefix: "kubeadm-ts-preflight-" });
  const held = heldPort();
  try {
    const { data, out } = initDataFixture();
    data.cfg.init.localAPIEndpoint.bindPort = held.port;
    data.cfg.init.nodeRegistration.name = "localhost";
    let report: PreflightReport | undefined;
    await assert.rejects(async () => {
      report = await runInitPreflight(data, new DenoMachine({ root }), { ignore: [] });
    }, /preflight checks failed/);
    assert.equal(report, undefined);
    assert.ok(out.warnings.includes("[preflight] Some fatal errors occurred:"));
    assert.ok(out.warnings.includes(`\t[ERROR Port-${held.port}]: Port ${held.port} is in use`));
  } finally {
    held.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("lookPath, kubelet --version, hosts file and DNS", async () => {
  const host = new DenoMachine();
  assert.equal(await lookPath("sh"), await sh("sh", "-c", "command -v sh"));
  assert.equal(await host.lookPath("definitely-not-a-command-xyz"), undefined);
  assert.deepEqual(
    hostsFileAddresses("127.0.0.1 localhost # x\n::1 ip6-localhost localhost\n", "LOCALHOST"),
    [
      "127.0.0.1",
      "::1",
    ],
  );
  assert.ok((await host.lookupHost("localhost")).some((a) => a === "127.0.0.1" || a === "::1"));

  const bin = await Deno.makeTempDir({ prefix: "kubeadm-ts-bin-" });
  const path = Deno.env.get("PATH") ?? "";
  try {
    // One machine per kubelet below: a machine runs `kubelet --version` once and keeps its answer.
    Deno.env.set("PATH", bin);
    await assert.rejects(
      () => new DenoMachine().kubeletVersionOutput(),
      /^Error: cannot execute 'kubelet --version': executable file not found in \$PATH$/,
    );
    await Deno.writeTextFile(
      `${bin}/kubelet`,
      `#!/bin/sh\necho started >>${bin}/starts\necho 'Kubernetes v1.33.2'\n`,
    );
    await Deno.chmod(`${bin}/kubelet`, 0o755);
    Deno.env.set("PATH", `${bin}:${path}`);
    const machine = new DenoMachine();
    const [a, b] = await Promise.all([
      machine.kubeletVersionOutput(),
      machine.kubeletVersionOutput(),
    ]);
    assert.equal(a.trim(), "Kubernetes v1.33.2");
    assert.equal(b, a);
    assert.equal(await machine.kubeletVersionOutput(), a);
    assert.equal(await Deno.readTextFile(`${bin}/starts`), "started\n");
    await Deno.writeTextFile(`${bin}/kubelet`, "#!/bin/sh\nexit 3\n");
    await assert.rejects(() => new DenoMachine().kubeletVersionOutput(), /: exit status 3$/);
  } finally {
    Deno.env.set("PATH", path);
    await Deno.remove(bin, { recursive: true });
  }
});

Deno.test("a name server that refuses fails a lookup at once, as Go's resolver does", async () => {
  // A network namespace of its own (only loopback, where nothing serves DNS) and a mount
  // namespace whose /etc/resolv.conf names it: the lookup fails on the refusal, not on a
  // timeout (Deno.resolveDns waited 15 s there).
  const dir = await Deno.makeTempDir({ prefix: "kts-dns-refused-" });
  try {
    await Deno.writeTextFile(`${dir}/resolv.conf`, "nameserver 127.0.0.1\n");
    await Deno.writeTextFile(
      `${dir}/lookup.ts`,
      `import { DenoMachine } from ${
        JSON.stringify(new URL("../../../adapters/deno/machine.ts", import.meta.url).href)
      };
try { await new DenoMachine().lookupHost("kts-unresolvable-name"); console.log("resolved"); }
catch (e) { console.log(String(e)); }`,
    );
    const script = [
      "set -e",
      "ip link set lo up",
      `mount --bind "$1/resolv.conf" /etc/resolv.conf`,
      `exec "$2" run --allow-all --no-prompt --config "$3" "$1/lookup.ts"`,
    ].join("\n");
    const r = await runTool("unshare", [
      "--net",
      "--mount",
      "--",
      "sh",
      "-c",
      script,
      "sh",
      dir,
      Deno.execPath(),
      new URL("../../../deno.json", import.meta.url).pathname,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout.trim(),
      "Error: lookup kts-unresolvable-name on 127.0.0.1:53: temporary failure in name resolution",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("CRI socket: answering and missing sockets", async () => {
  assert.equal(
    criSocketPath("unix:///run/containerd/containerd.sock"),
    "/run/containerd/containerd.sock",
  );
  assert.equal(criSocketPath("/run/crio/crio.sock"), "/run/crio/crio.sock");
  assert.throws(
    () => criSocketPath("tcp://127.0.0.1:1234"),
    /^Error: only support unix socket endpoint$/,
  );
  assert.throws(() => criSocketPath("npipe://./pipe/x"), /protocol "npipe" not supported/);
  const dir = await Deno.makeTempDir({ prefix: "kubeadm-ts-cri-" });
  const listener = Deno.listen({ transport: "unix", path: `${dir}/cri.sock` });
  try {
    await new CriSocketRuntime(`unix://${dir}/cri.sock`).connect();
    await assert.rejects(
      () => new CriSocketRuntime(`unix://${dir}/missing.sock`).connect(),
      new RegExp(`^Error: dial unix ${dir}/missing.sock: connect: no such file or directory$`),
    );
  } finally {
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("helpers: CPU lists and mount-path escapes", () => {
  assert.equal(countCPUList("0-3,8,10-11"), 7);
  assert.equal(countCPUList("0"), 1);
  assert.equal(unescapeMountPath("/a\\040b\\011c"), "/a b\tc");
});

Deno.test("under a --rootfs the CRI socket is the root's (links resolved inside it), never the running machine's", async () => {
  const root = await Deno.makeTempDir();
  try {
    const sock = "unix:///run/containerd/containerd.sock";
    assert.equal(criEndpointInRoot("/", sock), sock);
    assert.equal(criEndpointInRoot(root, sock), `unix://${root}/run/containerd/containerd.sock`);
    assert.equal(
      criEndpointInRoot(`${root}/`, "/run/crio/crio.sock"),
      `unix://${root}/run/crio/crio.sock`,
    );
    // /var/run -> /run (absolute, as on most hosts): followed inside the root.
    await Deno.mkdir(`${root}/var`, { recursive: true });
    await Deno.symlink("/run", `${root}/var/run`);
    assert.equal(
      criEndpointInRoot(root, "unix:///var/run/containerd/containerd.sock"),
      `unix://${root}/run/containerd/containerd.sock`,
    );
    // Not a unix socket: left to the CRI client's own error.
    assert.equal(criEndpointInRoot(root, "tcp://127.0.0.1:1"), "tcp://127.0.0.1:1");
    // The machine dials it there: nothing listens inside the root, so the dial error names it.
    const m = new DenoMachine({ root });
    await assert.rejects(
      () => m.containerRuntime(sock).connect(),
      (e: Error) => e.message.includes(`${root}/run/containerd/containerd.sock`),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
