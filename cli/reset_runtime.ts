/**
 * Assembles a `kubeadm reset` run on this host: the `--config` ResetConfiguration, the node
 * (`./adapters.ts`, with upstream's etcd retries for reset), what could be read
 * from the cluster, and the confirmation prompt on stdin.
 *
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { ResetConfiguration } from "../core/config/types.ts";
import {
  buildResetData,
  RESET_CLEANUP_NOTES,
  type ResetClusterConfig,
  type ResetData,
} from "../core/phases/reset/data.ts";
import { loadConfigFile } from "./config_file.ts";
import { connect, isControlPlaneNode, kubeconfigLocation } from "./cluster_connection.ts";
import { DefaultTimeouts, KubeconfigFile, KUBERNETES_DIR } from "../core/constants.ts";
import { errorMessage } from "../core/errors.ts";
import type { Printer } from "../core/ports/printer.ts";
import { stdinStream, writeStdout } from "./output.ts";
import type { CommandDeps, Invocation, WorkflowRun } from "./workflow_command.ts";
import { nodeFiles, nodeHost, platform } from "./adapters.ts";

/** What `reset` can be given from outside the CLI (tests). */
export interface ResetDeps extends CommandDeps {
  /**
   * Best-effort read of this node's cluster configuration through `--kubeconfig` (given or
   * not); `undefined` when there is no cluster to ask. Default: {@link readResetClusterConfig}.
   */
  fetchClusterConfig?: (
    kubeconfigFlag: string | undefined,
    rootfs: string,
    out: Printer,
  ) => Promise<ResetClusterConfig | undefined>;
  /** Reads one line of user input after printing `prompt`; default: stdin. */
  confirm?: (prompt: string) => Promise<string | undefined>;
}

/** Reads one line from stdin after printing `prompt` (no newline); `undefined` at end of input. */
export async function readAnswer(prompt: string): Promise<string | undefined> {
  writeStdout(prompt);
  const bytes: number[] = [];
  const reader = stdinStream().getReader();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        chunk = { done: true, value: undefined };
      }
      if (chunk.done) {
        return bytes.length > 0 ? new TextDecoder().decode(new Uint8Array(bytes)) : undefined;
      }
      for (const b of chunk.value) {
        if (b === 0x0a) {
          return new TextDecoder().decode(new Uint8Array(bytes)).replace(/\r$/, "");
        }
        bytes.push(b);
      }
    }
  } finally {
    reader.releaseLock();
  }
}

async function resetConfiguration(inv: Invocation): Promise<ResetConfiguration | undefined> {
  const path = inv.inputs.config;
  if (!path) return undefined;
  const { loadConfigDocuments } = await import("../core/config/parse.ts");
  const loaded = loadConfigDocuments(await loadConfigFile(path), { source: path });
  for (const w of loaded.warnings) inv.out.warn(w);
  if (!loaded.reset) {
    throw new ConfigError(`${path}: no ResetConfiguration found`, {
      field: "--config",
      hint: "kubeadm reset reads a kubeadm.k8s.io/v1beta4 ResetConfiguration document",
    });
  }
  return loaded.reset;
}

/**
 * What upstream's reset reads from the cluster (`FetchInitConfigurationFromCluster` with this
 * node's registration and, on a control-plane node, its API endpoint) through `--kubeconfig`,
 * default `/etc/kubernetes/admin.conf` under the root: the certificates directory, etcd (its
 * local data directory, or external), this node's CRI socket and the advertise address its
 * etcd member was added with. A kubeconfig that does not load means no cluster: `undefined`,
 * silently, as upstream; a cluster that cannot be read throws (the caller warns). Its reads
 * change nothing, so a dry run reads the cluster too.
 */
