/**
 * Kubernetes nodes for the end-to-end tests: real nodes (node.ts: their own namespaces,
 * containerd v2 and a real kubelet as units of the node's service manager) provisioned the way
 * a kubeadm user provisions a machine, with kubeadm, kubectl and etcdctl run INSIDE the node
 * as on a real host (no `--rootfs`):
 *
 * - the kubelet of the cluster's Kubernetes version (kubeadm refuses a kubelet newer than the
 *   control plane, so a v1.36 cluster's nodes run the v1.36.3 kubelet);
 * - the local images of that version (scripts/node-images) imported into containerd under
 *   upstream's names, as `kubeadm config images pull` would have left them (there is no
 *   registry here): every image on a control-plane node; on a worker pause and the addons'
 *   images (kube-proxy, CoreDNS), which a worker's kubelet would pull for the Pods the
 *   scheduler puts there;
 * - a CNI configuration standing in for the pod network add-on (containerd's sample bridge
 *   network): with it the runtime's network is ready and the kubelet reports the Node Ready
 *   (unless `cni: false`: then the node waits for a Pod network, pod_network.ts's, which spans
 *   the nodes).
 *
 * The tests' kubeadm config carries what a user on these cgroup v1 hosts must pass
 * ({@link testInitConfig}); tests ignore preflight's SystemVerification error (cgroup v1) as such
 * a user does, nothing else.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import { parseKubeYamlOne } from "../../core/yaml/kube_yaml.ts";
import {
  DEFAULT_ETCD_DATA_DIR,
  KUBELET_CONFIG_FILE,
  KUBELET_ENV_FILE,
  KUBELET_INSTANCE_CONFIG_FILE,
  KUBELET_RUN_DIR,
} from "../../core/constants.ts";
import { CriClient } from "../../adapters/deno/cri/client.ts";
import { kubeadmLauncher, type RunResult, waitFor } from "./commands.ts";
import { testInitConfigYaml } from "./config.ts";
import { PAUSE_IMAGE } from "./containerd.ts";
import { k8sBinDir } from "./k8s_bins.ts";
import { linkNamespaces } from "./netns.ts";
import {
  createNode,
  MACHINE_KUBELET_CONFIG,
  nodeBinDir,
  type NodeOptions,
  type TestNode,
} from "./node.ts";
import { importNodeImages, NODE_IMAGE_SET, nodeImages } from "./node_images.ts";
import { openssl, opensslSpkiSha256 } from "./openssl.ts";

/**
 * `--ignore-preflight-errors` of `init` and control-plane `join` here: SystemVerification
 * (cgroup v1, which the kubelet is configured to accept). Every image preflight's ImagePull
 * check looks for is in the node's containerd.
 */
export const PREFLIGHT_IGNORED_CONTROL_PLANE = "SystemVerification";

/** `--ignore-preflight-errors` of a worker's `join` here (cgroup v1). */
export const PREFLIGHT_IGNORED_WORKER = "SystemVerification";

/** The CNI network of every node: containerd's sample bridge configuration. */
const CNI_CONFIG = JSON.stringify(
  {
    cniVersion: "1.0.0",
    name: "containerd-net",
    plugins: [
      {
        type: "bridge",
        bridge: "cni0",
        isGateway: true,
        ipMasq: false,
        promiscMode: true,
        ipam: {
          type: "host-local",
          ranges: [[{ subnet: "10.88.0.0/16" }]],
          routes: [{ dst: "0.0.0.0/0" }],
        },
      },
      { type: "portmap", capabilities: { portMappings: true } },
    ],
  },
  null,
  2,
);

