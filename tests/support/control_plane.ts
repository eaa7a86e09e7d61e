/**
 * A real control plane for end-to-end tests, built from OUR files.
 *
 * Creates a network namespace, starts the kubelet stand-in in it (which runs whatever static
 * Pods appear in the node's manifests dir, from the real etcd/kube-* binaries), and runs
 * `scripts/kubeadm init` inside the namespace against a fresh `--rootfs`. Everything (processes,
 * namespace, temp dirs) is torn down by `stop()`, also when a test fails half-way.
 *
 * @module
 */
import { binSetDir, k8sBinDir } from "./k8s_bins.ts";
import { createNetNamespace, linkNamespaces, type NetNamespace } from "./netns.ts";
import { repoRoot } from "./repo.ts";
import { kubeadmLauncher, run, type RunResult, waitFor } from "./commands.ts";
import { testInitConfigYaml } from "./config.ts";

export { kubeadmLauncher, run, type RunResult, waitFor };

/** A running test node (control plane or worker). */
export interface TestNode {
  ns: NetNamespace;
  /** The node's `--rootfs`. */
  rootfs: string;
  nodeName: string;
  /** The default `scripts/k8s-bins` set (kubectl, etcdctl, upstream kubeadm). */
  binDir: string;
  /** Where the etcd and kube-* binaries the stand-in runs come from. */
  componentDir: string;
  /** `scripts/kubeadm <args> --rootfs <rootfs>` inside the namespace. */
  kubeadm(
    args: string[],
    opts?: { stdin?: string; env?: Record<string, string> },
  ): Promise<RunResult>;
  /** `kubectl --kubeconfig <rootfs>/etc/kubernetes/<kubeconfig> <args>` inside the namespace. */
  kubectl(args: string[], kubeconfig?: string): Promise<RunResult>;
  /**
   * kubectl with a kubeconfig given by its NODE path whose file references (certificate
   * authority, client certificate and key) are node paths too, as the kubelet's kubelet.conf
   * (`/var/lib/kubelet/pki/kubelet-client-current.pem`): they are mapped under the root.
   */
  kubectlNode(args: string[], kubeconfigNodePath: string): Promise<RunResult>;
  /** Starts the kubelet stand-in for this node. */
  startStandin(): Promise<void>;
  /**
   * Connects this node's namespace directly to another node's with a veth pair and host
   * routes between their addresses (traffic never leaves the two test namespaces).
   */
  link(other: TestNode): Promise<void>;
  /** Kills everything and removes the namespace and the root dir. */
  stop(): Promise<void>;
}

/** Options of {@link createTestNode}. */
export interface TestNodeOptions {
  /** Nodes whose namespaces this node's namespace is linked to (see {@link TestNode.link}). */
  linkTo?: TestNode[];
  /**
   * The `scripts/k8s-bins` set whose etcd and kube-* binaries run this node's static Pods
   * (`v1.36.3` for a v1.36 control plane); default: the default set.
   */
  componentSet?: string;
  /**
   * Sets a static Pod runs when its image tag names one (`v1.36.3`, `v1.37.2`): an upgrade
   * swaps a manifest's tag and the stand-in restarts the Pod on that set's binaries.
   */
  tagSets?: readonly string[];
  /** The kubelet version the stand-in's Node reports (default: the stand-in's kubelet). */
  kubeletVersion?: string;
}

/** The bin dir of a component set (`$KUBEADM_TS_V1_36_3_BIN_DIR` overrides). */
export async function componentSetDir(set: string): Promise<string> {
  const env = `KUBEADM_TS_${set.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_BIN_DIR`;
  return await binSetDir(set, env, [
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
  ]);
}

/** A copy of a kubeconfig whose absolute file references are mapped under `rootfs`. */
export async function mappedKubeconfig(rootfs: string, nodePath: string): Promise<string> {
  const { parseKubeYamlOne, toKubeYaml } = await import("../../core/yaml/kube_yaml.ts");
  const { underRoot } = await import("../../adapters/deno/files.ts");
  const doc = parseKubeYamlOne(await Deno.readTextFile(underRoot(rootfs, nodePath))) as {
    clusters?: { cluster: Record<string, unknown> }[];
    users?: { user: Record<string, unknown> }[];
  };
  const map = (o: Record<string, unknown>, keys: string[]) => {
    for (const k of keys) {
      const v = o[k];
      if (typeof v === "string" && v.startsWith("/")) o[k] = underRoot(rootfs, v);
    }
  };
  for (const c of doc.clusters ?? []) map(c.cluster, ["certificate-authority"]);
  for (const u of doc.users ?? []) map(u.user, ["client-certificate", "client-key", "tokenFile"]);
  const out = await Deno.makeTempFile({ prefix: "kts-kubeconfig-", suffix: ".yaml" });
  await Deno.writeTextFile(out, toKubeYaml(doc));
  return out;
}

