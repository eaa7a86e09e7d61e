/**
 * Clusters brought up from cloud-init user-data on real test nodes (cluster.ts, cloud_init.ts):
 * the user-data of every machine (the library's plans rendered by `toCloudInit`, or Cluster
 * API's bootstrap data), cloud-init booted on all machines at once, and a single watch for
 * their Nodes to be Ready. Shared by the end-to-end tests and `scripts/bench-fleet`.
 *
 * @module
 */
import { planControlPlane } from "../../library/control_plane.ts";
import { planControlPlaneJoin, planWorker } from "../../library/join.ts";
import { toCloudInit } from "../../library/cloud_init.ts";
import {
  type ClusterNode,
  createClusterNode,
  MACHINE_COMPONENT_CONFIGS,
  PREFLIGHT_IGNORED_CONTROL_PLANE,
  PREFLIGHT_IGNORED_WORKER,
  stopAll,
  testInitConfig,
} from "./cluster.ts";
import { assertCloudInitSucceeded, type CloudInitRun, runCloudInit } from "./cloud_init.ts";
import {
  CAPI_SUCCESS_MARKER,
  type CapiCertificates,
  type CapiCluster,
  capiInitUserData,
  capiJoinUserData,
} from "./cluster_api.ts";

/** A machine and the user-data it boots from; its cloud meta-data names it `node.name`. */
export interface BootTarget {
  node: ClusterNode;
  userData: string;
}

/** The machines of a cluster: the first control plane, the joining ones and the workers. */
export interface ClusterMachines {
  controlPlane: ClusterNode;
  controlPlanes?: ClusterNode[];
  workers: ClusterNode[];
}

/** {@link ClusterMachines} with every machine in boot order, and their tear-down. */
export interface Machines extends ClusterMachines {
  controlPlanes: ClusterNode[];
  all: ClusterNode[];
  /** Tears every machine down, the last booted first. */
  stop(): Promise<void>;
}

/**
 * Boots the machines of a cluster (nothing of Kubernetes runs yet): the control planes, each
 * linked to those before it, then the workers, linked to every control plane, each with `bins`
 * on its PATH (e.g. `{ kubeadm }`). A failure tears down what was booted.
 */