/** A node of a test cluster. */
export interface ClusterNode {
  /** The Kubernetes node name (`nodeRegistration.name`, `--node-name`). */
  name: string;
  /** The node's address. */
  ip: string;
  /** The host's address on the node's link (where the host serves the node). */
  hostAddress: string;
  /** The machine: its service manager, containerd, logs, files. */
  machine: TestNode;
  /** The default `scripts/k8s-bins` set (kubectl, etcdctl, upstream kubeadm). */
  binDir: string;
  /** The host path of a node path (under `/etc/kubernetes`, `/var/lib/kubelet`, …). */
  path(nodePath: string): string;
  /** A command inside the node (see {@link TestNode.exec}). */
  exec(argv: string[], opts?: Parameters<TestNode["exec"]>[1]): Promise<RunResult>;
  /** Our kubeadm inside the node. */
  kubeadm(
    args: string[],
    opts?: { env?: Record<string, string>; stdin?: string },
  ): Promise<RunResult>;
  /** kubectl inside the node with `/etc/kubernetes/<kubeconfig>` (default `admin.conf`). */
  kubectl(args: string[], kubeconfig?: string): Promise<RunResult>;
  /** kubectl inside the node with a kubeconfig given by its node path (`kubelet.conf`). */
  kubectlNode(args: string[], kubeconfigNodePath: string): Promise<RunResult>;
  /**
   * Connects this node's network namespace directly to another node's with a veth pair and
   * host routes between their addresses (traffic never leaves the two nodes).
   */
  link(other: ClusterNode): Promise<void>;
  /** Tears the machine down (which fails when the host was touched). */
  stop(): Promise<void>;
}

/** Options of {@link createClusterNode}. */
export interface ClusterNodeOptions {
  /** Nodes this node's network is linked to (see {@link ClusterNode.link}). */
  linkTo?: ClusterNode[];
  /** The Kubernetes version of the node's kubelet and images (default: the node image set). */
  version?: string;
  /** `control-plane` (every image of the version, the default) or `worker`. */
  role?: "control-plane" | "worker";
  /**
   * Whether the node gets the sample CNI network (default true); without it the node stays
   * NotReady until a Pod network is installed (pod_network.ts).
   */
  cni?: boolean;
  /** containerd's registry host configuration of the node (node.ts, `registryConfigDir`). */
  registryConfigDir?: string;
  /** More programs on the machine's PATH (see {@link NodeOptions.bins}). */
  bins?: NodeOptions["bins"];
  /** Node directories backed by a tmpfs of their own, in bytes (see {@link NodeOptions}). */
  tmpfs?: NodeOptions["tmpfs"];
}

/**
 * Tears down every node, last first, even past one whose tear-down fails (a node left running
 * holds its namespaces and cgroups); then throws the first failure.
 */
export async function stopAll(nodes: readonly { stop(): Promise<void> }[]): Promise<void> {
  const failed: unknown[] = [];
  for (const n of [...nodes].reverse()) await n.stop().catch((e) => failed.push(e));
  if (failed.length > 0) throw failed[0];
}

/** Boots a machine for a node named `name` (nothing of Kubernetes runs yet). */
export async function createClusterNode(
  name: string,
  options: ClusterNodeOptions = {},
): Promise<ClusterNode> {
  const version = options.version ?? NODE_IMAGE_SET;
  const binDir = await k8sBinDir();
  const machine = await createNode({
    kubeletBinDir: await nodeBinDir(version),
    registryConfigDir: options.registryConfigDir,
    bins: options.bins,
    tmpfs: options.tmpfs,
  });
  const node: ClusterNode = {
    name,
    ip: machine.ip,
    hostAddress: machine.ns.hostAddress,
    machine,
    binDir,
    path: (p) => machine.hostPath(p),
    exec: (argv, opts) => machine.exec(argv, opts),
    kubeadm: (args, opts) =>
      machine.exec([kubeadmLauncher(), ...args], { ...opts, timeoutMs: 10 * 60_000 }),
    kubectl: (args, kubeconfig = "admin.conf") =>
      node.kubectlNode(args, `/etc/kubernetes/${kubeconfig}`),
    kubectlNode: (args, kubeconfig) =>
      machine.exec([
        `${binDir}/kubectl`,
        "--kubeconfig",
        kubeconfig,
        "--request-timeout=20s",
        ...args,
      ]),
    link: (other) => linkNamespaces(machine.ns, other.machine.ns),
    stop: () => machine.close(),
  };
  try {
    await importImages(node, version, options.role);
    if (options.cni ?? true) {
      await Deno.writeTextFile(
        machine.hostPath("/etc/cni/net.d/10-containerd-net.conflist"),
        CNI_CONFIG,
      );
    }
    for (const other of options.linkTo ?? []) await node.link(other);
  } catch (e) {
    await machine.close().catch((c) => console.error(c));
    throw e;
  }
  return node;
}

/**
 * Imports the local images of a Kubernetes version into the node's containerd, as `kubeadm
 * config images pull` (or a worker's kubelet pulling for its Pods) would have left them: every
 * image on a control-plane node; pause and the addons' images (kube-proxy, CoreDNS) on a worker.
 * Before an upgrade, an admin pre-pulls the target version's images the same way.
 */
