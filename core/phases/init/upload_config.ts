/**
 * `kubeadm init phase upload-config`: `kubeadm` stores the ClusterConfiguration (secrets and
 * node-specific data excluded) in `kube-system/kubeadm-config`; `kubelet` stores the cluster
 * KubeletConfiguration in `kube-system/kubelet-config`, with their read RBAC.
 *
 * @module
 */
import { uploadKubeadmConfig, uploadKubeletConfig } from "../../cluster/upload_config.ts";
import { clusterConfigurationForUpload } from "../../config/print.ts";
import { toKubeYaml } from "../../yaml/kube_yaml.ts";
import { clusterClient } from "./cluster_access.ts";
import type { InitData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** The KubeletConfiguration as uploaded: the node's own serving certificate fields cleared. */
export function kubeletConfigurationForUpload(data: Pick<InitData, "cfg">): string {
  const kubelet: Record<string, unknown> = structuredClone(data.cfg.kubelet);
  delete kubelet.tlsCertFile;
  delete kubelet.tlsPrivateKeyFile;
  return toKubeYaml(kubelet);
}

/** `upload-config/kubeadm`. */
export async function runUploadKubeadmConfig(data: InitData): Promise<void> {
  data.out.log?.(
    1,
    "upload_config.ts",
    "[upload-config] Uploading the kubeadm ClusterConfiguration to a ConfigMap",
  );
  const client = await clusterClient(data.cluster);
  await uploadKubeadmConfig(client, clusterConfigurationForUpload(data.cfg.cluster), data.out);
}

/** `upload-config/kubelet`. */
export async function runUploadKubeletConfig(data: InitData): Promise<void> {
  data.out.log?.(
    1,
    "upload_config.ts",
    "[upload-config] Uploading the kubelet component config to a ConfigMap",
  );
  const client = await clusterClient(data.cluster);
  await uploadKubeletConfig(client, {
    kubeletConfigurationYaml: kubeletConfigurationForUpload(data),
    userSupplied: data.cfg.userSupplied.kubelet,
    crypto: data.crypto,
  }, data.out);
}

/** Upstream's `--kubeconfig` phases talk to the cluster through it. */
const INPUTS = ["config", "dryRun", "kubeconfig", "criSocket"] as const;

/** `init phase upload-config`: the kubeadm and kubelet configurations' ConfigMaps. */
export const uploadConfigPhase: Phase<InitData> = {
  name: "upload-config",
  aliases: ["uploadconfig"],
  short: "Upload the kubeadm and kubelet configuration to a ConfigMap",
  phases: [
    {
      name: "all",
      short: "Upload all configuration to a config map",
      runAllSiblings: true,
      inputs: INPUTS,
    },
    {
      name: "kubeadm",
      short: "Upload the kubeadm ClusterConfiguration to a ConfigMap",
      run: runUploadKubeadmConfig,
      inputs: INPUTS,
    },
    {
      name: "kubelet",
      short: "Upload the kubelet component config to a ConfigMap",
      run: runUploadKubeletConfig,
      inputs: INPUTS,
    },
  ],
};
