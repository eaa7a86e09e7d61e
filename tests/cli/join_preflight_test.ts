// `kubeadm join phase preflight` through the command line, against a fake host.
import assert from "node:assert/strict";
import { Command } from "commander";
import {
  JOIN_PREFLIGHT_BOOL_FLAGS,
  registerJoinPreflight,
} from "../../cli/commands/join_preflight.ts";
import { normaliseBoolFlags } from "../../cli/flags.ts";
import { PreflightError } from "../../core/errors.ts";
import { CapturePrinter, FakePreflightHost } from "../support/fake_preflight_host.ts";

async function kubeadm(args: string[], host = new FakePreflightHost()) {
  const out = new CapturePrinter();
  const program = new Command("kubeadm").exitOverride().option("--rootfs <dir>");
  const roots: string[] = [];
  registerJoinPreflight(program, {
    out,
    host: (root) => {
      roots.push(root);
      return host;
    },
  });
  let error: unknown;
  try {
    await program.parseAsync(normaliseBoolFlags(args, JOIN_PREFLIGHT_BOOL_FLAGS), {
      from: "user",
    });
  } catch (e) {
    error = e;
  }
  return { out, error, roots, host };
}

function healthy(): FakePreflightHost {
  const h = new FakePreflightHost();
  h.dns.set("worker-1", ["192.168.0.20"]);
  return h;
}

Deno.test("a worker join preflight with an endpoint, as JSON", async () => {
  const r = await kubeadm(
    [
      "--rootfs",
      "/tmp/r",
      "join",
      "phase",
      "preflight",
      "192.168.0.10:6443",
      "--node-name",
      "Worker-1",
      "--token",
      "abcdef.0123456789abcdef",
      "-o",
      "json",
    ],
    healthy(),
  );
  assert.equal(r.error, undefined);
  assert.deepEqual(r.roots, ["/tmp/r"]);
  const report = JSON.parse(r.out.stdout[0]);
  assert.equal(report.command, "join");
  assert.deepEqual(report.checks.slice(-3).map((c: { name: string }) => c.name), [
    "FileAvailable--etc-kubernetes-pki-ca.crt",
    "HTTPProxy",
    "FileContent--proc-sys-net-ipv4-ip_forward",
  ]);
});

Deno.test("failures exit with a PreflightError; --dry-run only reports them", async () => {
  const h = healthy();
  h.busyPorts.add(10250);
  const fail = await kubeadm(["join", "phase", "preflight", "--node-name", "worker-1"], h);
  assert.ok(fail.error instanceof PreflightError);
  assert.ok(fail.out.stderr.includes("\t[ERROR Port-10250]: Port 10250 is in use"));
  const dry = await kubeadm(
    ["join", "phase", "preflight", "--node-name", "worker-1", "--dry-run"],
    h,
  );
  assert.equal(dry.error, undefined);
  assert.ok(
    dry.out.stderr.includes("[preflight] dry-run: [ERROR Port-10250]: Port 10250 is in use"),
  );
});

Deno.test("JoinConfiguration and --control-plane with a ClusterConfiguration in --config", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeadm-ts-join-preflight-" });
  try {
    const cfg = `${dir}/join.yaml`;
    await Deno.writeTextFile(
      cfg,
      `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
nodeRegistration:
  name: worker-1
  ignorePreflightErrors: [Swap]
discovery:
  bootstrapToken:
    apiServerEndpoint: "[fd00::1]:6443"
    token: abcdef.0123456789abcdef
    unsafeSkipCAVerification: true
controlPlane:
  localAPIEndpoint:
    advertiseAddress: 192.168.0.20
  certificateKey: ${"a".repeat(64)}
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
controlPlaneEndpoint: api.example.com:6443
`,
    );
    const h = healthy();
    h.setSystemFile("/proc/swaps", "Filename Type\n/swap file 1 0 -2\n");
    const r = await kubeadm(["join", "phase", "preflight", "--config", cfg, "--dry-run"], h);
    assert.equal(r.error, undefined, String(r.error));
    assert.ok(r.out.stdout.includes(
      "[preflight] Running pre-flight checks before initializing the new control plane instance",
    ));
    assert.ok(r.out.stderr.some((l) => l.startsWith("\t[WARNING Swap]:")));
    assert.ok(!r.out.stderr.some((l) => l.includes("FileAvailable--etc-kubernetes-pki-ca.crt")));
    // without a ClusterConfiguration there is nothing to check the control plane against
    await Deno.writeTextFile(cfg, (await Deno.readTextFile(cfg)).split("---")[0]);
    const none = await kubeadm(["join", "phase", "preflight", "--config", cfg], healthy());
    assert.match(String((none.error as Error).message), /need the cluster's ClusterConfiguration/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