export async function importImages(
  node: ClusterNode,
  version: string,
  role: ClusterNodeOptions["role"] = "control-plane",
): Promise<void> {
  const images = [...(await nodeImages(version)).keys()];
  const wanted = role === "worker"
    ? images.filter((r) =>
      r === PAUSE_IMAGE || /^registry\.k8s\.io\/(kube-proxy|coredns\/coredns):/.test(r)
    )
    : images;
  await importNodeImages(
    node.machine,
    `unix://${node.machine.criSocketOnHost}`,
    wanted,
    version,
  );
}

/**
 * The tests' kubeadm config for a control-plane node (config.ts's {@link testInitConfigYaml};
 * `extra` appended to the ClusterConfiguration, `initExtra` to the InitConfiguration,
 * `kubeletExtra` to the KubeletConfiguration) with what
 * a user on these hosts passes: a KubeletConfiguration accepting cgroup v1 and the cgroupfs
 * driver, with swap and no OOM score change ({@link MACHINE_KUBELET_CONFIG}), and a
 * KubeProxyConfiguration that leaves the kernel's conntrack table size alone (its hash size is
 * one for the whole host; kind's nodes do the same).
 */
export function testInitConfig(
  node: Pick<ClusterNode, "name" | "ip">,
  extra = "",
  initExtra = "",
  kubeletExtra = "",
  encryptionAlgorithm?: string,
): string {
  return testInitConfigYaml({
    name: node.name,
    address: node.ip,
    init: initExtra,
    cluster: extra,
    encryptionAlgorithm,
    documents: [
      `${MACHINE_COMPONENT_CONFIGS[0]}${kubeletExtra}`,
      ...MACHINE_COMPONENT_CONFIGS.slice(1),
    ],
  });
}

/**
 * The component configurations of {@link testInitConfig} (one YAML document each): the
 * KubeletConfiguration these hosts need and the KubeProxyConfiguration that leaves the kernel's
 * conntrack table size alone.
 */
export const MACHINE_COMPONENT_CONFIGS: readonly string[] = [
  [
    "apiVersion: kubelet.config.k8s.io/v1beta1",
    "kind: KubeletConfiguration",
    ...Object.entries(MACHINE_KUBELET_CONFIG).map(([k, v]) => `${k}: ${v}`),
    "",
  ].join("\n"),
  [
    "apiVersion: kubeproxy.config.k8s.io/v1alpha1",
    "kind: KubeProxyConfiguration",
    "conntrack:",
    "  maxPerCore: 0",
    "",
  ].join("\n"),
];

/** What {@link testInitConfig} takes besides the node and the ClusterConfiguration lines. */
export interface InitConfigOptions {
  initExtra?: string;
  kubeletExtra?: string;
  /** The keys' algorithm (default the tests' ECDSA-P256). */
  encryptionAlgorithm?: string;
}

/**
 * Writes {@link testInitConfig} into the node's directory (a path the node sees as is) and
 * returns its path.
 */
export async function writeInitConfig(
  node: ClusterNode,
  extra = "",
  opts: InitConfigOptions & { file?: string } = {},
): Promise<string> {
  const path = `${node.machine.dir}/${opts.file ?? "kubeadm-config.yaml"}`;
  await Deno.writeTextFile(
    path,
    testInitConfig(node, extra, opts.initExtra, opts.kubeletExtra, opts.encryptionAlgorithm),
  );
  return path;
}

/**
 * `kubeadm init` on a node with {@link writeInitConfig}'s config (plus `extra`
 * ClusterConfiguration lines), ignoring {@link PREFLIGHT_IGNORED_CONTROL_PLANE}; fails the test
 * with init's output when it does not succeed. Returns the result and the config's path.
 * `opts.kubeadm`: the kubeadm to run (default ours; upstream's for a cluster made by it).
 */
export async function initControlPlane(
  node: ClusterNode,
  extra = "",
  opts: InitConfigOptions & { kubeadm?: string; args?: readonly string[] } = {},
): Promise<{ init: RunResult; config: string }> {
  const config = await writeInitConfig(node, extra, opts);
  const init = await node.exec([
    opts.kubeadm ?? kubeadmLauncher(),
    "init",
    "--config",
    config,
    `--ignore-preflight-errors=${PREFLIGHT_IGNORED_CONTROL_PLANE}`,
    ...opts.args ?? [],
  ], { timeoutMs: 10 * 60_000 });
  if (init.code !== 0) {
    throw new Error(
      `init failed:\n${init.stdout}\n${init.stderr}\n--- kubelet log (end):\n${
        (await node.machine.log("kubelet")).slice(-3000)
      }`,
    );
  }
  return { init, config };
}

