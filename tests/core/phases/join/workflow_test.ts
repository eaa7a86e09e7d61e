// The join workflow over fakes: phase tree and order as upstream v1.37, a worker join (token
// discovery with a pinned CA, the files kubelet-start writes, the TLS-bootstrap wait, the
// bootstrap credential removed), refusals, --skip-phases and --dry-run.
import assert from "node:assert/strict";
import { listPhases, resolveSkipPhases, runWorkflow } from "../../../../core/workflow/runner.ts";
import { joinWorkflow } from "../../../../core/phases/join/workflow.ts";
import { RecordingFileSystem } from "../../../../adapters/offline/files.ts";
import { toBytes } from "../../../../core/text/utf8.ts";
import { fakeCluster, fakeJoin, SERVER, TOKEN } from "./support.ts";

const flags = (pin: string) => ({
  apiServerEndpoint: "10.0.0.1:6443",
  token: TOKEN,
  caCertHashes: [pin],
});

Deno.test("the join phases, their order and visibility are upstream's (and certs-auto-renewal)", () => {
  const entries = listPhases(joinWorkflow());
  assert.deepEqual(entries.map((e) => e.path), [
    "preflight",
    "control-plane-prepare",
    "control-plane-prepare/all",
    "control-plane-prepare/download-certs",
    "control-plane-prepare/certs",
    "control-plane-prepare/kubeconfig",
    "control-plane-prepare/control-plane",
    "check-etcd",
    "kubelet-start",
    "etcd-join",
    "kubelet-wait-bootstrap",
    "control-plane-join",
    "control-plane-join/all",
    "control-plane-join/mark-control-plane",
    "wait-control-plane",
    // Beyond upstream: skipped unless --certificate-auto-renewal is given.
    "certs-auto-renewal",
  ]);
  assert.deepEqual(
    entries.filter((e) => e.phase.hidden).map((e) => e.path),
    ["check-etcd"],
  );
  assert.throws(
    () => resolveSkipPhases(joinWorkflow(), ["kubelet"]),
    /phase "kubelet" does not exist in the "join" workflow/,
  );
});

Deno.test("a worker joins: discovery, kubelet files, TLS bootstrap, credential removed", async () => {
  const cluster = await fakeCluster();
  const j = fakeJoin(cluster, {
    ...flags(cluster.pin),
    nodeName: "worker-1",
  });
  await runWorkflow(joinWorkflow(), j.data);

  assert.deepEqual(j.events, [
    "preflight",
    "stop kubelet",
    "start kubelet",
    "probe http://127.0.0.1:10248/healthz",
    "remove /etc/kubernetes/bootstrap-kubelet.conf",
  ]);
  assert.deepEqual(j.files.writes.map((w) => `${w.path} ${w.mode.toString(8)}`), [
    "/etc/kubernetes/bootstrap-kubelet.conf 600",
    "/etc/kubernetes/pki/ca.crt 644",
    "/var/lib/kubelet/instance-config.yaml 644",
    "/var/lib/kubelet/config.yaml 644",
    "/var/lib/kubelet/kubeadm-flags.env 644",
    "/etc/kubernetes/kubelet.conf 600",
  ]);
  assert.equal(j.files.text("/etc/kubernetes/bootstrap-kubelet.conf"), undefined);
  const bootstrap = new TextDecoder().decode(toBytes(j.files.writes[0].data));
  assert.match(bootstrap, new RegExp(`server: ${SERVER}`));
  assert.match(bootstrap, /name: tls-bootstrap-token-user/);
  assert.match(bootstrap, /token: abcdef\.0123456789abcdef/);
  assert.match(bootstrap, /tls-bootstrap-token-user@kubernetes/);
  assert.equal(j.files.text("/etc/kubernetes/pki/ca.crt"), cluster.caPem);
  assert.equal(
    j.files.text("/var/lib/kubelet/instance-config.yaml"),
    'containerRuntimeEndpoint: "unix:///var/run/containerd/containerd.sock"\n',
  );
  const config = j.files.text("/var/lib/kubelet/config.yaml")!;
  assert.match(config, /kind: KubeletConfiguration/);
  assert.match(
    config,
    /containerRuntimeEndpoint: unix:\/\/\/var\/run\/containerd\/containerd.sock/,
  );
  assert.equal(
    j.files.text("/var/lib/kubelet/kubeadm-flags.env"),
    'KUBELET_KUBEADM_ARGS=""\n',
  );
  assert.deepEqual(j.out.lines.slice(0, 2), [
    '[preflight] Reading configuration from the "kubeadm-config" ConfigMap in namespace "kube-system"...',
    "[preflight] Use 'kubeadm init phase upload-config kubeadm --config your-config-file' to re-upload it.",
  ]);
  assert.ok(
    j.out.lines.includes("[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap"),
  );
  assert.deepEqual(j.out.warnings, []);
  // The secure re-fetch happened: cluster-info was read twice.
  assert.equal(
    cluster.api.requests.filter((r) => r.path.endsWith("/configmaps/cluster-info")).length,
    2,
  );
  // Node existence was checked with the bootstrap identity.
  assert.ok(cluster.api.calls().includes("GET /api/v1/nodes/worker-1"));
});

