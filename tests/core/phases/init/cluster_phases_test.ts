// The init phases that talk to the cluster, run through the real workflow against the fake
// API server: objects and names, phase order, the cluster-admins bootstrap, dry-run.
import { webCryptoPort } from "../../../../adapters/crypto/webcrypto.ts";
import { describeActions } from "../../../support/dry_run_output.ts";
import { FakeMachine } from "../../../support/fake_machine.ts";
import assert from "node:assert/strict";
import { parse } from "yaml";
import type { DaemonSet, Deployment } from "kubernetes-types/apps/v1.d.ts";
import type { ConfigMap, Node, Secret } from "kubernetes-types/core/v1.d.ts";
import type { ClusterRoleBinding } from "kubernetes-types/rbac/v1.d.ts";
import { createDryRunTransport } from "../../../../adapters/offline/transport.ts";
import type { Transport, TransportFactory } from "../../../../core/ports/transport.ts";
import { RecordingFileSystem } from "../../../../adapters/offline/files.ts";
import { createClusterAccess } from "../../../../core/phases/init/cluster_access.ts";
import type { InitData } from "../../../../core/phases/init/data.ts";
import { initWorkflow } from "../../../../core/phases/init/workflow.ts";
import { runWorkflow } from "../../../../core/workflow/runner.ts";
import { parseCertificatesPEM } from "../../../../core/pki/cert.ts";
import { certificatePin } from "../../../../core/pki/pin.ts";
import { FakeClock } from "../../../support/fake_clock.ts";
import { FakeKubeApi, statusResponse } from "../../../support/fake_kube_api.ts";
import { initDataFixture } from "../../../support/init_data_fixture.ts";
import { MemoryFileSystem } from "../../../support/memory_fs.ts";
import type { RecordingPrinter } from "../../../support/recording_printer.ts";

const TOKEN = "abcdef.0123456789abcdef";
const OFFLINE = ["certs/all", "kubeconfig/all", "etcd/local", "control-plane/all"];

/** A node's files after the offline phases (ECDSA keys, for speed), built once. */
const offlineFiles: Promise<MemoryFileSystem> = (async () => {
  const { data, files } = initDataFixture();
  data.cfg.cluster.encryptionAlgorithm = "ECDSA-P256";
  for (const only of OFFLINE) await runWorkflow(initWorkflow(), data, { only });
  return files;
})();

async function nodeFiles(): Promise<MemoryFileSystem> {
  const copy = new MemoryFileSystem();
  for (const [path, f] of (await offlineFiles).files) copy.files.set(path, { ...f });
  return copy;
}

/** Forbids `kubeadm:cluster-admins` creation, like admin.conf before the binding exists. */
function forbidClusterAdmins(inner: Transport, denied: string[]): Transport {
  return async (req) => {
    if (req.method === "POST" && new URL(req.url).pathname.endsWith("/clusterrolebindings")) {
      const body = await req.clone().json();
      if (body.metadata?.name === "kubeadm:cluster-admins") {
        denied.push(body.metadata.name);
        return statusResponse(
          403,
          "Forbidden",
          'clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "kubernetes-admin" cannot create resource',
        );
      }
    }
    return await inner(req);
  };
}

interface Harness {
  data: InitData;
  out: RecordingPrinter;
  files: MemoryFileSystem;
  api: FakeKubeApi;
  probes: string[];
  kubelet: string[];
  transports: string[];
  denied: string[];
}

/**
 * A fake host on which every init preflight check passes; its kubelet service records "stop"
 * and "restart" in `kubelet`.
 */
function healthyPreflightHost(kubelet: string[] = []): FakeMachine {
  const host = new FakeMachine();
  const init = host.init!;
  init.serviceStop = () => Promise.resolve(void kubelet.push("stop"));
  init.serviceRestart = () => Promise.resolve(void kubelet.push("restart"));
  host.dns.set("cp-1", ["192.168.0.10"]);
  host.systemFiles.set("/proc/sys/net/ipv4/ip_forward", new TextEncoder().encode("1\n"));
  return host;
}

