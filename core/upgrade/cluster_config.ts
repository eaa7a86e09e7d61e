/**
 * The configuration an upgrade works with (upstream `FetchInitConfigurationFromCluster` with
 * the node's registration and, on control-plane nodes, its API endpoint): the cluster's
 * ClusterConfiguration and component configs from `kube-system`, this node's name (the client
 * certificate of `kubelet.conf`, else the hostname), taints (its Node object), CRI socket
 * (`instance-config.yaml`, else the default with a warning) and, on a control-plane node, the
 * advertise address and port its kube-apiserver Pod announces.
 *
 * @module
 */
import type { Node, Pod } from "kubernetes-types/core/v1.d.ts";
import {
  API_SERVER_ENDPOINT_ANNOTATION,
  Component,
  DEFAULT_CRI_SOCKET,
  KUBELET_INSTANCE_CONFIG_FILE,
  MANIFESTS_DIR,
} from "../constants.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { FileReader, NodeFiles } from "../ports/files.ts";
import type { Printer } from "../ports/printer.ts";
import type { RandomSource } from "../ports/random.ts";
import { utf8 } from "../text/utf8.ts";
import type { KubeClient } from "../kube/client.ts";
import { API_CALL_RETRY_INTERVAL_MS, poll } from "../kube/retry.ts";
import { isNotFound } from "../kube/status.ts";
import { parseKubeconfig } from "../kubeconfig/kubeconfig.ts";
import { connectionFromKubeconfig } from "../kube/kubeconfig_connection.ts";
import { parseCertificatesPEM } from "../pki/cert.ts";
import { parseHostPort } from "../net/host_port.ts";
import { parseKubeYamlOne } from "../yaml/kube_yaml.ts";
import {
  fetchClusterConfigDocuments,
  type NodeConfigHost,
  resolveClusterDocuments,
} from "../config/cluster_config.ts";

/** Whether this node runs a control plane (upstream `IsControlPlaneNode`): its kube-apiserver manifest exists. */
export function isControlPlaneNode(files: NodeFiles): Promise<boolean> {
  return files.exists(`${MANIFESTS_DIR}/${Component.apiServer}.yaml`);
}

/** The `system:node:` prefix of a kubelet's user name. */
const NODE_USER_PREFIX = "system:node:";

/**
 * This node's name (upstream `GetNodeName`): the CN of `kubelet.conf`'s client certificate
 * without `system:node:`, else `hostname`.
 */
export async function nodeNameFromKubeletConf(
  files: FileReader,
  kubeletConf: string,
  hostname: string,
): Promise<string> {
  try {
    const raw = await files.read(kubeletConf);
    if (raw === undefined) return hostname;
    const params = await connectionFromKubeconfig(parseKubeconfig(utf8(raw), kubeletConf), {
      files,
    });
    if (!params.certPem) return hostname;
    const cn = parseCertificatesPEM(params.certPem)[0]?.subject.commonName ?? "";
    return cn.startsWith(NODE_USER_PREFIX) ? cn.slice(NODE_USER_PREFIX.length) : hostname;
  } catch {
    return hostname;
  }
}

/** The CRI socket `instance-config.yaml` names, or `undefined` when the file is absent. */
export async function instanceConfigCRISocket(files: FileReader): Promise<string | undefined> {
  const raw = await files.read(KUBELET_INSTANCE_CONFIG_FILE);
  if (raw === undefined) return undefined;
  const doc = parseKubeYamlOne(utf8(raw), KUBELET_INSTANCE_CONFIG_FILE) as
    | { containerRuntimeEndpoint?: string }
    | null;
  return doc?.containerRuntimeEndpoint ?? "";
}