Deno.test("worker taints are registered through the kubelet flags", async () => {
  const cluster = await fakeCluster();
  const j = fakeJoin(cluster, { ...flags(cluster.pin), nodeName: "edge-1" });
  j.data.cfg.nodeRegistration.taints = [{ key: "dedicated", value: "edge", effect: "NoSchedule" }];
  await runWorkflow(joinWorkflow(), j.data);
  assert.equal(
    j.files.text("/var/lib/kubelet/kubeadm-flags.env"),
    'KUBELET_KUBEADM_ARGS="--hostname-override=edge-1 --register-with-taints=dedicated=edge:NoSchedule"\n',
  );
});

Deno.test("a Ready Node of the same name stops the join before the kubelet is touched", async () => {
  const cluster = await fakeCluster();
  cluster.api.put({
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "worker-1" },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  } as never);
  const j = fakeJoin(cluster, { ...flags(cluster.pin), nodeName: "worker-1" });
  await assert.rejects(
    () => runWorkflow(joinWorkflow(), j.data),
    /error execution phase kubelet-start: a Node with name "worker-1" and status "Ready" already exists in the cluster\. You must delete the existing Node or change the name of this new joining Node/,
  );
  assert.deepEqual(j.events, ["preflight", "remove /etc/kubernetes/bootstrap-kubelet.conf"]);
  assert.equal(j.files.text("/etc/kubernetes/bootstrap-kubelet.conf"), undefined);
});

Deno.test("a kubelet that never bootstraps: timeout, help text, credential removed", async () => {
  const cluster = await fakeCluster();
  const j = fakeJoin(cluster, flags(cluster.pin), { kubeletBootstraps: false });
  const started = j.clock.ms;
  await assert.rejects(
    () => runWorkflow(joinWorkflow(), j.data),
    /error execution phase kubelet-wait-bootstrap: failed while waiting for TLS bootstrap: timed out after 5m0s/,
  );
  assert.ok(j.out.lines.includes("\t- 'journalctl -xeu kubelet'"));
  assert.equal(j.files.text("/etc/kubernetes/bootstrap-kubelet.conf"), undefined);
  assert.ok(j.clock.ms - started >= 5 * 60_000, "waited the whole tlsBootstrap");
});

Deno.test("a wrong CA hash fails in preflight and writes nothing", async () => {
  const cluster = await fakeCluster();
  const j = fakeJoin(cluster, flags(`sha256:${"0".repeat(64)}`));
  await assert.rejects(
    () => runWorkflow(joinWorkflow(), j.data),
    /error execution phase preflight: couldn't validate the identity of the API Server: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "sha256:[0-9a-f]{64}" are pinned/,
  );
  assert.deepEqual(j.files.writes, []);
});

Deno.test("unsafe discovery without pins warns loudly", async () => {
  const cluster = await fakeCluster();
  const j = fakeJoin(cluster, {
    apiServerEndpoint: "10.0.0.1:6443",
    token: TOKEN,
    unsafeSkipCAVerification: true,
  });
  await runWorkflow(joinWorkflow(), j.data);
  assert.ok(
    j.out.warnings.some((w) => /The cluster CA was NOT verified/.test(w)),
    j.out.warnings.join("\n"),
  );
});

Deno.test("--skip-phases kubelet-start: discovery only, nothing written", async () => {
  const cluster = await fakeCluster();
  const j = fakeJoin(cluster, flags(cluster.pin));
  const skip = resolveSkipPhases(joinWorkflow(), ["kubelet-start", "kubelet-wait-bootstrap"]);
  await runWorkflow(joinWorkflow(), j.data, { skip });
  assert.deepEqual(j.events, ["preflight"]);
  assert.deepEqual(j.files.writes, []);
});