/** The bootstrap token of the tests' init config ({@link testInitConfig}). */
export const TEST_TOKEN = "abcdef.0123456789abcdef";

/** `kubeadm join` of `endpoint` with the tests' token, discovery pinned to `pin`. */
export function tokenJoinArgs(endpoint: string, pin: string): string[] {
  return ["join", endpoint, "--token", TEST_TOKEN, "--discovery-token-ca-cert-hash", pin];
}

/** `kubeadm join` of a worker named `name` with token discovery pinned to `pin`. */
export function workerJoinArgs(endpoint: string, pin: string, name: string): string[] {
  return [
    ...tokenJoinArgs(endpoint, pin),
    "--node-name",
    name,
    `--ignore-preflight-errors=${PREFLIGHT_IGNORED_WORKER}`,
  ];
}

/**
 * Inits `cp1` with `extra` ClusterConfiguration lines and `endpoint` as the control-plane
 * endpoint (default its own address) and waits for the bootstrap signer to sign cluster-info;
 * returns the join endpoint, the init config's path, the CA and its pin. `kubeadm` as
 * {@link initControlPlane}'s; `encryptionAlgorithm` as {@link testInitConfig}'s.
 */
export async function initForJoin(
  cp1: ClusterNode,
  extra = "",
  endpoint = `${cp1.ip}:6443`,
  kubeadm?: string,
  encryptionAlgorithm?: string,
): Promise<{ endpoint: string; config: string; caPem: string; pin: string }> {
  const { config } = await initControlPlane(
    cp1,
    `${extra}controlPlaneEndpoint: ${endpoint}\n`,
    { kubeadm, encryptionAlgorithm },
  );
  const caPem = await Deno.readTextFile(cp1.path("/etc/kubernetes/pki/ca.crt"));
  const pin = `sha256:${await opensslSpkiSha256(caPem)}`;
  await waitFor("the bootstrap signer to sign cluster-info", async () => {
    const cm = await kubectlJson(cp1, ["-n", "kube-public", "get", "cm", "cluster-info"]);
    return Boolean((cm.data as Record<string, string> | undefined)?.["jws-kubeconfig-abcdef"]);
  }, 90_000);
  return { endpoint, config, caPem, pin };
}

/** Fails with the command's output (and the node's kubelet log) unless it succeeded. */
export async function assertOk(
  node: ClusterNode,
  what: string,
  r: { code: number; stdout: string; stderr: string },
): Promise<void> {
  if (r.code === 0) return;
  assert.fail(
    `${what} failed:\n${r.stdout}\n${r.stderr}\n--- ${node.name}'s kubelet log (end):\n${
      (await node.machine.log("kubelet")).slice(-3000)
    }`,
  );
}

/** Taints kube-controller-manager's node-lifecycle controller sets while a Node is not Ready. */
const LIFECYCLE_TAINTS = ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"];

/**
 * Waits until the node's Node object is Ready (the kubelet posts it) and the controller has
 * lifted its not-ready taints; returns the Node.
 */
export async function waitNodeReady(
  apiNode: ClusterNode,
  name: string,
  timeoutMs = 120_000,
): Promise<NodeJson> {
  return await waitFor(`Node ${name} Ready`, async () => {
    const r = await apiNode.kubectl(["get", "node", name, "-o", "json"]);
    if (r.code !== 0) return undefined;
    const n = JSON.parse(r.stdout) as NodeJson;
    const ready = n.status?.conditions?.find((c) => c.type === "Ready");
    if (ready?.status !== "True") return undefined;
    // The kubelet reports Ready; the node-lifecycle controller lifts its not-ready /
    // unreachable taints on its next pass (every few seconds). Until then the Node is not
    // in the state a user would look at.
    const transient = (n.spec.taints ?? []).some((t) => LIFECYCLE_TAINTS.includes(t.key));
    return transient ? undefined : n;
  }, timeoutMs);
}

/**
 * What an admin does after `upgrade apply`/`upgrade node`: installs the target's kubelet (here:
 * points the node's kubelet at that set's binary) and restarts it; waits for the Node to report
 * it, Ready.
 */
