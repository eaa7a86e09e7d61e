/**
 * `upgrade apply phase upload-config` (upstream `cmd/phases/upgrade/apply/uploadconfig.go`):
 * the upgraded ClusterConfiguration to `kube-system/kubeadm-config` and the cluster's
 * KubeletConfiguration to `kube-system/kubelet-config`, as `init` uploads them. The Node's
 * CRI-socket annotation is never touched (upstream's `--dry-run` still says it would write it).
 *
 * @module
 */
import { uploadKubeadmConfig, uploadKubeletConfig } from "../../cluster/upload_config.ts";
import { clusterConfigurationForUpload } from "../../config/print.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import { kubeletConfigurationForUpload } from "../init/upload_config.ts";
import { BASE_INPUTS, type UpgradeData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** `upload-config/kubeadm`. */
export async function runUploadKubeadmConfig(data: UpgradeData): Promise<void> {
  if (data.settings.dryRun) {
    data.out.info("[dryrun] Would upload the kubeadm ClusterConfiguration to a ConfigMap");
    return;
  }
  data.out.log?.(
    1,
    "upload_config.ts",
    "[upgrade/upload-config] Uploading the kubeadm ClusterConfiguration to a ConfigMap",
  );
  try {
    await uploadKubeadmConfig(
      data.client,
      clusterConfigurationForUpload(data.cfg.cluster),
      data.out,
    );
  } catch (e) {
    throw new KubeadmError(`error uploading the kubeadm ClusterConfiguration: ${errorMessage(e)}`, {
      cause: e,
    });
  }
}

/** `upload-config/kubelet`. */
export async function runUploadKubeletConfig(data: UpgradeData): Promise<void> {
  if (data.settings.dryRun) {
    data.out.info("[dryrun] Would upload the kubelet configuration to a ConfigMap");
    data.out.info("[dryrun] Would write the CRISocket annotation for the control-plane node");
    return;
  }
  data.out.log?.(
    1,
    "upload_config.ts",
    "[upgrade/upload-config] Uploading the kubelet configuration to a ConfigMap",
  );
  try {
    await uploadKubeletConfig(data.client, {
      kubeletConfigurationYaml: kubeletConfigurationForUpload(data),
      userSupplied: data.cfg.userSupplied.kubelet,
      crypto: data.crypto,
    }, data.out);
  } catch (e) {
    throw new KubeadmError(`error creating kubelet configuration ConfigMap: ${errorMessage(e)}`, {
      cause: e,
    });
  }
}

/** `upgrade apply phase upload-config`. */
export const uploadConfigPhase: Phase<UpgradeData> = {
  name: "upload-config",
  aliases: ["uploadconfig"],
  short: "Upload the kubeadm and kubelet configurations to ConfigMaps",
  phases: [
    {
      name: "all",
      short: "Upload all the configurations to ConfigMaps",
      runAllSiblings: true,
      inputs: BASE_INPUTS,
    },
    {
      name: "kubeadm",
      short: "Upload the kubeadm ClusterConfiguration to a ConfigMap",
      run: runUploadKubeadmConfig,
      inputs: BASE_INPUTS,
    },
    {
      name: "kubelet",
      short: "Upload the kubelet configuration to a ConfigMap",
      run: runUploadKubeletConfig,
      inputs: BASE_INPUTS,
    },
  ],
};