Deno.test("--dry-run: the plan is recorded, nothing is written or started", async () => {
  const cluster = await fakeCluster();
  let recording: RecordingFileSystem | undefined;
  const j = fakeJoin(cluster, { ...flags(cluster.pin), dryRun: true }, {
    dryRun: true,
    wrapFiles: (fs) => (recording = new RecordingFileSystem(fs)),
  });
  await runWorkflow(joinWorkflow(), j.data);
  assert.deepEqual(j.files.writes, []);
  assert.deepEqual(j.events, ["preflight"]);
  assert.deepEqual(recording!.planned.map((f) => f.path), [
    "/etc/kubernetes/bootstrap-kubelet.conf",
    "/etc/kubernetes/pki/ca.crt",
    "/var/lib/kubelet/instance-config.yaml",
    "/var/lib/kubelet/config.yaml",
    "/var/lib/kubelet/kubeadm-flags.env",
  ]);
  for (
    const line of [
      "[kubelet-start] Would stop the kubelet",
      "[kubelet-start] Would start the kubelet",
      "[kubelet-wait] Would wait for the kubelet to be bootstrapped",
    ]
  ) assert.ok(j.out.lines.includes(line), line);
  assert.equal(
    cluster.api.requests.filter((r) => r.method !== "GET").length,
    0,
    "dry-run must not change the cluster",
  );
});

Deno.test("`join phase control-plane-join all` is a no-op for a worker", async () => {
  const cluster = await fakeCluster();
  const j = fakeJoin(cluster, flags(cluster.pin));
  await runWorkflow(joinWorkflow(), j.data, { only: "control-plane-join/all" });
  await runWorkflow(joinWorkflow(), j.data, { only: "control-plane-prepare/all" });
  await runWorkflow(joinWorkflow(), j.data, { only: "wait-control-plane" });
  assert.deepEqual(j.files.writes, []);
  assert.deepEqual(j.events, []);
});

Deno.test("a worker join logs upstream's -v=1 lines, token discovery's included", async () => {
  const cluster = await fakeCluster();
  const j = fakeJoin(cluster, { ...flags(cluster.pin), nodeName: "worker-1" });
  await runWorkflow(joinWorkflow(), j.data);
  const endpoint = JSON.stringify("10.0.0.1:6443");
  const waiting =
    '[discovery] Waiting for the cluster-info ConfigMap to receive a JWS signature for token ID "abcdef"';
  const messages = j.out.messages(1);
  const ca = messages.findIndex((m) => m.startsWith("[discovery] Using CA certificate"));
  assert.match(
    messages[ca],
    /^\[discovery\] Using CA certificate from discovery kubeconfig:\nCA Certificate:\n\tSubject: CN=kubernetes\n(.|\n)*\tHash: sha256:[0-9a-f]{64}$/,
  );
  // (The machine checks' lines come from the preflight port, a fake here.)
  assert.deepEqual(messages.toSpliced(ca, 1), [
    "[preflight] Discovering cluster-info",
    `[discovery] Created cluster-info discovery client, requesting info from ${endpoint}`,
    waiting,
    `[discovery] Requesting info from ${endpoint} again to validate TLS against the pinned public key`,
    waiting,
    `[discovery] Cluster info signature and contents are valid and TLS certificate validates against pinned roots, will use API Server ${endpoint}`,
    "[discovery] Using provided TLSBootstrapToken as authentication credentials for the join process",
    "[preflight] Fetching init configuration",
    "[preflight] Retrieving KubeConfig objects",
    'attempting to download the KubeProxyConfiguration from ConfigMap "kube-proxy"',
    'attempting to download the KubeletConfiguration from ConfigMap "kubelet-config"',
    "[preflight] Running configuration dependant checks",
    "[kubelet-start] writing bootstrap kubelet config file at /etc/kubernetes/bootstrap-kubelet.conf",
    "[kubelet-start] writing CA certificate at /etc/kubernetes/pki/ca.crt",
    '[kubelet-start] Checking for an existing Node in the cluster with name "worker-1" and status "Ready"',
    "[kubelet-start] Stopping the kubelet",
  ]);
  // Each line names the module it comes from; no line carries the token's secret.
  assert.deepEqual(
    [...new Set(j.out.logged.map((l) => l.source))].sort(),
    [
      "cluster_config.ts",
      "data.ts",
      "discovery.ts",
      "kubelet_start.ts",
      "preflight.ts",
      "token.ts",
    ],
  );
  assert.ok(j.out.logged.every((l) => !l.message.includes("0123456789abcdef")));
});
