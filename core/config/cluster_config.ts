/**
 * The cluster's configuration as a joining node sees it (upstream
 * `fetchInitConfigurationFromJoinConfiguration`): the ClusterConfiguration from
 * `kube-system/kubeadm-config`, the KubeletConfiguration from `kube-system/kubelet-config` and
 * the KubeProxyConfiguration from `kube-system/kube-proxy` (optional), read with the bootstrap
 * token identity, then defaulted as an init configuration for THIS node: its
 * `nodeRegistration` from the JoinConfiguration and, for control-plane joins, its
 * `localAPIEndpoint`.
 *
 * The KubeletConfiguration is kept exactly as stored in the cluster (upstream does not
 * re-default it), so every node gets the same `config.yaml`.
 *
 * @module
 */
import type { ConfigMap } from "kubernetes-types/core/v1.d.ts";
import type { ResolvedJoinConfig } from "./join.ts";
import { resolveInitConfig } from "./resolve.ts";
import { KUBEADM_API_VERSION, type KubeletConfiguration, type ResolvedConfig } from "./types.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { LogFn, Printer } from "../ports/printer.ts";
import type { RandomSource } from "../ports/random.ts";
import type { KubeClient } from "../kube/client.ts";
import { SHORT_RETRY_POLICY } from "../kube/retry.ts";
import { isForbidden, isNotFound } from "../kube/status.ts";
import { parseKubeYaml, toKubeYaml } from "../yaml/kube_yaml.ts";
import {
  CLUSTER_CONFIGURATION_KEY,
  KUBE_SYSTEM,
  KUBEADM_CONFIG_CONFIGMAP,
  KUBELET_CONFIG_CONFIGMAP,
  KUBELET_CONFIG_KEY,
} from "../cluster/upload_config.ts";

/** The kube-proxy ConfigMap and its key. */
const KUBE_PROXY_CONFIGMAP = "kube-proxy";
const KUBE_PROXY_CONFIG_KEY = "config.conf";

/** The raw documents read from the cluster. */
export interface ClusterConfigDocuments {
  /** `ClusterConfiguration` YAML from `kubeadm-config`. */
  clusterConfiguration: string;
  /** `kubelet` YAML from `kubelet-config` (absent when the component configs were not read). */
  kubelet?: string;
  /** `config.conf` YAML from `kube-proxy`, when readable. */
  kubeProxy?: string;
}

async function getConfigMap(client: KubeClient, name: string): Promise<ConfigMap> {
  return await client.withRetry(SHORT_RETRY_POLICY).get<ConfigMap>({
    kind: "ConfigMap",
    namespace: KUBE_SYSTEM,
    name,
  });
}

/** Upstream's `-v=1` line as a component config is read from its ConfigMap. */
export function logComponentConfigDownload(out: Printer, kind: string, configMap: string): void {
  out.log?.(
    1,
    "cluster_config.ts",
    `attempting to download the ${kind} from ConfigMap ${JSON.stringify(configMap)}`,
  );
}

/**
 * Reads the three ConfigMaps (only `kubeadm-config` without `componentConfigs`, as `upgrade
 * diff`); prints upstream's `[<logPrefix>] Reading configuration ...` lines (`preflight` for
 * join, `renew` / `check-expiration` for the certs commands).
 */
export async function fetchClusterConfigDocuments(
  client: KubeClient,
  out: Printer,
  logPrefix = "preflight",
  componentConfigs = true,
): Promise<ClusterConfigDocuments> {
  out.info(
    `[${logPrefix}] Reading configuration from the ${
      JSON.stringify(KUBEADM_CONFIG_CONFIGMAP)
    } ConfigMap in namespace ${JSON.stringify(KUBE_SYSTEM)}...`,
  );
  out.info(
    `[${logPrefix}] Use 'kubeadm init phase upload-config kubeadm --config your-config-file' to re-upload it.`,
  );
  let kubeadmConfig: ConfigMap;
  try {
    kubeadmConfig = await getConfigMap(client, KUBEADM_CONFIG_CONFIGMAP);
  } catch (e) {
    throw new KubeadmError(
      `unable to fetch the kubeadm-config ConfigMap: failed to get config map: ${errorMessage(e)}`,
      { cause: e },
    );
  }
  const clusterConfiguration = kubeadmConfig.data?.[CLUSTER_CONFIGURATION_KEY];
  if (clusterConfiguration === undefined) {
    throw new KubeadmError(
      `unable to fetch the kubeadm-config ConfigMap: unexpected error when reading kubeadm-config ConfigMap: ${CLUSTER_CONFIGURATION_KEY} key value pair missing`,
    );
  }
  if (!componentConfigs) return { clusterConfiguration };
  // Upstream's order of component configs: kube-proxy (optional), then the kubelet.
  let kubeProxyMap: ConfigMap | undefined;
  logComponentConfigDownload(out, "KubeProxyConfiguration", KUBE_PROXY_CONFIGMAP);
  try {
    kubeProxyMap = await getConfigMap(client, KUBE_PROXY_CONFIGMAP);
  } catch (e) {
    if (!isNotFound(e) && !isForbidden(e)) {
      throw new KubeadmError(
        `unable to fetch the kubeadm-config ConfigMap: failed to get component configs: could not download the kube-proxy configuration from ConfigMap ${
          JSON.stringify(KUBE_PROXY_CONFIGMAP)
        }: ${errorMessage(e)}`,
        { cause: e },
      );
    }
  }
  const kubeProxy = kubeProxyMap?.data?.[KUBE_PROXY_CONFIG_KEY];
  if (kubeProxyMap && kubeProxy === undefined) {
    throw new KubeadmError(
      `unable to fetch the kubeadm-config ConfigMap: failed to get component configs: could not download the kube-proxy configuration from ConfigMap ${
        JSON.stringify(KUBE_PROXY_CONFIGMAP)
      }: unexpected error when reading ${KUBE_PROXY_CONFIGMAP} ConfigMap: ${KUBE_PROXY_CONFIG_KEY} key value pair missing`,
    );
  }
  let kubelet: string | undefined;
  logComponentConfigDownload(out, "KubeletConfiguration", KUBELET_CONFIG_CONFIGMAP);
  try {
    kubelet = (await getConfigMap(client, KUBELET_CONFIG_CONFIGMAP)).data?.[KUBELET_CONFIG_KEY];
  } catch (e) {
    throw new KubeadmError(
      `unable to fetch the kubeadm-config ConfigMap: failed to get component configs: could not download the kubelet configuration from ConfigMap ${
        JSON.stringify(KUBELET_CONFIG_CONFIGMAP)
      }: ${errorMessage(e)}`,
      { cause: e },
    );
  }
  if (kubelet === undefined) {
    throw new KubeadmError(
      `unable to fetch the kubeadm-config ConfigMap: failed to get component configs: unexpected error when reading ${KUBELET_CONFIG_CONFIGMAP} ConfigMap: ${KUBELET_CONFIG_KEY} key value pair missing`,
    );
  }
  return { clusterConfiguration, kubelet, kubeProxy };
}