export async function upgradeKubelet(
  apiNode: ClusterNode,
  node: ClusterNode,
  version: string,
): Promise<void> {
  const link = `${node.machine.dir}/bin/kubelet`;
  await Deno.remove(link);
  await Deno.symlink(`${await nodeBinDir(version)}/kubelet`, link);
  const r = await node.exec(["systemctl", "restart", "kubelet"]);
  assert.equal(r.code, 0, r.stderr);
  await waitFor(`${node.name}'s Node reporting kubelet ${version}, Ready`, async () => {
    const n = await waitNodeReady(apiNode, node.name);
    return n.status?.nodeInfo?.kubeletVersion === version;
  }, 180_000);
}

/** The parts of a Node object the tests read. */
export interface NodeJson {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: { manager: string; operation: string; subresource?: string }[];
  };
  spec: { taints?: { key: string; effect: string }[] };
  status?: {
    conditions?: { type: string; status: string }[];
    nodeInfo?: { kubeletVersion: string; containerRuntimeVersion: string };
    addresses?: { type: string; address: string }[];
  };
}

/** `kubectl get … -o json` inside `node`, failing the test when kubectl fails. */
export async function kubectlJson(
  node: ClusterNode,
  args: string[],
  kubeconfig?: string,
): Promise<Record<string, unknown> & { items?: unknown[] }> {
  const r = await node.kubectl([...args, "-o", "json"], kubeconfig);
  assert.equal(r.code, 0, `kubectl ${args.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The files kubeadm writes under `/var/lib/kubelet`; the rest there is the kubelet's own. */
const KUBEADM_KUBELET_FILES = new Set([
  KUBELET_CONFIG_FILE,
  KUBELET_INSTANCE_CONFIG_FILE,
  KUBELET_ENV_FILE,
]);

/** Where the node's running daemons keep state: etcd, containerd, its CNI plugins, Pod logs. */
const DAEMON_STATE_DIRS = [
  `${DEFAULT_ETCD_DATA_DIR}/`,
  "/var/lib/containerd/",
  "/var/lib/cni/",
  "/var/log/",
];

/**
 * Whether a node path is state a running daemon writes all along (etcd's data, the kubelet's
 * checkpoints, Pod volumes and rotated certificates, a sandbox's CNI lease): changes there are
 * not kubeadm's.
 */
export function isDaemonState(path: string): boolean {
  return DAEMON_STATE_DIRS.some((d) => path.startsWith(d)) ||
    (path.startsWith(`${KUBELET_RUN_DIR}/`) && !KUBEADM_KUBELET_FILES.has(path));
}

/**
 * Runs `f` and returns its result with the node paths it wrote, changed or removed (from two
 * {@link TestNode.files} listings), sorted.
 */
export async function trackWrites<T>(
  node: ClusterNode,
  f: () => Promise<T>,
): Promise<{ result: T; written: string[] }> {
  const before = await node.machine.files();
  const result = await f();
  const after = await node.machine.files();
  const written = [...new Set([...before.keys(), ...after.keys()])]
    .filter((p) => before.get(p) !== after.get(p))
    .sort();
  return { result, written };
}

/**
 * The node's containerd tasks (running or stopped containers' processes) in namespace
 * `k8s.io`, read with `ctr` (no crictl): container ID → status (`RUNNING`, `STOPPED`, …).
 */
export async function containerdTasks(node: ClusterNode): Promise<Map<string, string>> {
  const out = await node.machine.ctr(["tasks", "ls"]);
  return new Map(
    out.split("\n").slice(1).filter(Boolean).map((l) => {
      const [id, , status] = l.trim().split(/\s+/);
      return [id, status];
    }),
  );
}

/** The IDs of the containers in the node's containerd (namespace `k8s.io`). */
export async function containerdContainers(node: ClusterNode): Promise<string[]> {
  return (await node.machine.ctr(["containers", "ls", "-q"])).split("\n").filter(Boolean);
}

/** The kube-system Pods matching a label selector. */
export async function kubeSystemPods(node: ClusterNode, selector: string): Promise<Pod[]> {
  return (await kubectlJson(node, ["-n", "kube-system", "get", "pods", "-l", selector]))
    .items as Pod[];
}

/** The static Pods of a control-plane node, by manifest name. */
export const CONTROL_PLANE_PODS = [
  "etcd",
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
] as const;

/**
 * Asserts that the node's kubelet runs each of kubeadm's static Pods from its manifest in a
 * container of the manifest's image (present in the node's containerd, a ready sandbox there)
 * and mirrors it into the API server as the kubelet does: `<name>-<node>` in kube-system with
 * the manifest's labels (upstream's `component`, `tier: control-plane`), annotations and
 * command, the mirror and file-source annotations, owned by the Node, Running and ready.
 */
export async function assertStaticPodsMirrored(
  apiNode: ClusterNode,
  node: ClusterNode,
): Promise<void> {
  const sandboxes = await CriClient.with(
    `unix://${node.machine.criSocketOnHost}`,
    (c) => c.listPodSandbox(),
  );
  for (const component of CONTROL_PLANE_PODS) {
    const manifest = parseKubeYamlOne(
      await Deno.readTextFile(node.path(`/etc/kubernetes/manifests/${component}.yaml`)),
    ) as Pod;
    const container = manifest.spec!.containers[0];
    assert.deepEqual(manifest.metadata?.labels, { component, tier: "control-plane" });
    const name = `${component}-${node.name}`;
    // Right after a restart the mirror may still show the old container, Running and ready,
    // until the kubelet reports the new one: wait for the status of a container that runs.
    const pod = await waitFor(`mirror Pod ${name} Running and ready`, async () => {
      const r = await apiNode.kubectl(["-n", "kube-system", "get", "pod", name, "-o", "json"]);
      if (r.code !== 0) return undefined;
      const p = JSON.parse(r.stdout) as Pod;
      const status = p.status?.containerStatuses?.[0];
      if (p.status?.phase !== "Running" || !status?.ready) return false;
      const id = status.containerID?.replace(/^containerd:\/\//, "") ?? "";
      return (await containerdTasks(node)).get(id) === "RUNNING" ? p : false;
    }, 180_000);
    assert.deepEqual(pod.metadata?.labels, manifest.metadata?.labels, name);
    const annotations = pod.metadata?.annotations ?? {};
    for (const [k, v] of Object.entries(manifest.metadata?.annotations ?? {})) {
      assert.equal(annotations[k], v, `${name}: annotation ${k}`);
    }
    assert.ok(annotations["kubernetes.io/config.mirror"], `${name}: no mirror annotation`);
    assert.equal(annotations["kubernetes.io/config.source"], "file", name);
    assert.deepEqual(
      pod.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.controller]),
      [["Node", node.name, true]],
      name,
    );
    assert.equal(pod.spec?.nodeName, node.name);
    assert.equal(pod.spec?.hostNetwork, true);
    assert.equal(pod.spec?.containers[0].image, container.image, name);
    assert.deepEqual(pod.spec?.containers[0].command, container.command, name);
    const status = pod.status!.containerStatuses![0];
    assert.equal(status.image, container.image, name);
    assert.match(status.containerID ?? "", /^containerd:\/\/[0-9a-f]{64}$/, name);
    // Running in the node's containerd, as containerd itself says.
    const id = status.containerID!.slice("containerd://".length);
    assert.equal((await containerdTasks(node)).get(id), "RUNNING", `${name}: task ${id}`);
    const sandbox = sandboxes.find((s) => s.metadata.name === name && s.state === "SANDBOX_READY");
    assert.ok(sandbox, `no ready sandbox ${name} in the node's containerd`);
    assert.equal(sandbox.metadata.namespace, "kube-system");
    assert.equal(sandbox.labels["component"], component);
  }
}

