/**
 * `kubeadm init phase kubelet-start`: writes `/var/lib/kubelet/kubeadm-flags.env` and
 * `/var/lib/kubelet/config.yaml` (plus `instance-config.yaml` with the `NodeLocalCRISocket`
 * gate), all mode 0644, then (re)starts the kubelet through a hook the runtime supplies.
 *
 * @module
 */
import { Feature, featureEnabled } from "../../config/features.ts";
import {
  wrapKubeletError,
  writeKubeletConfigFile,
  writeKubeletEnvFile,
  writeKubeletInstanceConfig,
} from "../../kubelet/files.ts";
import { pauseImage } from "../../manifests/images.ts";
import { kubeletControl } from "../../kubelet/service.ts";
import type { InitData } from "./data.ts";

/** Service-manager hooks; without them the phase only writes files. */
export interface KubeletStartHooks {
  /** Stops the kubelet before its files change (upstream `TryStopKubelet`; silent). */
  stopKubelet?: () => Promise<void>;
  /** (Re)starts the kubelet after the files are written. */
  restartKubelet?: () => Promise<void>;
}

function kubeletHooks(data: InitData): KubeletStartHooks {
  if (!data.node) return {};
  const kubelet = kubeletControl(data.node, data.out);
  return { stopKubelet: kubelet.stop, restartKubelet: kubelet.restart };
}

/** True when the `NodeLocalCRISocket` feature gate is on. */
export function nodeLocalCRISocketEnabled(data: InitData): boolean {
  return featureEnabled(data.cfg.cluster.featureGates, Feature.NodeLocalCRISocket);
}

/**
 * Writes the kubelet's flags and configuration files, then (re)starts the kubelet through
 * `hooks`: by default the node's kubelet service; without a node only the files are written.
 */
export async function runKubeletStart(
  data: InitData,
  hooks: KubeletStartHooks = kubeletHooks(data),
): Promise<void> {
  const { cfg } = data;
  const localCRISocket = nodeLocalCRISocketEnabled(data);
  if (!data.dryRun && hooks.stopKubelet) await hooks.stopKubelet();

  await writeKubeletEnvFile(data.files, data.out, {
    nodeRegistration: cfg.init.nodeRegistration,
    pauseImage: pauseImage(cfg.cluster),
    hostname: data.host.hostname,
    registerTaintsUsingFlags: false,
    nodeLocalCRISocket: localCRISocket,
  });
  const instanceConfig = localCRISocket
    ? await writeKubeletInstanceConfig(data.files, data.out, cfg.init.nodeRegistration.criSocket)
    : undefined;
  await writeKubeletConfigFile(data.files, data.out, cfg.kubelet, {
    patchesDir: data.patchesDir,
    instanceConfig,
  }).catch((e) => {
    throw wrapKubeletError("error writing kubelet configuration to disk", e);
  });

  if (!data.dryRun && hooks.restartKubelet) {
    data.out.info("[kubelet-start] Starting the kubelet");
    await hooks.restartKubelet();
  }
}
