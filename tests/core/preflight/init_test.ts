// runInitPreflight: the init preflight phase against a fake host.
import assert from "node:assert/strict";
import { runInitPreflight } from "../../../core/preflight/init.ts";
import { PreflightError, ValidationError } from "../../../core/errors.ts";
import { initDataFixture } from "../../support/init_data_fixture.ts";
import { FakeMachine } from "../../support/fake_machine.ts";

function healthy(): FakeMachine {
  const h = new FakeMachine();
  h.dns.set("cp-1", ["192.168.0.10"]);
  return h;
}

Deno.test("a healthy node passes and pulls the control-plane images", async () => {
  const { data, out } = initDataFixture();
  const h = healthy();
  const report = await runInitPreflight(data, h, { ignore: [] });
  assert.deepEqual(out.lines, [
    "[preflight] Running pre-flight checks",
    "[preflight] Pulling images required for setting up a Kubernetes cluster",
    "[preflight] This might take a minute or two, depending on the speed of your internet connection",
    "[preflight] You can also perform this action beforehand using 'kubeadm config images pull'",
  ]);
  assert.deepEqual(out.warnings, []);
  assert.equal(report.failed, false);
  assert.equal(report.checks.length, 1 + 28 + 1);
  assert.equal(h.runtime(data.cfg.init.nodeRegistration.criSocket).pulled.length, 7);
});

Deno.test("failures abort with upstream's block; the config's ignore list applies", async () => {
  const { data, out } = initDataFixture();
  const h = healthy();
  h.busyPorts.add(6443).add(10250);
  h.setSystemFile("/proc/sys/net/ipv4/ip_forward", "0");
  data.cfg.init.nodeRegistration.ignorePreflightErrors = ["port-10250"];
  await assert.rejects(() => runInitPreflight(data, h, { ignore: [] }), PreflightError);
  assert.deepEqual(out.warnings, [
    "\t[WARNING Port-10250]: Port 10250 is in use",
    "[preflight] Some fatal errors occurred:",
    "\t[ERROR Port-6443]: Port 6443 is in use",
    "\t[ERROR FileContent--proc-sys-net-ipv4-ip_forward]: /proc/sys/net/ipv4/ip_forward contents are not set to 1",
    "[preflight] If you know what you are doing, you can make a check non-fatal with `--ignore-preflight-errors=...`",
  ]);
  // no image pull after a failure
  assert.deepEqual(h.runtime(data.cfg.init.nodeRegistration.criSocket).pulled, []);
});

Deno.test("dry-run as an unprivileged user reports but does not abort, and pulls nothing", async () => {
  const { data, out } = initDataFixture({ dryRun: true });
  const h = healthy();
  h.uidValue = 1000;
  h.busyPorts.add(2379);
  const report = await runInitPreflight(data, h, { ignore: [] });
  assert.deepEqual(out.warnings, [
    "[preflight] dry-run: [ERROR IsPrivilegedUser]: user is not running as root",
    "[preflight] dry-run: [ERROR Port-2379]: Port 2379 is in use",
  ]);
  assert.equal(
    out.lines.at(-1),
    "[preflight] Would pull the required images (like 'kubeadm config images pull')",
  );
  assert.equal(report.failed, true);
  assert.equal(report.checks.at(-1)!.name, "DirAvailable--var-lib-etcd");
});

Deno.test("without a container runtime, CRI, ContainerRuntimeVersion and ImagePull fail unless ignored", async () => {
  const { data, out } = initDataFixture();
  const h = healthy();
  h.runtime(data.cfg.init.nodeRegistration.criSocket).connectError = new Error(
    "dial unix /var/run/containerd/containerd.sock: connect: no such file or directory",
  );
  await assert.rejects(() => runInitPreflight(data, h, { ignore: [] }), PreflightError);
  // v1.35+: CRI and ContainerRuntimeVersion fail the node checks; no image is pulled then.
  const refused =
    "could not connect to the container runtime: dial unix /var/run/containerd/containerd.sock: connect: no such file or directory";
  assert.ok(out.warnings.includes(`\t[ERROR CRI]: ${refused}`), out.warnings.join("\n"));
  assert.ok(out.warnings.includes(`\t[ERROR ContainerRuntimeVersion]: ${refused}`));
  const again = initDataFixture();
  await assert.rejects(
    () => runInitPreflight(again.data, h, { ignore: ["CRI", "ContainerRuntimeVersion"] }),
    PreflightError,
  );
  assert.ok(again.out.warnings.includes(`\t[ERROR ImagePull]: ${refused}`));
  const ignored = initDataFixture();
  await runInitPreflight(ignored.data, h, {
    ignore: ["CRI", "ContainerRuntimeVersion", "ImagePull"],
  });
  assert.ok(ignored.out.warnings.includes(`\t[WARNING ImagePull]: ${refused}`));
});

Deno.test("-o json prints one report with every check", async () => {
  const { data, out } = initDataFixture({ dryRun: true });
  const h = healthy();
  h.busyPorts.add(6443);
  await runInitPreflight(data, h, { ignore: ["Swap"], output: "json" });
  assert.deepEqual(out.warnings, []);
  assert.equal(out.lines.length, 1);
  const report = JSON.parse(out.lines[0]);
  assert.equal(report.checks.length, 29);
  assert.deepEqual(report.checks.find((c: { name: string }) => c.name === "Port-6443"), {
    name: "Port-6443",
    severity: "error",
    status: "error",
    messages: [{ level: "error", text: "Port 6443 is in use" }],
  });
});

Deno.test("bad ignore lists are rejected before any check runs", async () => {
  const { data, out } = initDataFixture();
  const h = healthy();
  await assert.rejects(
    () => runInitPreflight(data, h, { ignore: ["all", "swap"] }),
    ValidationError,
  );
  await assert.rejects(
    () => runInitPreflight(data, h, { ignore: ["Porrt-6443"] }),
    /valid names are: all, /,
  );
  assert.deepEqual(out.lines, []);
  // the bind port of this configuration is a valid name
  data.cfg.init.localAPIEndpoint.bindPort = 7443;
  h.busyPorts.add(7443);
  await runInitPreflight(data, h, { ignore: ["Port-7443"] });
});