async function harness(
  opts: { files?: MemoryFileSystem; kubeconfigPath?: string; controlPlaneEndpoint?: string } = {},
): Promise<Harness> {
  const files = opts.files ?? await nodeFiles();
  const clock = new FakeClock();
  const api = new FakeKubeApi({
    clock,
    objects: [{
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "cp-1", labels: { "kubernetes.io/hostname": "cp-1" } },
    } as Node],
  });
  const probes: string[] = [];
  const kubelet: string[] = [];
  const transports: string[] = [];
  const denied: string[] = [];
  const transportFor: TransportFactory = (params) => {
    transports.push(params.server);
    // The first connection is admin.conf (forbidden to bootstrap), the second super-admin.conf.
    const t = transports.length === 1 ? forbidClusterAdmins(api.transport, denied) : api.transport;
    return t;
  };
  const fx = initDataFixture({
    files,
    health: { get: (url) => (probes.push(url), Promise.resolve({ status: 200 })) },
    machine: healthyPreflightHost(kubelet),
  });
  Object.assign(fx.data, {
    clock,
    sleep: clock.sleep,
    cluster: createClusterAccess({
      files,
      kubeconfigDir: "/etc/kubernetes",
      kubeconfigPath: opts.kubeconfigPath,
      transportFor,
      bootstrapClusterAdmins: true,
      clock,
      sleep: clock.sleep,
      apiCallTimeoutMs: 60_000,
      localAPIEndpoint: fx.data.cfg.init.localAPIEndpoint,
    }),
  });
  fx.data.cfg.cluster.encryptionAlgorithm = "ECDSA-P256";
  if (opts.controlPlaneEndpoint) {
    fx.data.cfg.cluster.controlPlaneEndpoint = opts.controlPlaneEndpoint;
  }
  return { ...fx, api, probes, kubelet, transports, denied };
}

function names(api: FakeKubeApi): string[] {
  return [...api.objects.values()].map((o) =>
    `${o.kind} ${o.metadata?.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata?.name}`
  ).sort();
}