/** Creates a node: a namespace and an empty root dir (nothing started yet). */
export async function createTestNode(
  nodeName: string,
  options: TestNodeOptions = {},
): Promise<TestNode> {
  const binDir = await k8sBinDir();
  const componentDir = options.componentSet ? await componentSetDir(options.componentSet) : binDir;
  const tagDirs: Record<string, string> = {};
  for (const set of options.tagSets ?? []) tagDirs[set] = await componentSetDir(set);
  const ns = await createNetNamespace();
  const rootfs = await Deno.makeTempDir({ prefix: `kts-${nodeName}-` });
  let standin: Deno.ChildProcess | undefined;
  const node: TestNode = {
    ns,
    rootfs,
    nodeName,
    binDir,
    componentDir,
    kubeadm: (args, opts) =>
      run([kubeadmLauncher(), ...args, "--rootfs", rootfs], {
        ns,
        stdin: opts?.stdin,
        env: opts?.env,
      }),
    kubectl: (args, kubeconfig = "admin.conf") =>
      run([
        `${binDir}/kubectl`,
        "--kubeconfig",
        `${rootfs}/etc/kubernetes/${kubeconfig}`,
        "--request-timeout=20s",
        ...args,
      ], { ns }),
    async kubectlNode(args, kubeconfigNodePath) {
      const path = await mappedKubeconfig(rootfs, kubeconfigNodePath);
      try {
        return await run(
          [`${binDir}/kubectl`, "--kubeconfig", path, "--request-timeout=20s", ...args],
          { ns },
        );
      } finally {
        await Deno.remove(path).catch(() => {});
      }
    },
    link: (other) => linkNamespaces(ns, other.ns),
    startStandin() {
      standin = new Deno.Command("ip", {
        args: [
          "netns",
          "exec",
          ns.name,
          `${repoRoot}/scripts/deno`,
          "run",
          "-A",
          `${repoRoot}/tests/support/kubelet_standin.ts`,
          "--rootfs",
          rootfs,
          "--bin-dir",
          componentDir,
          "--node-name",
          nodeName,
          "--node-ip",
          ns.address,
          "--log-dir",
          `${rootfs}/var/log/standin`,
          ...(options.tagSets?.length
            ? [
              "--bin-dirs",
              Object.entries(tagDirs).map(([tag, dir]) => `${tag}=${dir}`).join(","),
            ]
            : []),
          ...(options.kubeletVersion ? ["--kubelet-version", options.kubeletVersion] : []),
        ],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      return Promise.resolve();
    },
    async stop() {
      try {
        standin?.kill("SIGKILL");
      } catch {
        // already gone
      }
      await ns.close();
      await standin?.status;
      await Deno.remove(rootfs, { recursive: true }).catch(() => {});
    },
  };
  try {
    for (const other of options.linkTo ?? []) await node.link(other);
  } catch (e) {
    await node.stop();
    throw e;
  }
  return node;
}

/**
 * Writes a kubeadm config for a control-plane node into its root dir and returns the path.
 * `extra` is appended to the ClusterConfiguration, `opts.initExtra` to the InitConfiguration.
 */
export async function writeInitConfig(
  node: TestNode,
  extra = "",
  opts: { initExtra?: string; file?: string } = {},
): Promise<string> {
  const path = `${node.rootfs}/${opts.file ?? "kubeadm-config.yaml"}`;
  await Deno.writeTextFile(
    path,
    testInitConfigYaml({
      name: node.nodeName,
      address: node.ns.address,
      init: opts.initExtra,
      cluster: extra,
    }),
  );
  return path;
}

/**
 * Runs `kubeadm init` on a node with the test config ({@link writeInitConfig}, plus `extra`
 * ClusterConfiguration lines) and its kubelet stand-in started; fails the test with init's
 * output when it does not succeed. Returns the result and the config's path.
 */
export async function initControlPlane(
  node: TestNode,
  extra = "",
): Promise<{ init: RunResult; config: string }> {
  const config = await writeInitConfig(node, extra);
  await node.startStandin();
  const init = await node.kubeadm(["init", "--config", config, "--ignore-preflight-errors=all"]);
  if (init.code !== 0) throw new Error(`init failed:\n${init.stdout}\n${init.stderr}`);
  return { init, config };
}

/**
 * `kubeadm init phase upload-certs --upload-certs` on a control plane with `key`, for a second
 * control plane to join with; throws with the output when it fails. As upstream, the key cannot
 * be given beside `--config`: it goes in a config of its own (the test config with `extra`
 * ClusterConfiguration lines, as the node's init had).
 */
export async function uploadCerts(node: TestNode, key: string, extra = ""): Promise<void> {
  const config = await writeInitConfig(node, extra, {
    initExtra: `certificateKey: ${key}\n`,
    file: "upload-certs.yaml",
  });
  const r = await node.kubeadm([
    "init",
    "phase",
    "upload-certs",
    "--upload-certs",
    "--config",
    config,
  ]);
  if (r.code !== 0) throw new Error(`upload-certs failed:\n${r.stdout}\n${r.stderr}`);
}