/** The advertise address and port this node's kube-apiserver Pod announces. */
export async function apiEndpointFromPod(
  client: KubeClient,
  nodeName: string,
  timeoutMs: number,
): Promise<{ advertiseAddress: string; bindPort: number }> {
  const once = client.withRetry({ timeoutMs: 0 });
  let raw: string;
  try {
    raw = await poll<string>(async (window) => {
      try {
        const pods = await once.list<Pod>("Pod", {
          namespace: "kube-system",
          fieldSelector: `spec.nodeName=${nodeName}`,
          labelSelector: "component=kube-apiserver,tier=control-plane",
        }, window.limits());
        if (pods.length !== 1) {
          return {
            done: false,
            error: new KubeadmError(
              `API server pod for node name ${
                JSON.stringify(nodeName)
              } has ${pods.length} entries, only one was expected`,
            ),
          };
        }
        const v = pods[0].metadata?.annotations?.[API_SERVER_ENDPOINT_ANNOTATION];
        if (!v) {
          return {
            done: false,
            error: new KubeadmError(
              `API server pod for node name ${JSON.stringify(nodeName)} hasn't got a ${
                JSON.stringify(API_SERVER_ENDPOINT_ANNOTATION)
              } annotation, cannot retrieve API endpoint`,
            ),
          };
        }
        return { done: true, value: v };
      } catch (e) {
        return {
          done: false,
          error: new KubeadmError(
            `could not retrieve list of pods to determine api server endpoints: ${errorMessage(e)}`,
          ),
        };
      }
    }, { ...once.timing, intervalMs: API_CALL_RETRY_INTERVAL_MS, timeoutMs });
  } catch (e) {
    throw new KubeadmError(
      `failed to getAPIEndpoint: could not retrieve API endpoints for node ${
        JSON.stringify(nodeName)
      } using pod annotations: ${errorMessage(e)}`,
      { cause: e },
    );
  }
  const { host, port } = parseHostPort(raw);
  const bindPort = Number(port);
  if (!host || !Number.isInteger(bindPort)) {
    throw new KubeadmError(
      `failed to getAPIEndpoint: could not parse API endpoint for node ${JSON.stringify(nodeName)}`,
    );
  }
  return { advertiseAddress: host, bindPort };
}

/** What {@link fetchUpgradeConfig} needs. */
export interface FetchUpgradeConfigInput {
  client: KubeClient;
  /** The node's files (`kubelet.conf`, `instance-config.yaml`). */
  files: FileReader;
  out: Printer;
  /** Prefix of upstream's `[<prefix>] Reading configuration …` lines. */
  logPrefix: string;
  /** `/etc/kubernetes/kubelet.conf`. */
  kubeletConf: string;
  /** Read this node's API endpoint from its kube-apiserver Pod (control-plane nodes). */
  controlPlane: boolean;
  host: NodeConfigHost;
  random: RandomSource;
  /** Bound of the endpoint lookup (`timeouts.kubernetesAPICall`). */
  apiCallTimeoutMs: number;
  /**
   * Read the component configs too (default); `upgrade diff` does not, and uses their
   * defaults.
   */
  componentConfigs?: boolean;
}

/** The cluster's configuration for this node, as the upgrade commands use it. */
export async function fetchUpgradeConfig(input: FetchUpgradeConfigInput): Promise<ResolvedConfig> {
  const { client, files, out } = input;
  const docs = await fetchClusterConfigDocuments(
    client,
    out,
    input.logPrefix,
    input.componentConfigs ?? true,
  );
  const name = await nodeNameFromKubeletConf(files, input.kubeletConf, input.host.hostname);
  let node: Node;
  try {
    node = await client.get<Node>({ kind: "Node", name });
  } catch (e) {
    throw new KubeadmError(
      `failed to get node registration: failed to get corresponding node: ${errorMessage(e)}`,
      {
        cause: e,
        hint: isNotFound(e) ? `is ${name} the name this node registered with?` : undefined,
      },
    );
  }
  let criSocket = await instanceConfigCRISocket(files);
  if (criSocket === undefined) {
    out.warn(
      `Node ${JSON.stringify(name)} lacks a kubelet instance config file ${
        JSON.stringify(KUBELET_INSTANCE_CONFIG_FILE)
      }; falling back to default ${JSON.stringify(DEFAULT_CRI_SOCKET)}`,
    );
    criSocket = DEFAULT_CRI_SOCKET;
  }
  const endpoint = input.controlPlane
    ? await apiEndpointFromPod(client, name, input.apiCallTimeoutMs)
    : undefined;
  const config = resolveClusterDocuments(
    docs,
    {
      nodeRegistration: { name, criSocket, taints: node.spec?.taints ?? [] },
      ...(endpoint ? { localAPIEndpoint: endpoint } : {}),
    },
    {
      ...input.host,
      hostname: name,
      defaultAdvertiseAddress: endpoint?.advertiseAddress ?? input.host.defaultAdvertiseAddress,
    },
    input.random,
    out.log,
  );
  return config;
}