Deno.test("full init workflow against the fake API: every phase, in order, every object", async () => {
  const h = await harness({ files: new MemoryFileSystem() });
  await runWorkflow(initWorkflow(), h.data);

  // Phase order as upstream (facts §5.1).
  const markers = [
    "[preflight] Running pre-flight checks",
    "[certs] Using certificateDir folder",
    "[kubeconfig] Using kubeconfig folder",
    "[etcd] Creating static Pod manifest for local etcd",
    "[control-plane] Using manifest folder",
    "[kubelet-start] Writing kubelet environment file",
    "[kubelet-start] Starting the kubelet",
    "[wait-control-plane] Waiting for the kubelet",
    "[kubelet-check] The kubelet is healthy after",
    "[control-plane-check] Waiting for healthy control plane components",
    '[upload-config] Storing the configuration used in ConfigMap "kubeadm-config"',
    '[kubelet] Creating a ConfigMap "kubelet-config"',
    "[upload-certs] Skipping phase. Please see --upload-certs",
    "[mark-control-plane] Marking the node cp-1 as control-plane by adding the labels",
    `[bootstrap-token] Using token: ${TOKEN}`,
    "[bootstrap-token] Configured RBAC rules to allow the API server kubelet client certificate to access the kubelet API",
    '[bootstrap-token] Creating the "cluster-info" ConfigMap in the "kube-public" namespace',
    "[addons] Applied essential addon: CoreDNS",
    "[addons] Applied essential addon: kube-proxy",
    "Your Kubernetes control-plane has initialized successfully!",
    `kubeadm join 192.168.0.10:6443 --token ${TOKEN} \\`,
  ];
  let at = -1;
  for (const m of markers) {
    const i = h.out.lines.findIndex((l, idx) => idx > at && l.startsWith(m));
    assert.ok(i > at, `"${m}" missing or out of order:\n${h.out.lines.join("\n")}`);
    at = i;
  }
  assert.deepEqual(h.kubelet, ["stop", "restart"]);
  assert.deepEqual(h.probes, [
    "http://127.0.0.1:10248/healthz",
    "https://192.168.0.10:6443/livez",
    "https://127.0.0.1:10257/healthz",
    "https://127.0.0.1:10259/livez",
  ]);

  // The objects upstream creates (facts §3.5, §6), by kind and name.
  assert.deepEqual(names(h.api), [
    "ClusterRole kubeadm:get-nodes",
    "ClusterRole system:coredns",
    "ClusterRoleBinding kubeadm:apiserver-kubelet-client",
    "ClusterRoleBinding kubeadm:cluster-admins",
    "ClusterRoleBinding kubeadm:get-nodes",
    "ClusterRoleBinding kubeadm:kubelet-bootstrap",
    "ClusterRoleBinding kubeadm:node-autoapprove-bootstrap",
    "ClusterRoleBinding kubeadm:node-autoapprove-certificate-rotation",
    "ClusterRoleBinding kubeadm:node-proxier",
    "ClusterRoleBinding system:coredns",
    "ConfigMap kube-public/cluster-info",
    "ConfigMap kube-system/coredns",
    "ConfigMap kube-system/kube-proxy",
    "ConfigMap kube-system/kubeadm-config",
    "ConfigMap kube-system/kubelet-config",
    "DaemonSet kube-system/kube-proxy",
    "Deployment kube-system/coredns",
    "Node cp-1",
    "Role kube-public/kubeadm:bootstrap-signer-clusterinfo",
    "Role kube-system/kube-proxy",
    "Role kube-system/kubeadm:kubelet-config",
    "Role kube-system/kubeadm:nodes-kubeadm-config",
    "RoleBinding kube-public/kubeadm:bootstrap-signer-clusterinfo",
    "RoleBinding kube-system/kube-proxy",
    "RoleBinding kube-system/kubeadm:kubelet-config",
    "RoleBinding kube-system/kubeadm:nodes-kubeadm-config",
    "Secret kube-system/bootstrap-token-abcdef",
    "Service kube-system/kube-dns",
    "ServiceAccount kube-system/coredns",
    "ServiceAccount kube-system/kube-proxy",
  ]);

  // admin.conf was forbidden to create kubeadm:cluster-admins; super-admin.conf did, once.
  assert.deepEqual(h.denied, ["kubeadm:cluster-admins"]);
  assert.deepEqual(h.transports, ["https://192.168.0.10:6443", "https://192.168.0.10:6443"]);
  const crbPosts = h.api.requests.filter((r) =>
    r.method === "POST" && (r.body as Secret).metadata?.name === "kubeadm:cluster-admins"
  );
  assert.equal(crbPosts.length, 1);

  // kubeadm-config carries no secret; the node is marked; no CRI annotation (NodeLocalCRISocket).
  const cc = h.api.get<ConfigMap>(
    "ConfigMap",
    "kube-system",
    "kubeadm-config",
  )!.data!.ClusterConfiguration;
  assert.match(cc, /^apiVersion: kubeadm\.k8s\.io\/v1beta4\n/m);
  assert.doesNotMatch(cc, /0123456789abcdef|bootstrapTokens|certificateKey/);
  const node = h.api.get<Node>("Node", undefined, "cp-1")!;
  assert.equal(node.metadata?.labels?.["node-role.kubernetes.io/control-plane"], "");
  assert.deepEqual(node.spec?.taints, [{
    key: "node-role.kubernetes.io/control-plane",
    effect: "NoSchedule",
  }]);
  assert.equal(node.metadata?.annotations?.["kubeadm.alpha.kubernetes.io/cri-socket"], undefined);

  // The join command pins the CA the certs phase generated.
  const ca = parseCertificatesPEM(h.files.text("/etc/kubernetes/pki/ca.crt")!);
  const pin = await certificatePin(ca[0], webCryptoPort);
  assert.ok(h.out.lines.includes(`\t--discovery-token-ca-cert-hash ${pin} `));
});