async function readResetClusterConfig(
  kubeconfigFlag: string | undefined,
  rootfs: string,
  out: Printer,
): Promise<ResetClusterConfig | undefined> {
  const location = kubeconfigLocation(kubeconfigFlag, rootfs, KubeconfigFile.admin);
  let connection;
  try {
    connection = await connect(location, { timeoutMs: 10_000 });
  } catch {
    out.log?.(
      1,
      "reset_runtime.ts",
      `[reset] Could not obtain a client set from the kubeconfig file: ${location.nodePath}`,
    );
    return undefined;
  }
  out.log?.(
    1,
    "reset_runtime.ts",
    `[reset] Loaded client set from kubeconfig file: ${location.nodePath}`,
  );
  try {
    const [{ fetchUpgradeConfig }, { detectDefaultAddress, readHostFacts }] = await Promise.all([
      import("../core/upgrade/cluster_config.ts"),
      import("../adapters/deno/host/facts.ts"),
    ]);
    const controlPlane = await isControlPlaneNode(rootfs);
    // The etcd members' client URLs, from the etcd Pods (as upstream's reset finds etcd): a
    // node killed while it joined has no etcd manifest of its own to find the cluster from.
    const etcdEndpoints = controlPlane
      ? await import("../core/etcd/endpoints.ts").then((m) =>
        m.etcdEndpointsFromCluster(connection.client, 10_000, out.log)
      ).catch(() => undefined)
      : undefined;
    let cfg;
    try {
      cfg = await fetchUpgradeConfig({
        client: connection.client,
        files: await nodeFiles(rootfs),
        out,
        logPrefix: "reset",
        kubeletConf: `${KUBERNETES_DIR}/${KubeconfigFile.kubelet}`,
        controlPlane,
        host: {
          hostname: readHostFacts(rootfs).hostname,
          defaultAdvertiseAddress: detectDefaultAddress() ?? "",
        },
        random: platform.random,
        apiCallTimeoutMs: DefaultTimeouts.kubernetesAPICall,
      });
    } catch (e) {
      if (!etcdEndpoints) throw e;
      // A node killed while it joined: no node registration yet, but its etcd member (added
      // first, as a learner) is still to be removed.
      out.warn(
        `[reset] Unable to fetch the kubeadm-config ConfigMap from cluster: ${errorMessage(e)}`,
      );
      return { etcdEndpoints };
    }
    return {
      certificatesDir: cfg.cluster.certificatesDir,
      etcd: cfg.cluster.etcd,
      localAPIEndpoint: controlPlane ? cfg.init.localAPIEndpoint : undefined,
      criSocket: cfg.init.nodeRegistration.criSocket,
      etcdEndpoints,
    };
  } finally {
    connection.close();
  }
}

/** Resolves the inputs, the ResetConfiguration and what the cluster says into a reset run. */
export async function prepareReset(
  inv: Invocation,
  deps: ResetDeps,
): Promise<WorkflowRun<ResetData>> {
  const { inputs, out, rootfs } = inv;
  const config = await resetConfiguration(inv);
  // Upstream's etcd client for reset: 2s requests, transient failures retried for 2m.
  const node = await nodeHost(rootfs, deps, { etcd: { retryForMs: 120_000 } });
  const cluster = await (deps.fetchClusterConfig ?? readResetClusterConfig)(
    inputs.kubeconfig,
    rootfs,
    out,
  ).catch((e) => {
    out.warn(
      `[reset] Unable to fetch the kubeadm-config ConfigMap from cluster: ${
        e instanceof Error ? e.message : e
      }`,
    );
    return undefined;
  });
  const data = buildResetData({
    inputs,
    config,
    cluster,
    out,
    node,
    confirm: deps.confirm ?? readAnswer,
  });
  return {
    data,
    skipPhases: data.skipPhases,
    // Upstream's closing notes follow a whole run, never a single phase.
    finish: inv.only ? undefined : () => {
      for (const line of RESET_CLEANUP_NOTES) out.info(line);
      return Promise.resolve();
    },
  };
}
