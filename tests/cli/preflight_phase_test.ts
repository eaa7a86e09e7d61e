// `kubeadm join phase preflight` and `kubeadm init phase preflight` through the command line,
// against a fake host (and, for join, a fake cluster to discover).
import assert from "node:assert/strict";
import { createProgram } from "../../cli/program.ts";
import { registerJoin } from "../../cli/commands/join.ts";
import { registerInit } from "../../cli/commands/init.ts";
import { normaliseArgv } from "../../cli/flags.ts";
import { PhaseError, PreflightError } from "../../core/errors.ts";
import type { KubeObject } from "../../core/kube/client.ts";
import { CapturePrinter, FakeMachine } from "../support/fake_machine.ts";
import { FakeNodeHost } from "../support/fake_node_host.ts";
import { type FakeCluster, fakeCluster } from "../core/phases/join/support.ts";

const DISCOVERY = [
  "192.168.0.10:6443",
  "--token",
  "abcdef.0123456789abcdef",
  "--discovery-token-unsafe-skip-ca-verification",
];

async function kubeadm(
  args: string[],
  host = new FakeMachine(),
  cluster?: FakeCluster,
) {
  const out = new CapturePrinter();
  const roots: string[] = [];
  const node = (root: string) => {
    roots.push(root);
    return new FakeNodeHost(host);
  };
  const api = (cluster ?? await fakeCluster()).api;
  const program = createProgram((p) => {
    registerInit(p, { out, node });
    registerJoin(p, {
      out,
      node,
      ports: { transportFor: () => api.transport, clientTransportFor: () => api.transport },
    });
  });
  let error: unknown;
  const dryRunDir = await Deno.makeTempDir({ prefix: "kubeadm-ts-preflight-dryrun-" });
  Deno.env.set("KUBEADM_JOIN_DRYRUN_DIR", dryRunDir);
  Deno.env.set("KUBEADM_INIT_DRYRUN_DIR", dryRunDir);
  try {
    await program.parseAsync(
      normaliseArgv(args),
      { from: "user" },
    );
  } catch (e) {
    error = e;
  } finally {
    Deno.env.delete("KUBEADM_JOIN_DRYRUN_DIR");
    Deno.env.delete("KUBEADM_INIT_DRYRUN_DIR");
    await Deno.remove(dryRunDir, { recursive: true });
  }
  return { out, error, roots, host };
}

function healthy(): FakeMachine {
  const h = new FakeMachine();
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
      ...DISCOVERY,
      "--node-name",
      "Worker-1",
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
  const fail = await kubeadm(
    ["join", "phase", "preflight", ...DISCOVERY, "--node-name", "worker-1"],
    h,
  );
  // the workflow reports it as upstream does: "error execution phase preflight: …"
  assert.ok(fail.error instanceof PhaseError, String(fail.error));
  assert.ok(fail.error.cause instanceof PreflightError);
  assert.ok(fail.out.stderr.includes("\t[ERROR Port-10250]: Port 10250 is in use"));
  const dry = await kubeadm(
    ["join", "phase", "preflight", ...DISCOVERY, "--node-name", "worker-1", "--dry-run"],
    h,
  );
  assert.equal(dry.error, undefined);
  assert.ok(
    dry.out.stderr.includes("[preflight] dry-run: [ERROR Port-10250]: Port 10250 is in use"),
  );
});

/** A cluster whose kubeadm-config ConfigMap holds `clusterConfiguration` (none: no key). */
async function clusterWith(clusterConfiguration?: string): Promise<FakeCluster> {
  const cluster = await fakeCluster();
  cluster.api.put({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "kubeadm-config", namespace: "kube-system" },
    data: clusterConfiguration === undefined ? {} : { ClusterConfiguration: clusterConfiguration },
  } as KubeObject);
  return cluster;
}

Deno.test("JoinConfiguration and --control-plane with the cluster's ClusterConfiguration", async () => {
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
`,
    );
    const h = healthy();
    h.setSystemFile("/proc/swaps", "Filename Type\n/swap file 1 0 -2\n");
    const cluster = await clusterWith(`apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
controlPlaneEndpoint: api.example.com:6443
`);
    const r = await kubeadm(
      ["join", "phase", "preflight", "--config", cfg, "--dry-run"],
      h,
      cluster,
    );
    assert.equal(r.error, undefined, String(r.error));
    assert.ok(r.out.stdout.includes(
      "[preflight] Running pre-flight checks before initializing the new control plane instance",
    ));
    assert.ok(r.out.stderr.some((l) => l.startsWith("\t[WARNING Swap]:")));
    assert.ok(!r.out.stderr.some((l) => l.includes("FileAvailable--etc-kubernetes-pki-ca.crt")));
    // without a ClusterConfiguration there is nothing to check the control plane against
    const none = await kubeadm(
      ["join", "phase", "preflight", "--config", cfg],
      healthy(),
      await clusterWith(undefined),
    );
    assert.match(
      String((none.error as Error).message),
      /ClusterConfiguration key value pair missing/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("init phase preflight -o json reports every check; text stays the default", async () => {
  const r = await kubeadm(
    ["--rootfs", "/tmp/r", "init", "phase", "preflight", "-o", "json"],
    healthy(),
  );
  assert.equal(r.error, undefined, String(r.error));
  assert.deepEqual(r.roots, ["/tmp/r"]);
  assert.equal(r.out.stdout.length, 1);
  const report = JSON.parse(r.out.stdout[0]);
  assert.equal(report.kind, "PreflightReport");
  assert.equal(report.command, "init");
  assert.ok(report.checks.some((c: { name: string }) => c.name === "Port-6443"));
  const text = await kubeadm(["init", "phase", "preflight"], healthy());
  assert.equal(text.error, undefined, String(text.error));
  assert.equal(text.out.stdout[0], "[preflight] Running pre-flight checks");
  const bad = await kubeadm(["init", "phase", "preflight", "-o", "yaml"], healthy());
  assert.match(String((bad.error as Error).message), /invalid output format "yaml"/);
});
