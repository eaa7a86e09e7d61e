/**
 * Everything a `join` phase may use (upstream's `JoinData`): the resolved JoinConfiguration,
 * the node's files, output, and — computed once, on first use — the discovered TLS-bootstrap
 * kubeconfig, the cluster's configuration for this node, and API clients.
 *
 * The outside world comes in through the node's ports ({@link NodeHost}: the kubelet service,
 * health probes, file removal and directories, the etcd client) and {@link JoinPorts}
 * (discovery and API transports). Tests hand in fakes; the Deno CLI hands in
 * `cli/join_runtime.ts`.
 *
 * @module
 */
import { DEFAULT_CLUSTER_NAME, KubeconfigFile } from "../../constants.ts";
import type { ResolvedJoinConfig } from "../../config/join.ts";
import type { ResolvedConfig } from "../../config/types.ts";
import type { NodeHost } from "../../ports/node.ts";
import { DiscoveryError, errorMessage, KubeadmError } from "../../errors.ts";
import type { Clock, Sleep } from "../../ports/clock.ts";
import type { FileSystem } from "../../ports/files.ts";
import type { Printer } from "../../ports/printer.ts";
import type { RandomSource } from "../../ports/random.ts";
import { utf8 } from "../../text/utf8.ts";
import { KubeClient } from "../../kube/client.ts";
import { connectionFromKubeconfig } from "../../kube/kubeconfig_connection.ts";
import type { TransportFactory } from "../../ports/transport.ts";
import {
  clusterFromKubeconfig,
  type Kubeconfig,
  parseKubeconfig,
} from "../../kubeconfig/kubeconfig.ts";
import type { HostFacts } from "../init/data.ts";
import type { InputName } from "../../config/inputs.ts";
import type { CertTreeContext } from "../../certs/tree.ts";
import type { KubeconfigFileContext } from "../../kubeconfig/files.ts";
import type { ManifestWriteContext } from "../../manifests/write.ts";
import { keyPoolFor } from "../../pki/key_pool.ts";
import { parseDuration } from "../../text/duration.ts";
import type { CryptoPort } from "../../ports/crypto.ts";
import type { AutoRenewalRequest } from "../../certs/auto_renewal.ts";
import { fetchClusterConfigDocuments, nodeInitConfig } from "../../config/cluster_config.ts";
import { discoverCluster, type DiscoveryPorts, type JoinDiscovery } from "./discovery.ts";

/** The network, as the join phases reach it: discovery and the API clients' transports. */
export interface JoinPorts extends DiscoveryPorts {
  /**
   * Runs the preflight checks on this node (`runJoinNodePreflight` over the node's machine);
   * a runtime without a machine to inspect supplies its own.
   */
  preflight(data: JoinData): Promise<void>;
  /**
   * Transports of the API clients built from kubeconfigs (bootstrap, admin, kubelet);
   * discovery's {@link DiscoveryPorts.transportFor} when absent.
   */
  clientTransportFor?: TransportFactory;
}

/** What the certificate, kubeconfig and manifest writers need of a joining control-plane node. */
export type JoinNodeContext = CertTreeContext & KubeconfigFileContext & ManifestWriteContext;

/** Input of every join phase. */
export interface JoinData {
  cfg: ResolvedJoinConfig;
  /** The node's files (real, or a dry-run recording overlay). */
  files: FileSystem;
  out: Printer;
  clock: Clock;
  sleep: Sleep;
  random: RandomSource;
  /** Key generation, import, signing and hashing (`core/ports/crypto.ts`). */
  crypto: CryptoPort;
  /** Process start time (certificate validity). */
  startTime: Date;
  dryRun: boolean;
  /** `/etc/kubernetes`. */
  kubeconfigDir: string;
  /** `/etc/kubernetes/manifests`. */
  manifestDir: string;
  /** `/var/lib/kubelet`. */
  kubeletDir: string;
  /** `--patches` (flag) or `patches.directory`. */
  patchesDir?: string;
  /** Host facts for manifests and kubelet flags. */
  host: HostFacts & { systemdResolvedActive?: boolean; defaultAdvertiseAddress?: string };
  /** The node's ports (machine, kubelet service, health endpoints, etcd, file tree). */
  node: NodeHost;
  /** Discovery and API transports. */
  ports: JoinPorts;
  /** `join phase preflight -o`: `text` (default) or `json` (one report of every check). */
  preflightOutput?: "text" | "json";
  /**
   * `--certificate-auto-renewal` (or the phase run alone): install the certificate
   * auto-renewal schedule, running this command (beyond upstream; control-plane joins only).
   */
  certificateAutoRenewal?: AutoRenewalRequest;
  /** The discovered TLS-bootstrap kubeconfig (discovery runs on first call). */
  tlsBootstrapCfg(): Promise<Kubeconfig>;
  /** The cluster's configuration for this node (fetched on first call). */
  initCfg(): Promise<ResolvedConfig>;
  /** A client with the TLS-bootstrap identity. */
  bootstrapClient(): Promise<KubeClient>;
  /** A client from this node's `admin.conf`. */
  client(): Promise<KubeClient>;
  /** A client from any kubeconfig (node paths resolved through `files`). */
  clientFor(kubeconfig: Kubeconfig): Promise<KubeClient>;
  /**
   * This node as the certificate, kubeconfig and manifest writers see it (a control-plane
   * join): the cluster's configuration for this node, the node's files and this run's keys.
   */
  nodeContext(): Promise<JoinNodeContext>;
  /** Which phase paths this run executes (absent: all not skipped). */
  willRun?: (phasePath: string) => boolean;
}