Deno.test("init --dry-run: API calls go to the dry-run transport, nothing is created or probed", async () => {
  const base = new MemoryFileSystem();
  const recording = new RecordingFileSystem(base);
  const probes: string[] = [];
  const kubelet: string[] = [];
  const { data, out } = initDataFixture({
    files: base,
    dryRun: true,
    health: { get: (url) => (probes.push(url), Promise.resolve({ status: 200 })) },
    machine: healthyPreflightHost(kubelet),
  });
  data.files = recording;
  data.cfg.cluster.encryptionAlgorithm = "ECDSA-P256";
  const api = new FakeKubeApi();
  const dry = createDryRunTransport({ out });
  const servers: string[] = [];
  data.cluster = createClusterAccess({
    files: recording,
    kubeconfigDir: "/etc/kubernetes",
    transportFor: (p) => (servers.push(p.server), dry.transport),
    bootstrapClusterAdmins: false,
    clock: data.clock,
    sleep: () => Promise.resolve(),
    apiCallTimeoutMs: 60_000,
  });
  let reports = 0;
  data.reportDryRunFiles = () => Promise.resolve(void reports++);
  await runWorkflow(initWorkflow(), data);

  assert.equal(base.writes.length, 0, "nothing written to the node");
  assert.equal(api.requests.length, 0);
  assert.deepEqual(probes, []);
  assert.deepEqual(kubelet, [], "the kubelet is not touched");
  assert.equal(reports, 1);
  assert.deepEqual(servers, ["https://192.168.0.10:6443"], "one client, no super-admin bootstrap");
  const writes = dry.actions.filter((a) => a.verb !== "get" && a.verb !== "list");
  assert.ok(writes.length > 25);
  assert.ok(!writes.some((a) => a.name === "kubeadm:cluster-admins"));
  for (
    const line of [
      "[dryrun] Would make sure the kubelet returns 'ok' at http://127.0.0.1:10248/healthz",
      "Your Kubernetes control-plane has initialized successfully!",
    ]
  ) assert.ok(out.lines.includes(line), line);
  const printed = describeActions(out.lines.join("\n"));
  for (
    const action of [
      "CREATE ConfigMap kube-system/kubeadm-config",
      "CREATE Secret kube-system/bootstrap-token-abcdef",
      "PATCH nodes cp-1",
      "CREATE Deployment kube-system/coredns",
      "CREATE DaemonSet kube-system/kube-proxy",
    ]
  ) assert.ok(printed.includes(action), `${action} in ${printed.join(", ")}`);
});

Deno.test("upload-certs with --upload-certs: kubeadm-certs owned by a 2h token; key printed or withheld", async () => {
  for (const skip of [false, true]) {
    const h = await harness();
    h.data.cfg.uploadCerts = true;
    h.data.cfg.init.certificateKey = "f".repeat(64);
    h.data.skipCertificateKeyPrint = skip;
    await runWorkflow(initWorkflow(), h.data, { only: "upload-certs" });
    const secret = h.api.get<Secret>("Secret", "kube-system", "kubeadm-certs")!;
    assert.deepEqual(Object.keys(secret.data!).sort(), [
      "ca.crt",
      "ca.key",
      "etcd-ca.crt",
      "etcd-ca.key",
      "front-proxy-ca.crt",
      "front-proxy-ca.key",
      "sa.key",
      "sa.pub",
    ]);
    const owner = secret.metadata!.ownerReferences![0];
    assert.match(owner.name, /^bootstrap-token-[a-z0-9]{6}$/);
    assert.ok(h.api.get("Role", "kube-system", "kubeadm:kubeadm-certs"));
    const printed = h.out.lines.some((l) => l.includes("f".repeat(64)));
    assert.equal(printed, !skip);
  }
});

Deno.test("upload-config kubelet uploads the configuration and never annotates the Node", async () => {
  const h = await harness();
  await runWorkflow(initWorkflow(), h.data, { only: "upload-config/all" });
  const node = h.api.get<Node>("Node", undefined, "cp-1")!;
  assert.equal(node.metadata?.annotations?.["kubeadm.alpha.kubernetes.io/cri-socket"], undefined);
  const kc = h.api.get<ConfigMap>(
    "ConfigMap",
    "kube-system",
    "kubelet-config",
  )!;
  assert.match(kc.data!.kubelet, /^kind: KubeletConfiguration$/m);
  assert.ok(kc.metadata!.annotations, "signed with the component-config hash");
});