/**
 * Asserts that the node's kubelet holds a client certificate of its own and registered its
 * Node with it: `kubelet.conf` points at `/var/lib/kubelet/pki/kubelet-client-current.pem`,
 * which the kubelet's certificate store made (a link to `kubelet-client-<time>.pem`) holding
 * `O=system:nodes, CN=system:node:<name>` signed by the cluster CA; the API server knows the
 * kubelet as `system:node:<name>`; the Node was created by the kubelet. Each CSR `requestor`
 * made (signer `kubernetes.io/kube-apiserver-client-kubelet`) is approved and signed by the real
 * controller-manager.
 *
 * A kubelet that joined by TLS bootstrap (`mustHoldIssued`) holds a CSR's certificate: the wait
 * follows its CSR. `init`'s kubelet starts on the certificate kubeadm signed into kubelet.conf
 * (its store keeps it as the current one) and asks for one of its own once the API server
 * answers — with a backoff, so on a busy machine possibly after kubelet-finalize restarted it,
 * as upstream's does; restarted on a stored certificate it does not ask again until rotation
 * time. So unless `mustHoldIssued` the wait follows what the kubelet did: its CSRs, when it made
 * any, are signed; when it made none it still holds that first certificate, the only one in
 * its store.
 */
export async function assertKubeletIdentity(
  apiNode: ClusterNode,
  node: ClusterNode,
  requestor: string,
  mustHoldIssued: boolean,
): Promise<void> {
  const current = "/var/lib/kubelet/pki/kubelet-client-current.pem";
  const kubeconfig = await Deno.readTextFile(node.path("/etc/kubernetes/kubelet.conf"));
  assert.match(kubeconfig, new RegExp(`^\\s+client-certificate: ${current}$`, "m"));
  assert.match(kubeconfig, new RegExp(`^\\s+client-key: ${current}$`, "m"));
  type Csr = {
    metadata: { name: string };
    spec: { username: string; signerName: string; request: string };
    status: { certificate?: string; conditions?: { type: string; reason?: string }[] };
  };
  // Workers bootstrapping with one token share the requestor: a CSR is this node's when it
  // asks for this node's name.
  const forThisNode = async (c: Csr) =>
    (await openssl(["req", "-noout", "-subject"], atob(c.spec.request))).includes(
      `CN = system:node:${node.name}`,
    );
  const certOf = (pem: string) =>
    pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/)?.[0];
  const { target, cert, csrs } = await waitFor(
    `${node.name}'s kubelet CSRs signed${mustHoldIssued ? " and its certificate stored" : ""}`,
    async () => {
      const target = await Deno.readLink(node.path(current));
      const cert = certOf(await Deno.readTextFile(node.path(target)));
      if (!cert) return undefined;
      const csrs: Csr[] = [];
      for (const c of (await kubectlJson(apiNode, ["get", "csr"])).items as Csr[]) {
        if (c.spec.username === requestor && await forThisNode(c)) csrs.push(c);
      }
      const denied = csrs.find((c) =>
        c.status.conditions?.some((x) => x.type === "Denied" || x.type === "Failed")
      );
      if (denied) throw new Error(`CSR ${denied.metadata.name} denied or failed`);
      if (csrs.some((c) => !c.status.certificate)) return undefined; // still pending: wait
      const held = csrs.some((c) => atob(c.status.certificate!).includes(cert));
      if (mustHoldIssued && !held) return undefined; // the kubelet has yet to store it
      return { target, cert, csrs };
    },
    120_000,
  );
  if (csrs.length === 0) {
    assert.ok(!mustHoldIssued, `${requestor} made no CSR`);
    const stored = (await Array.fromAsync(Deno.readDir(node.path("/var/lib/kubelet/pki"))))
      .map((e) => e.name).filter((n) => /^kubelet-client-\d{4}/.test(n));
    assert.deepEqual(stored, [target.split("/").pop()], "a kubelet that never rotated");
  }
  assert.match(target, /^\/var\/lib\/kubelet\/pki\/kubelet-client-\d{4}(-\d\d){5}\.pem$/);
  const issued = csrs.map((c) => certOf(atob(c.status.certificate!))!);
  for (const pem of [cert, ...issued]) {
    assert.equal(
      (await openssl(["x509", "-noout", "-subject"], pem)).trim(),
      `subject=O = system:nodes, CN = system:node:${node.name}`,
    );
    const ca = node.path("/etc/kubernetes/pki/ca.crt");
    assert.equal((await openssl(["verify", "-CAfile", ca], pem)).trim(), "stdin: OK");
  }
  for (const csr of csrs) {
    assert.equal(csr.spec.signerName, "kubernetes.io/kube-apiserver-client-kubelet");
    assert.ok(csr.status.conditions?.some((c) => c.type === "Approved"), csr.metadata.name);
  }
  const who = await node.kubectlNode(
    ["auth", "whoami", "-o", "json"],
    "/etc/kubernetes/kubelet.conf",
  );
  assert.equal(who.code, 0, who.stderr);
  const info = JSON.parse(who.stdout).status.userInfo;
  assert.equal(info.username, `system:node:${node.name}`);
  assert.ok(info.groups.includes("system:nodes"));
  const n = await kubectlJson(apiNode, [
    "get",
    "node",
    node.name,
    "--show-managed-fields",
  ]) as unknown as NodeJson;
  assert.ok(
    n.metadata.managedFields?.some((f) => f.manager === "kubelet" && !f.subresource),
    `Node ${node.name} not created by the kubelet: ${JSON.stringify(n.metadata.managedFields)}`,
  );
}