/** Host facts defaulting needs (hostname, default address). */
export interface NodeConfigHost {
  hostname: string;
  defaultAdvertiseAddress: string;
}

function documentOf(yaml: string, kind: string): Record<string, unknown> {
  const docs = parseKubeYaml(yaml, kind);
  const doc = docs.find((d) => (d.value as { kind?: string } | null)?.kind === kind) ?? docs[0];
  if (!doc || typeof doc.value !== "object" || doc.value === null) {
    throw new KubeadmError(`the ${kind} in the cluster is empty or not a mapping`);
  }
  return doc.value as Record<string, unknown>;
}

/**
 * The cluster's documents (ClusterConfiguration, KubeletConfiguration kept as stored,
 * KubeProxyConfiguration) resolved with an InitConfiguration document and the host's facts
 * (upstream `FetchInitConfigurationFromCluster`'s decoding and dynamic defaults). Without a
 * stored KubeletConfiguration, its defaults are used and logged to `log` as upstream's. Throws
 * when the cluster's configuration does not validate.
 */
export function resolveClusterDocuments(
  docs: ClusterConfigDocuments,
  init: Record<string, unknown>,
  host: NodeConfigHost,
  random: RandomSource,
  log?: LogFn,
): ResolvedConfig {
  const kubelet = docs.kubelet === undefined
    ? undefined
    : documentOf(docs.kubelet, "KubeletConfiguration") as KubeletConfiguration;
  const text = [
    toKubeYaml({ apiVersion: KUBEADM_API_VERSION, kind: "InitConfiguration", ...init }),
    docs.clusterConfiguration,
    ...(kubelet ? [toKubeYaml(kubelet)] : []),
    ...(docs.kubeProxy ? [docs.kubeProxy] : []),
  ].map((d) => d.replace(/\n*$/, "\n")).join("---\n");
  let config: ResolvedConfig;
  try {
    ({ config } = resolveInitConfig({
      text,
      source: "kubeadm-config",
      strict: false,
      fromCluster: true,
      host,
      random,
      log: kubelet ? undefined : log,
    }));
  } catch (e) {
    throw new KubeadmError(
      `unable to fetch the kubeadm-config ConfigMap: the cluster's configuration is invalid: ${
        errorMessage(e)
      }`,
      { cause: e },
    );
  }
  if (kubelet) config.kubelet = kubelet;
  return config;
}

/**
 * The init configuration of this node: the cluster's documents defaulted with this node's
 * registration and endpoint. Throws when the cluster's configuration does not validate.
 */
export function nodeInitConfig(
  docs: ClusterConfigDocuments,
  join: ResolvedJoinConfig,
  host: NodeConfigHost,
  random: RandomSource,
): ResolvedConfig {
  const config = resolveClusterDocuments(
    docs,
    {
      nodeRegistration: {
        name: join.nodeRegistration.name,
        criSocket: join.nodeRegistration.criSocket,
        taints: join.nodeRegistration.taints,
      },
      ...(join.controlPlane ? { localAPIEndpoint: join.controlPlane.localAPIEndpoint } : {}),
    },
    {
      hostname: join.nodeRegistration.name,
      defaultAdvertiseAddress: join.controlPlane?.localAPIEndpoint.advertiseAddress ??
        host.defaultAdvertiseAddress,
    },
    random,
  );
  // This node's registration is the JoinConfiguration's, as upstream injects it.
  config.init.nodeRegistration = { ...join.nodeRegistration };
  config.init.timeouts = { ...join.timeouts };
  return config;
}
