// SystemVerification: kernel release, kernel config, OS and cgroups, with upstream's report.
import assert from "node:assert/strict";
import { systemVerificationCheck } from "../../../core/preflight/checks/system_verification.ts";
import { CGROUP_V1_DEPRECATED, parseProcCgroups } from "../../../core/preflight/system/cgroups.ts";
import { parseKernelConfig } from "../../../core/preflight/system/kernel.ts";
import { stripColours } from "../../../core/preflight/system/report.ts";
import { completeKernelConfig, FakeMachine } from "../../support/fake_machine.ts";

async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([new TextEncoder().encode(text)]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test("a supported node passes silently and prints no report", async () => {
  const outcome = await systemVerificationCheck().run(new FakeMachine());
  assert.deepEqual(outcome, { warnings: [], errors: [] });
});

Deno.test("an old kernel release is a warning with upstream's note", async () => {
  const h = new FakeMachine();
  h.kernel = "4.19.0-21-amd64";
  h.setSystemFile("/boot/config-4.19.0-21-amd64", completeKernelConfig());
  const outcome = await systemVerificationCheck().run(h);
  assert.deepEqual(outcome.errors, []);
  assert.deepEqual(outcome.warnings, [
    "kernel release 4.19.0-21-amd64 is unsupported. Supported LTS versions from the 5.x series " +
    "are 5.4, 5.10 and 5.15. Any 6.x version is also supported. For cgroups v2 support, the " +
    "recommended version is 5.10 or newer",
  ]);
  for (const ok of ["5.4.0-150-generic", "5.10.0-30", "5.15.0-1", "6.1.0", "10.0.1"]) {
    h.kernel = ok;
    h.setSystemFile(`/boot/config-${ok}`, completeKernelConfig());
    assert.deepEqual((await systemVerificationCheck().run(h)).warnings, [], ok);
  }
  h.kernel = "5.12.3";
  h.setSystemFile("/boot/config-5.12.3", completeKernelConfig());
  assert.equal((await systemVerificationCheck().run(h)).warnings.length, 1);
});

Deno.test("missing kernel options fail and the coloured report is printed", async () => {
  const h = new FakeMachine();
  h.cgroup = 1;
  h.setSystemFile(
    "/boot/config-6.8.0-45-generic",
    "CONFIG_NAMESPACES=y\nCONFIG_NET_NS=m\nCONFIG_PID_NS=n\n# CONFIG_FOO is not set\n",
  );
  h.kubeletOutput = "Kubernetes v1.34.9"; // cgroup v1 is only a warning for kubelets < 1.35
  const outcome = await systemVerificationCheck().run(h);
  // system-validators v1.12.1: the cgroup v1 options follow the common required ones.
  assert.deepEqual(outcome.errors, [
    "unexpected kernel config: CONFIG_PID_NS CONFIG_IPC_NS CONFIG_UTS_NS " +
    "CONFIG_CPUSETS CONFIG_MEMCG CONFIG_INET CONFIG_EXT4_FS CONFIG_PROC_FS " +
    "CONFIG_IP_NF_TARGET_REDIRECT CONFIG_NETFILTER_XT_MATCH_COMMENT CONFIG_FAIR_GROUP_SCHED " +
    "CONFIG_CGROUPS CONFIG_CGROUP_CPUACCT CONFIG_CGROUP_DEVICE CONFIG_CGROUP_FREEZER " +
    "CONFIG_CGROUP_PIDS CONFIG_CGROUP_SCHED",
  ]);
  assert.deepEqual(outcome.warnings, [CGROUP_V1_DEPRECATED]);
  const lines = outcome.stdout ?? [];
  assert.equal(
    lines[0],
    "[preflight] The system verification failed. Printing the output from the verification:",
  );
  assert.equal(lines[1], "\x1b[0;37mKERNEL_VERSION\x1b[0m: \x1b[0;32m6.8.0-45-generic\x1b[0m");
  const plain = lines.slice(1).map(stripColours);
  assert.deepEqual(plain.slice(0, 4), [
    "KERNEL_VERSION: 6.8.0-45-generic",
    "CONFIG_NAMESPACES: enabled",
    "CONFIG_NET_NS: enabled (as module)",
    "CONFIG_PID_NS: disabled",
  ]);
  assert.ok(plain.includes("CONFIG_OVERLAYFS_FS: not set - Required for overlayfs."));
  assert.ok(plain.includes("CONFIG_CGROUP_FREEZER: not set - Required for freezer controller."));
  assert.ok(plain.includes("OS: Linux"));
  assert.ok(plain.includes("CGROUPS_BLKIO: enabled"));
  // cgroup v2 options are not checked on a v1 host; CGROUP_HUGETLB on neither.
  assert.ok(!plain.some((l) => l.startsWith("CONFIG_CGROUP_BPF")));
  assert.ok(!plain.some((l) => l.startsWith("CONFIG_CGROUP_HUGETLB")));
  assert.ok(lines.find((l) => l.includes("CONFIG_PID_NS"))!.endsWith("\x1b[0;31mdisabled\x1b[0m"));
  assert.ok(
    lines.find((l) => l.includes("AUFS"))!.endsWith(
      "\x1b[0;33mnot set - Required for aufs.\x1b[0m",
    ),
  );
});

Deno.test("cgroup v2 hosts also need the cgroup kernel options", async () => {
  const h = new FakeMachine();
  const k = completeKernelConfig().replace("CONFIG_CGROUP_BPF=y\n", "");
  h.setSystemFile("/boot/config-6.8.0-45-generic", k);
  const outcome = await systemVerificationCheck().run(h);
  assert.deepEqual(outcome.errors, ["unexpected kernel config: CONFIG_CGROUP_BPF"]);
});

Deno.test("the kernel config is read from /proc/config.gz first", async () => {
  const h = new FakeMachine();
  h.setSystemFile("/proc/config.gz", await gzip("CONFIG_NAMESPACES=y\n"));
  const outcome = await systemVerificationCheck().run(h);
  assert.match(outcome.errors[0], /^unexpected kernel config: CONFIG_NET_NS /);
});

Deno.test("no kernel config anywhere is an error naming the paths", async () => {
  const h = new FakeMachine();
  h.systemFiles.delete("/boot/config-6.8.0-45-generic");
  const outcome = await systemVerificationCheck().run(h);
  assert.equal(outcome.errors.length, 1);
  assert.match(
    outcome.errors[0],
    /^failed to parse kernel config: no config path in \[\/proc\/config\.gz \/boot\/config-6\.8\.0-45-generic .*\/lib\/modules\/6\.8\.0-45-generic\/build\/\.config\] is available$/,
  );
});

Deno.test("a non-Linux OS and an unreadable kernel release are errors", async () => {
  const h = new FakeMachine();
  h.os = "Darwin";
  assert.ok(
    (await systemVerificationCheck().run(h)).errors.includes(
      "unsupported operating system: Darwin",
    ),
  );
  const h2 = new FakeMachine();
  h2.kernel = new Error("uname failed");
  assert.ok(
    (await systemVerificationCheck().run(h2)).errors.includes(
      "failed to get kernel release: uname failed",
    ),
  );
});

Deno.test("cgroups: required and optional controllers, v1 and v2", async () => {
  const h = new FakeMachine();
  h.setSystemFile("/sys/fs/cgroup/cgroup.controllers", "cpuset cpu memory pids\n");
  const v2 = await systemVerificationCheck().run(h);
  assert.deepEqual(v2.errors, []);
  assert.deepEqual(v2.warnings, ["missing optional cgroups: hugetlb io"]);

  const v1 = new FakeMachine();
  v1.cgroup = 1;
  v1.setSystemFile(
    "/proc/cgroups",
    "#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpu\t1\t1\t1\nmemory\t2\t1\t0\n",
  );
  v1.kubeletOutput = "Kubernetes v1.34.9";
  const out = await systemVerificationCheck().run(v1);
  assert.deepEqual(out.errors, [
    "missing required cgroups: cpuacct cpuset devices freezer memory pids",
  ]);
  assert.deepEqual(out.warnings, [
    CGROUP_V1_DEPRECATED,
    "missing optional cgroups: hugetlb blkio",
  ]);

  const broken = new FakeMachine();
  broken.cgroup = new Error("no such file or directory");
  assert.ok(
    (await systemVerificationCheck().run(broken)).errors.includes(
      "cannot statfs the cgroupv2 root: no such file or directory",
    ),
  );
});

Deno.test("parsers: /proc/cgroups and kernel config lines", () => {
  assert.deepEqual(
    parseProcCgroups(
      "#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpu\t1\t4\t1\nnet_cls\t0\t1\t0\n",
    ),
    ["cpu"],
  );
  assert.deepEqual(
    [...parseKernelConfig('CONFIG_A=y\n  CONFIG_B=m \nCONFIG_C=n\nCONFIG_D="x"\nFOO=y\n')],
    [["CONFIG_A", "y"], ["CONFIG_B", "m"], ["CONFIG_C", "n"]],
  );
});

Deno.test("SystemVerification runs kubelet --version first; cgroup v1 is an error for kubelet v1.35+", async () => {
  const none = new FakeMachine();
  none.kubeletOutput = new Error(
    "cannot execute 'kubelet --version': executable file not found in $PATH",
  );
  assert.deepEqual(await systemVerificationCheck().run(none), {
    warnings: [],
    errors: [
      "couldn't get kubelet version: cannot execute 'kubelet --version': executable file not found in $PATH",
    ],
  });

  const v1 = new FakeMachine();
  v1.cgroup = 1;
  v1.setSystemFile(
    "/proc/cgroups",
    "#subsys_name\thierarchy\tnum_cgroups\tenabled\n" +
      ["cpu", "cpuacct", "cpuset", "devices", "freezer", "memory", "pids", "hugetlb", "blkio"]
        .map((c, i) => `${c}\t${i + 1}\t1\t1`).join("\n") +
      "\n",
  );
  // The default fake kubelet is v1.37.2.
  const strict = await systemVerificationCheck().run(v1);
  assert.deepEqual(strict.errors, [CGROUP_V1_DEPRECATED]);
  assert.equal(
    strict.stdout?.[0],
    "[preflight] The system verification failed. Printing the output from the verification:",
  );
  v1.kubeletOutput = "Kubernetes v1.34.9";
  assert.deepEqual(await systemVerificationCheck().run(v1), {
    warnings: [CGROUP_V1_DEPRECATED],
    errors: [],
  });
  // upgrade judges the kubelet's next minor: v1.34 → 1.35, cgroup v1 refused.
  assert.deepEqual(
    (await systemVerificationCheck({ isUpgrade: true }).run(v1)).errors,
    [CGROUP_V1_DEPRECATED],
  );
});