/**
 * Restarts a static Pod as kubeadm's documentation says: moves its manifest out of
 * `/etc/kubernetes/manifests` until the node's kubelet has stopped the Pod (no ready sandbox of
 * it left in the node's containerd), then back, for the kubelet to start it again.
 */
export async function restartStaticPod(node: ClusterNode, component: string): Promise<void> {
  const manifest = node.path(`/etc/kubernetes/manifests/${component}.yaml`);
  const parked = node.path(`/etc/kubernetes/${component}.yaml.parked`);
  await Deno.rename(manifest, parked);
  const name = `${component}-${node.name}`;
  await waitFor(`the kubelet to stop ${name}`, async () => {
    const sandboxes = await CriClient.with(
      `unix://${node.machine.criSocketOnHost}`,
      (c) => c.listPodSandbox(),
    );
    return !sandboxes.some((s) => s.metadata.name === name && s.state === "SANDBOX_READY");
  }, 120_000);
  await Deno.rename(parked, manifest);
}

/**
 * `kubeadm init phase upload-certs --upload-certs` on a control plane with `key`, for other
 * control planes to join with; fails the test with the output when it does not succeed. As
 * upstream, the key cannot be given beside `--config`: it goes in a config of its own (the test
 * config with `extra` ClusterConfiguration lines, as the node's init had).
 */
