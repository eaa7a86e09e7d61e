/**
 * `kubeadm init phase kubelet-start`: writes `/var/lib/kubelet/kubeadm-flags.env`,
 * `instance-config.yaml` (the CRI socket) and `config.yaml`, all mode 0644, in upstream's
 * order, then (re)starts the kubelet through a hook the runtime supplies.
 *
 * @module
 */
import {
  wrapKubeletError,
  writeKubeletConfigFile,
  writeKubeletEnvFile,
  writeKubeletInstanceConfig,
} from "../../kubelet/files.ts";
import { kubeletControl } from "../../kubelet/service.ts";
import type { InitData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

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

/**
 * Writes the kubelet's flags and configuration files, then (re)starts the kubelet through
 * `hooks`: by default the node's kubelet service; without a node only the files are written.
 */
export async function runKubeletStart(
  data: InitData,
  hooks: KubeletStartHooks = kubeletHooks(data),
): Promise<void> {
  const { cfg } = data;
  if (!data.dryRun) {
    data.out.log?.(1, "kubelet_start.ts", "Stopping the kubelet");
    await hooks.stopKubelet?.();
  }

  await writeKubeletEnvFile(data.files, data.out, {
    nodeRegistration: cfg.init.nodeRegistration,
    hostname: data.host.hostname,
    registerTaintsUsingFlags: false,
  });
  const instanceConfig = await writeKubeletInstanceConfig(
    data.files,
    data.out,
    cfg.init.nodeRegistration.criSocket,
  );
  await writeKubeletConfigFile(data.files, data.out, cfg.kubelet, {
    patchesDir: data.patchesDir,
    instanceConfig,
    systemdResolvedActive: data.host.systemdResolvedActive,
  }).catch((e) => {
    throw wrapKubeletError("error writing kubelet configuration to disk", e);
  });

  if (!data.dryRun && hooks.restartKubelet) {
    data.out.info("[kubelet-start] Starting the kubelet");
    await hooks.restartKubelet();
  }
}

/** `init phase kubelet-start`. */
export const kubeletStartPhase: Phase<InitData> = {
  name: "kubelet-start",
  short: "Write kubelet settings and (re)start the kubelet",
  run: (data) => runKubeletStart(data),
  inputs: ["config", "criSocket", "dryRun", "imageRepository", "nodeName", "patchesDir"],
};
