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
import { k8sBinDir } from "./k8s_bins.ts";
import { createNetNamespace, type NetNamespace } from "./netns.ts";
import { repoRoot } from "./repo.ts";

/** Result of running a command. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command (optionally inside a namespace) and captures its output. */
export async function run(
  argv: string[],
  opts: { ns?: NetNamespace; stdin?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  const full = opts.ns ? [...opts.ns.exec, ...argv] : argv;
  const child = new Deno.Command(full[0], {
    args: full.slice(1),
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: opts.env,
  }).spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** A running test node (control plane or worker). */
export interface TestNode {
  ns: NetNamespace;
  /** The node's `--rootfs`. */
  rootfs: string;
  nodeName: string;
  binDir: string;
  /** `scripts/kubeadm <args> --rootfs <rootfs>` inside the namespace. */
  kubeadm(args: string[], opts?: { stdin?: string }): Promise<RunResult>;
  /** `kubectl --kubeconfig <rootfs>/etc/kubernetes/<kubeconfig> <args>` inside the namespace. */
  kubectl(args: string[], kubeconfig?: string): Promise<RunResult>;
  /** Starts the kubelet stand-in for this node. */
  startStandin(): Promise<void>;
  /** Kills everything and removes the namespace and the root dir. */
  stop(): Promise<void>;
}

/** Creates a node: a namespace and an empty root dir (nothing started yet). */
export async function createTestNode(nodeName: string): Promise<TestNode> {
  const binDir = await k8sBinDir();
  const ns = await createNetNamespace();
  const rootfs = await Deno.makeTempDir({ prefix: `kts-${nodeName}-` });
  let standin: Deno.ChildProcess | undefined;
  const node: TestNode = {
    ns,
    rootfs,
    nodeName,
    binDir,
    kubeadm: (args, opts) =>
      run([`${repoRoot}/scripts/kubeadm`, ...args, "--rootfs", rootfs], { ns, stdin: opts?.stdin }),
    kubectl: (args, kubeconfig = "admin.conf") =>
      run([
        `${binDir}/kubectl`,
        "--kubeconfig",
        `${rootfs}/etc/kubernetes/${kubeconfig}`,
        "--request-timeout=20s",
        ...args,
      ], { ns }),
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
          binDir,
          "--node-name",
          nodeName,
          "--node-ip",
          ns.address,
          "--log-dir",
          `${rootfs}/var/log/standin`,
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
  return node;
}

/** Writes a kubeadm config for a control-plane node into its root dir and returns the path. */
export async function writeInitConfig(node: TestNode, extra = ""): Promise<string> {
  const path = `${node.rootfs}/kubeadm-config.yaml`;
  await Deno.writeTextFile(
    path,
    `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
bootstrapTokens:
- token: abcdef.0123456789abcdef
localAPIEndpoint:
  advertiseAddress: ${node.ns.address}
  bindPort: 6443
nodeRegistration:
  name: ${node.nodeName}
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
encryptionAlgorithm: ECDSA-P256
networking:
  podSubnet: 10.244.0.0/16
${extra}`,
  );
  return path;
}

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ""}`);
}