export async function uploadCerts(node: ClusterNode, key: string, extra = ""): Promise<void> {
  const config = await writeInitConfig(node, extra, {
    initExtra: `certificateKey: ${key}\n`,
    file: "upload-certs.yaml",
  });
  await assertOk(
    node,
    "upload-certs",
    await node.kubeadm(["init", "phase", "upload-certs", "--upload-certs", "--config", config]),
  );
}

/** `kubeadm join` of a control-plane node with token discovery and the certificate key. */
export function controlPlaneJoinArgs(
  endpoint: string,
  pin: string,
  node: Pick<ClusterNode, "name" | "ip">,
  key: string,
): string[] {
  return [
    ...tokenJoinArgs(endpoint, pin),
    "--control-plane",
    "--certificate-key",
    key,
    "--apiserver-advertise-address",
    node.ip,
    "--node-name",
    node.name,
    `--ignore-preflight-errors=${PREFLIGHT_IGNORED_CONTROL_PLANE}`,
  ];
}

/** A member of `etcdctl member list -w json`. */
export interface EtcdMemberJson {
  ID: number | string;
  name: string;
  isLearner?: boolean;
  peerURLs: string[];
  clientURLs?: string[];
}

/**
 * `etcdctl member list` inside a control-plane node against its own etcd, with its
 * healthcheck client certificate.
 */
export async function etcdMembers(cp: ClusterNode): Promise<EtcdMemberJson[]> {
  const r = await etcdctl(cp, ["member", "list", "-w", "json"]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).members as EtcdMemberJson[];
}

/** etcdctl inside a control-plane node against its own etcd member. */
export function etcdctl(cp: ClusterNode, args: string[]): Promise<RunResult> {
  const pki = "/etc/kubernetes/pki";
  return cp.exec([
    `${cp.binDir}/etcdctl`,
    // etcdctl adds a repeated --endpoints to the first (a string slice): the caller's replaces it.
    ...(args.some((a) => a.startsWith("--endpoints="))
      ? []
      : [`--endpoints=https://${cp.ip}:2379`]),
    `--cacert=${pki}/etcd/ca.crt`,
    `--cert=${pki}/etcd/healthcheck-client.crt`,
    `--key=${pki}/etcd/healthcheck-client.key`,
    "--command-timeout=10s",
    ...args,
  ]);
}

/** The node's own kube-apiserver's `/readyz` (kubectl inside the node, admin.conf). */
export async function readyz(node: ClusterNode): Promise<string> {
  const r = await node.exec([
    `${node.binDir}/kubectl`,
    "--kubeconfig",
    "/etc/kubernetes/admin.conf",
    "--server",
    `https://${node.ip}:6443`,
    "--request-timeout=20s",
    "get",
    "--raw",
    "/readyz",
  ]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

/** A random 32-byte AES key in hex, as `kubeadm certs certificate-key` prints. */
export function certificateKey(): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(32)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}