Deno.test("addons honour dns.disabled / proxy.disabled and the corednsdeployment patch", async () => {
  const files = await nodeFiles();
  files.put(
    "/patches/corednsdeployment+merge.yaml",
    "spec:\n  replicas: 3\n",
  );
  const h = await harness({ files });
  h.data.patchesDir = "/patches";
  h.data.cfg.cluster.proxy.disabled = true;
  await runWorkflow(initWorkflow(), h.data, { only: "addon/all" });
  const dep = h.api.get<Deployment>("Deployment", "kube-system", "coredns")!;
  assert.equal(dep.spec!.replicas, 3);
  assert.equal(h.api.get("DaemonSet", "kube-system", "kube-proxy"), undefined);
  assert.ok(h.out.lines.includes(
    '[patches] Applied patch of type "application/merge-patch+json" to target "corednsdeployment"',
  ));

  const h2 = await harness();
  h2.data.cfg.cluster.dns.disabled = true;
  await runWorkflow(initWorkflow(), h2.data, { only: "addon/all" });
  assert.equal(h2.api.get("Deployment", "kube-system", "coredns"), undefined);
  assert.ok(h2.api.get("DaemonSet", "kube-system", "kube-proxy"));
});

Deno.test("--print-manifest prints the addon's objects in upstream's order and asks nothing of the cluster", async () => {
  const h = await harness();
  h.data.cluster = undefined;
  h.data.printManifest = true;
  await runWorkflow(initWorkflow(), h.data, { only: "addon/coredns" });
  await runWorkflow(initWorkflow(), h.data, { only: "addon/kube-proxy" });
  const docs = h.out.lines.join("\n").split(/^---$/m).slice(1).map((d) => parse(d));
  assert.deepEqual(docs.map((d) => `${d.kind}/${d.metadata.name}`), [
    "Deployment/coredns",
    "ConfigMap/coredns",
    "Service/kube-dns",
    "ClusterRole/system:coredns",
    "ClusterRoleBinding/system:coredns",
    "ServiceAccount/coredns",
    "ServiceAccount/kube-proxy",
    "ClusterRoleBinding/kubeadm:node-proxier",
    "Role/kube-proxy",
    "RoleBinding/kube-proxy",
    "ConfigMap/kube-proxy",
    "DaemonSet/kube-proxy",
  ]);
  assert.equal(docs[0].spec.replicas, 2);
  assert.equal(docs[11].status, undefined);
  assert.equal(h.api.objects.size, 1, "only the pre-existing Node");
  assert.deepEqual(h.transports, []);
});

Deno.test("--kubeconfig naming another file: used as is, without the cluster-admins bootstrap", async () => {
  const files = await nodeFiles();
  files.put("/root/other.conf", files.text("/etc/kubernetes/admin.conf")!);
  files.files.delete("/etc/kubernetes/admin.conf");
  const h = await harness({ files, kubeconfigPath: "/root/other.conf" });
  await runWorkflow(initWorkflow(), h.data, { only: "bootstrap-token" });
  assert.equal(h.transports.length, 1, "one connection: no super-admin.conf fallback");
  assert.deepEqual(h.denied, [], "kubeadm:cluster-admins was never attempted");
  assert.ok(h.api.get("Secret", "kube-system", "bootstrap-token-abcdef"));
  assert.equal(h.data.cluster!.kubeconfigPath, "/root/other.conf");
});

Deno.test("addon kube-proxy applies kubeproxydaemonset patches (v1.37)", async () => {
  const files = await nodeFiles();
  files.put(
    "/patches/kubeproxydaemonset+merge.yaml",
    'metadata:\n  labels:\n    patched: "yes"\nspec:\n  template:\n    spec:\n      priorityClassName: custom-critical\n',
  );
  const h = await harness({ files });
  h.data.patchesDir = "/patches";
  await runWorkflow(initWorkflow(), h.data, { only: "addon/kube-proxy" });
  const ds = h.api.get<DaemonSet>("DaemonSet", "kube-system", "kube-proxy")!;
  assert.equal(ds.metadata?.labels?.patched, "yes");
  assert.equal(ds.spec!.template.spec!.priorityClassName, "custom-critical");
  assert.equal(ds.spec!.template.spec!.containers[0].name, "kube-proxy", "the rest is kept");
  assert.deepEqual(h.out.lines.filter((l) => l.startsWith("[patches]")), [
    '[patches] Reading patches from path "/patches"',
    "[patches] Found the following patch files: [kubeproxydaemonset+merge.yaml]",
    '[patches] Applied patch of type "application/merge-patch+json" to target "kubeproxydaemonset"',
  ]);
});

