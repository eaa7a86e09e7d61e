/**
 * The `upload-config` phase's objects: the `kubeadm-config` ConfigMap with the
 * ClusterConfiguration, the `kubelet-config` ConfigMap with the KubeletConfiguration, the Roles
 * and RoleBindings that let joining nodes read them, and the CRI-socket annotation on this
 * node (upstream `phases/uploadconfig`, `phases/kubelet/config.go`, `phases/patchnode`).
 *
 * @module
 */
import type { Hashing } from "../ports/crypto.ts";
import type { ConfigMap } from "kubernetes-types/core/v1.d.ts";
import type { Role, RoleBinding } from "kubernetes-types/rbac/v1.d.ts";
import { Identity } from "../constants.ts";
import type { Printer } from "../ports/printer.ts";
import { type KubeClient, settledInOrder } from "../kube/client.ts";
import { signConfigMap } from "./component_config_hash.ts";
import { getOneObjectRole, groupSubject, roleBinding } from "./rbac.ts";

/** `kube-system`. */
export const KUBE_SYSTEM = "kube-system";
/** The ConfigMap holding the ClusterConfiguration. */
export const KUBEADM_CONFIG_CONFIGMAP = "kubeadm-config";
/** Its data key. */
export const CLUSTER_CONFIGURATION_KEY = "ClusterConfiguration";
/** Role and RoleBinding that let nodes read `kubeadm-config`. */
const NODES_KUBEADM_CONFIG_ROLE = "kubeadm:nodes-kubeadm-config";
/** The ConfigMap holding the cluster-wide KubeletConfiguration. */
export const KUBELET_CONFIG_CONFIGMAP = "kubelet-config";
/** Its data key. */
export const KUBELET_CONFIG_KEY = "kubelet";
/** Role and RoleBinding that let nodes read `kubelet-config`. */
const KUBELET_CONFIG_ROLE = "kubeadm:kubelet-config";

/** ConfigMap `kube-system/kubeadm-config` with the ClusterConfiguration YAML. */
function kubeadmConfigConfigMap(clusterConfigurationYaml: string): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: KUBEADM_CONFIG_CONFIGMAP, namespace: KUBE_SYSTEM },
    data: { [CLUSTER_CONFIGURATION_KEY]: clusterConfigurationYaml },
  };
}

/** Role `kube-system/kubeadm:nodes-kubeadm-config`: get configmap `kubeadm-config`. */
function kubeadmConfigRole(): Role {
  return getOneObjectRole(
    KUBE_SYSTEM,
    NODES_KUBEADM_CONFIG_ROLE,
    "configmaps",
    KUBEADM_CONFIG_CONFIGMAP,
  );
}

/** Its RoleBinding: the default bootstrap-token group, then `system:nodes`. */
function kubeadmConfigRoleBinding(): RoleBinding {
  return roleBinding(KUBE_SYSTEM, NODES_KUBEADM_CONFIG_ROLE, [
    groupSubject(Identity.bootstrapDefaultGroup),
    groupSubject(Identity.nodesGroup),
  ]);
}

/**
 * ConfigMap `kube-system/kubelet-config` with the KubeletConfiguration YAML; annotated with the
 * component-config checksum unless the user supplied the KubeletConfiguration.
 */
export async function kubeletConfigConfigMap(
  kubeletConfigurationYaml: string,
  userSupplied: boolean,
  crypto: Hashing,
): Promise<ConfigMap> {
  const cm: ConfigMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: KUBELET_CONFIG_CONFIGMAP, namespace: KUBE_SYSTEM },
    data: { [KUBELET_CONFIG_KEY]: kubeletConfigurationYaml },
  };
  return userSupplied ? cm : await signConfigMap(cm, crypto);
}

/** Role `kube-system/kubeadm:kubelet-config`: get configmap `kubelet-config`. */
function kubeletConfigRole(): Role {
  return getOneObjectRole(KUBE_SYSTEM, KUBELET_CONFIG_ROLE, "configmaps", KUBELET_CONFIG_CONFIGMAP);
}

/** Its RoleBinding: `system:nodes`, then the default bootstrap-token group. */
function kubeletConfigRoleBinding(): RoleBinding {
  return roleBinding(KUBE_SYSTEM, KUBELET_CONFIG_ROLE, [
    groupSubject(Identity.nodesGroup),
    groupSubject(Identity.bootstrapDefaultGroup),
  ]);
}

/**
 * `upload-config/kubeadm`: stores the ClusterConfiguration (create, or replace the data key of
 * the existing ConfigMap) and the Role/RoleBinding that expose it to nodes, the three at once.
 */
export async function uploadKubeadmConfig(
  client: KubeClient,
  clusterConfigurationYaml: string,
  out: Printer,
): Promise<void> {
  out.info(
    `[upload-config] Storing the configuration used in ConfigMap "${KUBEADM_CONFIG_CONFIGMAP}" in the "${KUBE_SYSTEM}" Namespace`,
  );
  await settledInOrder([
    client.createOrMutate(kubeadmConfigConfigMap(clusterConfigurationYaml), (cm) => {
      cm.data = { ...cm.data, [CLUSTER_CONFIGURATION_KEY]: clusterConfigurationYaml };
    }),
    client.createOrUpdateAll([kubeadmConfigRole(), kubeadmConfigRoleBinding()]),
  ]);
}

/** Input of {@link uploadKubeletConfig}. */
export interface UploadKubeletConfigInput {
  /** KubeletConfiguration YAML (TLS cert/key file fields already cleared, as upstream). */
  kubeletConfigurationYaml: string;
  /** Whether the user supplied the KubeletConfiguration (then it is not checksummed). */
  userSupplied: boolean;
  /** What computes the checksum. */
  crypto: Hashing;
}

/**
 * `upload-config/kubelet`: the `kubelet-config` ConfigMap and its Role/RoleBinding (kubeadm
 * v1.37 no longer annotates the Node with its CRI socket: it lives in `instance-config.yaml`).
 */
export async function uploadKubeletConfig(
  client: KubeClient,
  input: UploadKubeletConfigInput,
  out: Printer,
): Promise<void> {
  out.info(
    `[kubelet] Creating a ConfigMap "${KUBELET_CONFIG_CONFIGMAP}" in namespace ${KUBE_SYSTEM} with the configuration for the kubelets in the cluster`,
  );
  await client.createOrUpdateAll([
    await kubeletConfigConfigMap(input.kubeletConfigurationYaml, input.userSupplied, input.crypto),
    kubeletConfigRole(),
    kubeletConfigRoleBinding(),
  ]);
}
