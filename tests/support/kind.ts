/**
 * kind's way of running kubeadm, on real test nodes (cluster.ts): the configuration kind
 * (v0.32.0) writes to each node, made by kind's own code (`scripts/go-tool kind_config`: its
 * kubeadm template for the node's `ConfigData`, the cluster's `kubeadmConfigPatches`, the
 * `metadata` taken out), and kind's command lines and steps (its `create/actions`):
 *
 * 1. every node gets its configuration; node names are kind's (`kind-control-plane`,
 *    `kind-control-plane2`, `kind-worker`, …) and resolve on every node, as on kind's Docker
 *    network; the control-plane endpoint is the first control plane's name;
 * 2. `kubeadm init --config=<file> --skip-token-print --v=6` on the first control plane
 *    (`skipPhases: [preflight]` and the well-known token are in the file);
 * 3. `admin.conf` and the CA material copied to the other control planes (kind copies
 *    `ca.crt/key`, `front-proxy-ca`, `sa`, `etcd/ca`; no `--upload-certs`);
 * 4. a one-node cluster loses the control-plane taint and the exclude-from-load-balancers
 *    label (kubectl, as kind does);
 * 5. `kubeadm join --config <file> --v=6` on the other control planes one at a time, then on
 *    the workers at once (discovery: the token, `unsafeSkipCAVerification: true`).
 *
 * kind writes the file to `/kind/kubeadm.conf` inside its node containers; a test node shares
 * the host's `/`, so here it is `/etc/kind/kubeadm.conf` (the node's own `/etc`).
 *
 * @module
 */
import { run } from "./commands.ts";
import { repoRoot } from "./repo.ts";

/** Where the nodes keep kind's configuration (kind: `/kind/kubeadm.conf`). */
export const KIND_CONFIG_PATH = "/etc/kind/kubeadm.conf";

/** kind's `kubeadm.ConfigData` (`pkg/cluster/internal/kubeadm/config.go`), the fields kind sets. */
export interface KindConfigData {
  ClusterName: string;
  KubernetesVersion: string;
  ControlPlaneEndpoint: string;
  APIBindPort: number;
  APIServerAddress: string;
  NodeProvider: string;
  ControlPlane: boolean;
  NodeAddress: string;
  NodeName: string;
  Token: string;
  KubeProxyMode: string;
  PodSubnet: string;
  ServiceSubnet: string;
  IPFamily: string;
  NodeLabels: string;
}

/** kind's defaults for a cluster (`kind create cluster` without a config file), for `node`. */
export function kindDefaults(
  node: { name: string; address: string; controlPlane: boolean },
  controlPlaneEndpoint: string,
): KindConfigData {
  return {
    ClusterName: "kind",
    KubernetesVersion: "v1.37.2",
    ControlPlaneEndpoint: controlPlaneEndpoint,
    APIBindPort: 6443,
    APIServerAddress: "127.0.0.1",
    NodeProvider: "docker",
    ControlPlane: node.controlPlane,
    NodeAddress: node.address,
    NodeName: node.name,
    Token: "abcdef.0123456789abcdef",
    KubeProxyMode: "iptables",
    PodSubnet: "10.244.0.0/16",
    ServiceSubnet: "10.96.0.0/16",
    IPFamily: "ipv4",
    NodeLabels: "",
  };
}

/**
 * The `kubeadmConfigPatches` a kind user on these machines adds (kind's `cgroupDriver: systemd`
 * needs systemd cgroups; these hosts are cgroup v1 with the cgroupfs driver, see
 * real-node-facts.md).
 */
export const KIND_MACHINE_PATCHES: readonly string[] = [
  `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
failCgroupV1: false
oomScoreAdj: 0
`,
];

let tool: Promise<string> | undefined;

/** The configuration kind writes for `data` with `patches` (kind's own code). */
export async function kindConfig(
  data: KindConfigData,
  patches: readonly string[] = KIND_MACHINE_PATCHES,
): Promise<string> {
  tool ??= run([`${repoRoot}/scripts/go-tool`, "kind_config"]).then((r) => {
    if (r.code !== 0) throw new Error(`scripts/go-tool kind_config:\n${r.stderr}`);
    return r.stdout.trim().split("\n").at(-1)!;
  });
  const r = await run([await tool], { stdin: JSON.stringify({ data, patches }) });
  if (r.code !== 0) throw new Error(`kind's configuration for ${data.NodeName}: ${r.stderr}`);
  return r.stdout;
}

/** kind's `kubeadm init` command line (`create/actions/kubeadminit`). */
export const KIND_INIT_ARGS: readonly string[] = [
  "init",
  `--config=${KIND_CONFIG_PATH}`,
  "--skip-token-print",
  "--v=6",
];

/** kind's `kubeadm join` command line (`create/actions/kubeadmjoin`). */
export const KIND_JOIN_ARGS: readonly string[] = ["join", "--config", KIND_CONFIG_PATH, "--v=6"];

/** The files kind copies from the first control plane to the others. */
export const KIND_COPIED_FILES: readonly string[] = [
  "/etc/kubernetes/admin.conf",
  "/etc/kubernetes/pki/ca.crt",
  "/etc/kubernetes/pki/ca.key",
  "/etc/kubernetes/pki/front-proxy-ca.crt",
  "/etc/kubernetes/pki/front-proxy-ca.key",
  "/etc/kubernetes/pki/sa.pub",
  "/etc/kubernetes/pki/sa.key",
  "/etc/kubernetes/pki/etcd/ca.crt",
  "/etc/kubernetes/pki/etcd/ca.key",
];