export async function createMachines(
  names: { controlPlanes: readonly string[]; workers: readonly string[] },
  bins: Readonly<Record<string, string>>,
): Promise<Machines> {
  const all: ClusterNode[] = [];
  const stop = () => stopAll(all);
  try {
    const cps: ClusterNode[] = [];
    for (const name of names.controlPlanes) {
      cps.push(await createClusterNode(name, { bins, linkTo: [...cps] }));
      all.push(cps.at(-1)!);
    }
    const workers: ClusterNode[] = [];
    for (const name of names.workers) {
      workers.push(await createClusterNode(name, { bins, linkTo: cps, role: "worker" }));
      all.push(workers.at(-1)!);
    }
    return { controlPlane: cps[0], controlPlanes: cps.slice(1), workers, all, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** The API server endpoint of a cluster whose first control plane is `cp` (no load balancer). */
export const endpointOf = (cp: ClusterNode): string => `${cp.ip}:6443`;

/**
 * The library's user-data for every machine: `planControlPlane` for the first control plane
 * (the tests' configuration for these hosts, with the certificates uploaded when control planes
 * join), `planControlPlaneJoin` and `planWorker` against that plan, each rendered by
 * `toCloudInit`. Preflight's SystemVerification is ignored in the configurations every
 * machine's kubeadm reads (cgroup v1), as the other tests do.
 */
export async function planUserData(m: ClusterMachines): Promise<BootTarget[]> {
  const cp = m.controlPlane;
  const ignore = `  ignorePreflightErrors:\n  - ${PREFLIGHT_IGNORED_CONTROL_PLANE}\n`;
  const plan = await planControlPlane({
    config: testInitConfig(cp, `controlPlaneEndpoint: ${endpointOf(cp)}\n`, ignore),
    host: { hostname: cp.name, advertiseAddress: cp.ip },
    uploadCerts: (m.controlPlanes ?? []).length > 0,
  });
  const out: BootTarget[] = [{ node: cp, userData: toCloudInit(plan) }];
  // A configuration given to a plan is read as `kubeadm join --config` reads its file: the
  // discovery (and a control plane's certificate key) go in it too.
  const joinConfig = (controlPlane: boolean) =>
    [
      "apiVersion: kubeadm.k8s.io/v1beta4",
      "kind: JoinConfiguration",
      "discovery:",
      "  bootstrapToken:",
      `    apiServerEndpoint: ${plan.apiServerEndpoint}`,
      `    token: ${plan.token}`,
      `    caCertHashes: [${plan.caCertHash}]`,
      ...controlPlane ? ["controlPlane:", `  certificateKey: ${plan.certificateKey}`] : [],
      "nodeRegistration:",
      controlPlane ? ignore : `  ignorePreflightErrors:\n  - ${PREFLIGHT_IGNORED_WORKER}\n`,
    ].join("\n");
  for (const node of m.controlPlanes ?? []) {
    const join = await planControlPlaneJoin({
      cluster: plan,
      config: joinConfig(true),
      host: { hostname: node.name, advertiseAddress: node.ip },
    });
    out.push({ node, userData: toCloudInit(join) });
  }
  for (const node of m.workers) {
    const join = await planWorker({
      cluster: plan,
      config: joinConfig(false),
      host: { hostname: node.name, advertiseAddress: node.ip },
    });
    out.push({ node, userData: toCloudInit(join) });
  }
  return out;
}

/** The Cluster object of a Cluster API cluster on these machines. */
export function capiCluster(cp: ClusterNode): CapiCluster {
  return {
    clusterName: "kts-capi",
    kubernetesVersion: "v1.37.2",
    controlPlaneEndpoint: endpointOf(cp),
    podSubnet: "10.244.0.0/16",
  };
}

/**
 * The KubeadmConfigSpec (Cluster API v1beta2) a Cluster API user writes for these hosts: node
 * names from the cloud's meta-data (`{{ ds.meta_data.local_hostname }}`), the eviction
 * thresholds of Cluster API's Docker provider, preflight's SystemVerification ignored (cgroup
 * v1); and, since Cluster API renders only the ClusterConfiguration and InitConfiguration, the
 * KubeletConfiguration and KubeProxyConfiguration these hosts need are a file that a
 * pre-kubeadm command appends to `/run/kubeadm/kubeadm.yaml` on the first control plane (the
 * usual way to pass component configurations through Cluster API). `token` (optional) is a
 * bootstrap token fixed in the spec, so that every machine's user-data exists before the
 * cluster does.
 */
export function capiSpec(o: { token?: string } = {}): Record<string, unknown> {
  const nodeRegistration = {
    name: "{{ ds.meta_data.local_hostname }}",
    kubeletExtraArgs: [{
      name: "eviction-hard",
      value: "nodefs.available<0%,nodefs.inodesFree<0%,imagefs.available<0%",
    }],
    ignorePreflightErrors: [PREFLIGHT_IGNORED_CONTROL_PLANE],
  };
  const components = "/run/kubeadm/components.yaml";
  return {
    clusterConfiguration: {},
    initConfiguration: {
      nodeRegistration,
      ...(o.token ? { bootstrapTokens: [{ token: o.token }] } : {}),
    },
    joinConfiguration: { nodeRegistration },
    files: [{
      path: components,
      owner: "root:root",
      permissions: "0640",
      content: MACHINE_COMPONENT_CONFIGS.map((d) => `---\n${d}`).join(""),
    }],
    preKubeadmCommands: [
      `if [ -f /run/kubeadm/kubeadm.yaml ]; then cat ${components} >> /run/kubeadm/kubeadm.yaml; fi`,
    ],
  };
}

/**
 * Cluster API's user-data for every machine, all rendered before any machine boots: the
 * bootstrap token fixed in the spec (see {@link capiSpec}); joining control planes get the
 * certificates the first one's user-data carries.
 */
export async function capiFleetUserData(
  m: ClusterMachines,
  token: string,
): Promise<{ targets: BootTarget[]; certificates: CapiCertificates }> {
  const cluster = capiCluster(m.controlPlane);
  const spec = capiSpec({ token });
  const init = await capiInitUserData(cluster, spec);
  const targets: BootTarget[] = [{ node: m.controlPlane, userData: init.userData }];
  for (
    const [nodes, controlPlane] of [[m.controlPlanes ?? [], true], [m.workers, false]] as const
  ) {
    for (const node of nodes) {
      const join = await capiJoinUserData(cluster, spec, {
        controlPlane,
        certificates: init.certificates,
        token,
      });
      targets.push({ node, userData: join.userData });
    }
  }
  return { targets, certificates: init.certificates };
}

/** Whether Cluster API's runcmd left its success marker on the machine. */
export async function capiSucceeded(node: ClusterNode): Promise<boolean> {
  const text = await Deno.readTextFile(node.path(CAPI_SUCCESS_MARKER)).catch(() => "");
  return text === "success\n";
}

/**
 * Boots cloud-init on every target at once (meta-data: instance `iid-<name>`, local hostname
 * `<name>`) and watches, through `apiNode`, for every machine's Node to be Ready
 * ({@link waitNodesReady}, from the moment the boots start). Fails as soon as a machine's
 * cloud-init reports an error (with its output), or when the Nodes are not Ready within
 * `timeoutMs`; else resolves with each machine's run and when its Node was seen Ready.
 */
export async function bringUp(
  targets: readonly BootTarget[],
  apiNode: ClusterNode,
  timeoutMs: number,
): Promise<{ boots: { target: BootTarget; run: CloudInitRun }[]; ready: Map<string, number> }> {
  const started = performance.now();
  const stop = new AbortController();
  const boots = targets.map(async (target) => {
    const run = await runCloudInit(
      target.node.machine,
      target.userData,
      { instanceId: `iid-${target.node.name}`, localHostname: target.node.name },
    );
    assertCloudInitSucceeded(target.node.name, run);
    return { target, run };
  });
  const names = targets.map((t) => t.node.name);
  try {
    const [ready, ...done] = await Promise.all([
      waitNodesReady(apiNode, names, started, timeoutMs, stop.signal),
      ...boots,
    ]);
    return { boots: done, ready };
  } finally {
    stop.abort();
    await Promise.allSettled(boots);
  }
}

/**
 * Watches the Nodes through `apiNode`'s `admin.conf` (one `kubectl get nodes` a second) until
 * every one of `names` has its Ready condition True; returns, per name, the milliseconds from
 * `since` (a `performance.now()`) to the first poll that saw it Ready. Fails after `timeoutMs`
 * naming the Nodes not Ready, or when `signal` aborts.
 */
export async function waitNodesReady(
  apiNode: ClusterNode,
  names: readonly string[],
  since: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Map<string, number>> {
  const ready = new Map<string, number>();
  const deadline = since + timeoutMs;
  while (ready.size < names.length) {
    signal?.throwIfAborted();
    if (performance.now() > deadline) {
      const missing = names.filter((n) => !ready.has(n));
      throw new Error(`Nodes not Ready after ${timeoutMs / 1000} s: ${missing.join(", ")}`);
    }
    const r = await apiNode.kubectl(["get", "nodes", "-o", "json"]);
    const at = performance.now() - since;
    if (r.code === 0) {
      type Node = {
        metadata: { name: string };
        status?: { conditions?: { type: string; status: string }[] };
      };
      for (const n of (JSON.parse(r.stdout) as { items: Node[] }).items) {
        const isReady = n.status?.conditions?.some((c) =>
          c.type === "Ready" && c.status === "True"
        );
        if (isReady && names.includes(n.metadata.name) && !ready.has(n.metadata.name)) {
          ready.set(n.metadata.name, at);
        }
      }
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
  return ready;
}
