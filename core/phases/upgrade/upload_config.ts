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
import type { UpgradeData } from "./data.ts";

/** `upload-config/kubeadm`. */
export async function runUploadKubeadmConfig(d: UpgradeData): Promise<void> {
  if (d.settings.dryRun) {
    d.out.info("[dryrun] Would upload the kubeadm ClusterConfiguration to a ConfigMap");
    return;
  }
  d.out.log?.(
    1,
    "upload_config.ts",
    "[upgrade/upload-config] Uploading the kubeadm ClusterConfiguration to a ConfigMap",
  );
  try {
    await uploadKubeadmConfig(d.client, clusterConfigurationForUpload(d.cfg.cluster), d.out);
  } catch (e) {
    throw new KubeadmError(`error uploading the kubeadm ClusterConfiguration: ${errorMessage(e)}`, {
      cause: e,
    });
  }
}

/** `upload-config/kubelet`. */
export async function runUploadKubeletConfig(d: UpgradeData): Promise<void> {
  if (d.settings.dryRun) {
    d.out.info("[dryrun] Would upload the kubelet configuration to a ConfigMap");
    d.out.info("[dryrun] Would write the CRISocket annotation for the control-plane node");
    return;
  }
  d.out.log?.(
    1,
    "upload_config.ts",
    "[upgrade/upload-config] Uploading the kubelet configuration to a ConfigMap",
  );
  try {
    await uploadKubeletConfig(d.client, {
      kubeletConfigurationYaml: kubeletConfigurationForUpload(d),
      userSupplied: d.cfg.userSupplied.kubelet,
      crypto: d.crypto,
    }, d.out);
  } catch (e) {
    throw new KubeadmError(`error creating kubelet configuration ConfigMap: ${errorMessage(e)}`, {
      cause: e,
    });
  }
}
