// runJoinPreflight: worker and control-plane joins against a fake host.
import assert from "node:assert/strict";
import { runJoinPreflight } from "../../../core/preflight/join.ts";
import { KubeadmError, PreflightError, ValidationError } from "../../../core/errors.ts";
import { initConfigFixture } from "../../support/init_config_fixture.ts";
import { UPSTREAM_DEFAULT_IMAGES } from "../../support/upstream_images.ts";
import { CapturePrinter, FakeMachine } from "../../support/fake_machine.ts";

const BASE = {
  nodeName: "w-1",
  criSocket: "unix:///var/run/containerd/containerd.sock",
  caCertPath: "/etc/kubernetes/pki/ca.crt",
  controlPlane: false,
  discoveryEndpoint: "192.168.0.10:6443",
  dryRun: false,
};

function host(): FakeMachine {
  const h = new FakeMachine();
  h.dns.set("w-1", ["192.168.0.20"]).set("cp-1", ["192.168.0.10"]);
  return h;
}

Deno.test("a healthy worker passes", async () => {
  const out = new CapturePrinter();
  const report = await runJoinPreflight(BASE, host(), { ignore: [], out });
  assert.deepEqual(out.stdout, ["[preflight] Running pre-flight checks"]);
  assert.deepEqual(out.stderr, []);
  assert.equal(report.failed, false);
  assert.equal(report.checks[0].name, "IsPrivilegedUser");
});

Deno.test("a node that already joined fails on its kubeconfig and CA files", async () => {
  const h = host();
  h.files.put("/etc/kubernetes/kubelet.conf", "x").put("/etc/kubernetes/pki/ca.crt", "x");
  const out = new CapturePrinter();
  await assert.rejects(
    () => runJoinPreflight(BASE, h, { ignore: [], out }),
    PreflightError,
  );
  assert.deepEqual(out.stderr.filter((l) => l.includes("[ERROR")), [
    "\t[ERROR FileAvailable--etc-kubernetes-kubelet.conf]: /etc/kubernetes/kubelet.conf already exists",
    "\t[ERROR FileAvailable--etc-kubernetes-pki-ca.crt]: /etc/kubernetes/pki/ca.crt already exists",
  ]);
});

Deno.test("the root check runs first and alone", async () => {
  const h = host();
  h.uidValue = 1000;
  h.files.put("/etc/kubernetes/kubelet.conf", "x");
  const out = new CapturePrinter();
  await assert.rejects(() => runJoinPreflight(BASE, h, { ignore: [], out }), PreflightError);
  assert.deepEqual(out.stderr.filter((l) => l.includes("[ERROR")), [
    "\t[ERROR IsPrivilegedUser]: user is not running as root",
  ]);
});

Deno.test("config ignore list, flag list and unknown names", async () => {
  const h = host();
  h.files.put("/etc/kubernetes/kubelet.conf", "x");
  const out = new CapturePrinter();
  await runJoinPreflight(
    { ...BASE, ignorePreflightErrors: ["FileAvailable--etc-kubernetes-kubelet.conf"] },
    h,
    {
      ignore: [],
      out,
    },
  );
  assert.ok(
    out.stderr.some((l) => l.startsWith("\t[WARNING FileAvailable--etc-kubernetes-kubelet.conf]")),
  );
  await assert.rejects(
    () => runJoinPreflight(BASE, h, { ignore: ["kubelet-conf"], out }),
    ValidationError,
  );
});

Deno.test("control-plane join: readiness, secondary checks and image pull", async () => {
  const cfg = initConfigFixture();
  cfg.init.nodeRegistration.name = "w-1";
  cfg.cluster.controlPlaneEndpoint = "api.example.com:6443";
  const h = host();
  const out = new CapturePrinter();
  const report = await runJoinPreflight(
    { ...BASE, controlPlane: true, certificateKey: "a".repeat(64) },
    h,
    { ignore: [], out, controlPlaneConfig: () => Promise.resolve(cfg) },
  );
  assert.deepEqual(out.stdout, [
    "[preflight] Running pre-flight checks",
    "[preflight] Running pre-flight checks before initializing the new control plane instance",
    "[preflight] Pulling images required for setting up a Kubernetes cluster",
    "[preflight] This might take a minute or two, depending on the speed of your internet connection",
    "[preflight] You can also perform this action beforehand using 'kubeadm config images pull'",
  ]);
  const names = report.checks.map((c) => c.name);
  assert.ok(
    names.includes("NumCPU") && names.includes("Port-2380") && names.at(-1) === "ImagePull",
  );
  // The fixture's target is v1.37.2: upstream's default image list, in its order.
  assert.deepEqual(h.runtime(cfg.init.nodeRegistration.criSocket).pulled, UPSTREAM_DEFAULT_IMAGES);
});

Deno.test("control-plane join without controlPlaneEndpoint or shared certificates", async () => {
  const cfg = initConfigFixture();
  const out = new CapturePrinter();
  await assert.rejects(
    () =>
      runJoinPreflight({ ...BASE, controlPlane: true }, host(), {
        ignore: [],
        out,
        controlPlaneConfig: () => Promise.resolve(cfg),
      }),
    (e: unknown) => {
      assert.ok(e instanceof KubeadmError);
      assert.equal(
        e.message,
        "One or more conditions for hosting a new control plane instance is not satisfied.\n\n" +
          "unable to add a new control plane instance to a cluster that doesn't have a stable " +
          "controlPlaneEndpoint address\n\nPlease ensure that:\n* The cluster has a stable " +
          "controlPlaneEndpoint address.\n* The certificates that must be shared among control " +
          "plane instances are provided.\n",
      );
      return true;
    },
  );
  cfg.cluster.controlPlaneEndpoint = "api.example.com:6443";
  await assert.rejects(
    () =>
      runJoinPreflight({ ...BASE, controlPlane: true }, host(), {
        ignore: [],
        out,
        controlPlaneConfig: () => Promise.resolve(cfg),
      }),
    /shared certificate files are missing: \/etc\/kubernetes\/pki\/ca\.crt, /,
  );
});

Deno.test("control-plane join in dry-run does not pull images", async () => {
  const cfg = initConfigFixture();
  cfg.cluster.controlPlaneEndpoint = "api.example.com:6443";
  const h = host();
  const out = new CapturePrinter();
  await runJoinPreflight({ ...BASE, controlPlane: true, certificateKey: "k", dryRun: true }, h, {
    ignore: ["Port-7443"],
    out,
    controlPlaneConfig: () => Promise.resolve(cfg),
  });
  assert.equal(
    out.stdout.at(-1),
    "[preflight] Would pull the required images (like 'kubeadm config images pull')",
  );
  assert.deepEqual(h.runtime(cfg.init.nodeRegistration.criSocket).pulled, []);
});