/** Inputs of {@link createJoinData}: the plain fields of {@link JoinData}. */
export interface JoinDataInput extends
  Pick<
    JoinData,
    | "cfg"
    | "files"
    | "out"
    | "clock"
    | "sleep"
    | "random"
    | "crypto"
    | "dryRun"
    | "kubeconfigDir"
    | "manifestDir"
    | "kubeletDir"
    | "patchesDir"
    | "host"
    | "node"
    | "ports"
    | "preflightOutput"
    | "certificateAutoRenewal"
  > {
  /** Process start time (default: now). */
  startTime?: Date;
  /**
   * A kubeconfig to use instead of discovery (upstream: an existing `admin.conf` on a
   * control-plane node).
   */
  tlsBootstrapOverride?: Kubeconfig;
}

function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => {
    if (!p) {
      p = fn();
      p.catch(() => (p = undefined));
    }
    return p;
  };
}

/**
 * Renames the bootstrap kubeconfig's cluster to the cluster's name and points the current
 * context at it (as upstream does). A kubeconfig without a usable cluster, or whose
 * current-context does not exist, is refused with upstream's v1.35+ message.
 */
export function renameBootstrapCluster(config: Kubeconfig, clusterName: string): void {
  let cluster;
  try {
    cluster = clusterFromKubeconfig(config).cluster;
  } catch (e) {
    throw new DiscoveryError(`the TLS bootstrap kubeconfig is malformed: ${errorMessage(e)}`, {
      cause: e,
    });
  }
  const current = config["current-context"] ?? "";
  const context = (config.contexts ?? []).find((c) => (c.name ?? "") === current)?.context;
  if (!context) {
    throw new DiscoveryError(
      `the TLS bootstrap kubeconfig is malformed: ${
        JSON.stringify(current)
      } set as current-context, but not found in context list`,
    );
  }
  config.clusters = [{ name: clusterName, cluster }];
  context.cluster = clusterName;
}

/** Builds the {@link JoinData} of a run. */
export function createJoinData(input: JoinDataInput): JoinData {
  let discovery: JoinDiscovery | undefined;
  const data: JoinData = {
    cfg: input.cfg,
    files: input.files,
    out: input.out,
    clock: input.clock,
    sleep: input.sleep,
    random: input.random,
    crypto: input.crypto,
    startTime: input.startTime ?? input.clock.now(),
    dryRun: input.dryRun,
    kubeconfigDir: input.kubeconfigDir,
    manifestDir: input.manifestDir,
    kubeletDir: input.kubeletDir,
    patchesDir: input.patchesDir,
    host: input.host,
    node: input.node,
    ports: input.ports,
    preflightOutput: input.preflightOutput,
    certificateAutoRenewal: input.certificateAutoRenewal,
    tlsBootstrapCfg: once(async () => {
      if (input.tlsBootstrapOverride) return input.tlsBootstrapOverride;
      input.out.log?.(1, "data.ts", "[preflight] Discovering cluster-info");
      discovery = await discoverCluster(input.cfg, input.ports, input);
      return discovery.tlsBootstrap;
    }),
    initCfg: once(async () => {
      const tls = await data.tlsBootstrapCfg();
      input.out.log?.(1, "data.ts", "[preflight] Fetching init configuration");
      input.out.log?.(1, "data.ts", "[preflight] Retrieving KubeConfig objects");
      const client = await data.bootstrapClient();
      const docs = await fetchClusterConfigDocuments(client, input.out);
      const cfg = nodeInitConfig(docs, input.cfg, {
        hostname: input.host.hostname,
        defaultAdvertiseAddress: input.host.defaultAdvertiseAddress ?? "",
      }, input.random);
      renameBootstrapCluster(tls, cfg.cluster.clusterName || DEFAULT_CLUSTER_NAME);
      return cfg;
    }),
    bootstrapClient: once(async () => data.clientFor(await data.tlsBootstrapCfg())),
    client: once(async () => {
      const path = `${input.kubeconfigDir}/${KubeconfigFile.admin}`;
      const raw = await input.files.read(path);
      if (raw === undefined) {
        throw new KubeadmError(
          `[preflight] couldn't create Kubernetes client: open ${path}: no such file or directory`,
        );
      }
      return await data.clientFor(parseKubeconfig(utf8(raw), path));
    }),
    async clientFor(kubeconfig) {
      const params = await connectionFromKubeconfig(kubeconfig, { files: input.files });
      // Every call is retried for timeouts.kubernetesAPICall, as upstream's are, and a request
      // may take that long too (upstream's requests have no deadline of their own): with a
      // thousand nodes joining at once, answers took over 30s, the transport's default bound.
      const apiCallMs = parseDuration(input.cfg.timeouts.kubernetesAPICall);
      return new KubeClient({
        server: params.server,
        transport: await (input.ports.clientTransportFor ?? input.ports.transportFor)(
          params,
          { timeoutMs: apiCallMs },
        ),
        clock: input.clock,
        sleep: input.sleep,
        retry: { timeoutMs: apiCallMs },
      });
    },
    nodeContext: once(async () => ({
      cfg: await data.initCfg(),
      files: input.files,
      out: input.out,
      clock: input.clock,
      random: input.random,
      crypto: input.crypto,
      startTime: data.startTime,
      keys: keyPoolFor(data),
      kubeconfigDir: input.kubeconfigDir,
      manifestDir: input.manifestDir,
      patchesDir: input.patchesDir,
      host: input.host,
    })),
  };
  return data;
}

/** What token or file discovery takes, for the phases that discover the cluster. */
export const DISCOVERY_INPUTS = [
  "config",
  "discoveryFile",
  "discoveryToken",
  "caCertHashes",
  "unsafeSkipCAVerification",
  "tlsBootstrapToken",
  "token",
] as const satisfies readonly InputName[];

/** The positional argument of the phases that discover the cluster. */
export const API_SERVER_ENDPOINT = "[api-server-endpoint]";