Deno.test("init talks to the local API server; cluster-info and the join command keep the control-plane endpoint (v1.35+)", async () => {
  const h = await harness({
    files: new MemoryFileSystem(),
    controlPlaneEndpoint: "lb.example.test:6443",
  });
  await runWorkflow(initWorkflow(), h.data);
  assert.match(
    h.files.text("/etc/kubernetes/admin.conf")!,
    /server: https:\/\/lb\.example\.test:6443/,
  );
  // admin.conf and the super-admin.conf fallback both go to this node's API server.
  assert.deepEqual(h.transports, ["https://192.168.0.10:6443", "https://192.168.0.10:6443"]);
  const info = h.api.get<ConfigMap>("ConfigMap", "kube-public", "cluster-info")!;
  assert.match(info.data!.kubeconfig, /server: https:\/\/lb\.example\.test:6443/);
  assert.ok(h.out.lines.some((l) => l.startsWith("kubeadm join lb.example.test:6443 --token")));
  // The API server's kubelet client gets the kubelet API through its own binding.
  const crb = h.api.get<ClusterRoleBinding>(
    "ClusterRoleBinding",
    undefined,
    "kubeadm:apiserver-kubelet-client",
  )!;
  assert.deepEqual(crb.roleRef, {
    apiGroup: "rbac.authorization.k8s.io",
    kind: "ClusterRole",
    name: "system:kubelet-api-admin",
  });
  assert.deepEqual(crb.subjects, [{ kind: "User", name: "kube-apiserver-kubelet-client" }]);
});

Deno.test("kubelet-finalize points kubelet.conf at the rotatable certificate and restarts", async () => {
  const h = await harness();
  await runWorkflow(initWorkflow(), h.data, { only: "kubelet-finalize/all" });
  assert.deepEqual(h.kubelet, [], "no kubelet-client-current.pem: nothing to do");
  assert.equal(h.out.lines.length, 0);

  h.files.put("/var/lib/kubelet/pki/kubelet-client-current.pem", "cert+key");
  await runWorkflow(initWorkflow(), h.data, { only: "kubelet-finalize/all" });
  assert.deepEqual(h.out.lines, [
    '[kubelet-finalize] Updating "/etc/kubernetes/kubelet.conf" to point to a rotatable kubelet client certificate and key',
  ]);
  const conf = h.files.text("/etc/kubernetes/kubelet.conf")!;
  assert.match(conf, /client-certificate: \/var\/lib\/kubelet\/pki\/kubelet-client-current\.pem/);
  assert.match(conf, /client-key: \/var\/lib\/kubelet\/pki\/kubelet-client-current\.pem/);
  assert.doesNotMatch(conf, /client-key-data/);
  assert.equal(h.files.files.get("/etc/kubernetes/kubelet.conf")!.mode, 0o600);
  assert.deepEqual(h.kubelet, ["restart"]);
});

Deno.test("show-join-command: control-plane block with controlPlaneEndpoint, withheld values", async () => {
  const h = await harness();
  h.data.cfg.cluster.controlPlaneEndpoint = "cp.example:6443";
  h.data.cfg.uploadCerts = true;
  h.data.cfg.init.certificateKey = "a".repeat(64);
  h.data.skipTokenPrint = true;
  h.data.skipCertificateKeyPrint = true;
  await runWorkflow(initWorkflow(), h.data, { only: "show-join-command" });
  const text = h.out.lines.join("\n");
  assert.match(text, /You can now join any number of control-plane nodes running the following/);
  assert.match(text, /--token <value withheld> \\/);
  assert.match(text, /--control-plane --certificate-key <value withheld>/);
  assert.doesNotMatch(text, /0123456789abcdef|aaaaaaaa/);
  // admin.conf's server (the local endpoint here) is what the join command targets.
  assert.match(text, /kubeadm join 192\.168\.0\.10:6443 /);
});

Deno.test("cluster phases fail clearly without admin.conf", async () => {
  const h = await harness({ files: new MemoryFileSystem() });
  await assert.rejects(
    () => runWorkflow(initWorkflow(), h.data, { only: "mark-control-plane" }),
    /error execution phase mark-control-plane: couldn't create a Kubernetes client from file "\/etc\/kubernetes\/admin\.conf"/,
  );
});
