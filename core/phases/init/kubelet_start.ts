/**
 * `kubeadm init phase kubelet-start`: writes `/var/lib/kubelet/kubeadm-flags.env` and
 * `/var/lib/kubelet/config.yaml` (plus `instance-config.yaml` with the `NodeLocalCRISocket`
 * gate), all mode 0644, then (re)starts the kubelet through a hook the runtime supplies.
 *
 * @module
 */
import { Feature, featureEnabled } from "../../config/features.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import {
  KUBELET_CONFIG_FILE,
  KUBELET_ENV_FILE,
  KUBELET_INSTANCE_CONFIG_FILE,
} from "../../constants.ts";
import {
  kubeletConfigFileContent,
  kubeletInstanceConfigContent,
} from "../../kubelet/config_file.ts";
import { kubeletFlagsEnv } from "../../kubelet/flags_env.ts";
import { pauseImage } from "../../manifests/images.ts";
import { patchManagerFor } from "../../patches/patch_manager.ts";
import type { InitData } from "./data.ts";

/** Service-manager hooks; without them the phase only writes files. */
export interface KubeletStartHooks {
  /** Stops the kubelet before its files change (upstream `TryStopKubelet`; silent). */
  stopKubelet?: () => Promise<void>;
  /** (Re)starts the kubelet after the files are written. */
  restartKubelet?: () => Promise<void>;
}

/** True when the `NodeLocalCRISocket` feature gate is on. */
export function nodeLocalCRISocketEnabled(data: InitData): boolean {
  return featureEnabled(data.cfg.cluster.featureGates, Feature.NodeLocalCRISocket);
}

function wrap(message: string, e: unknown): KubeadmError {
  return new KubeadmError(`${message}: ${errorMessage(e)}`, {
    cause: e,
    hint: e instanceof KubeadmError ? e.hint : undefined,
  });
}

/** Writes the kubelet's flags and configuration files, then runs the restart hook if given. */
export async function runKubeletStart(
  data: InitData,
  hooks: KubeletStartHooks = {},
): Promise<void> {
  const { cfg } = data;
  const localCRISocket = nodeLocalCRISocketEnabled(data);
  if (!data.dryRun && hooks.stopKubelet) await hooks.stopKubelet();

  try {
    data.out.info(
      `[kubelet-start] Writing kubelet environment file with flags to file ${
        JSON.stringify(KUBELET_ENV_FILE)
      }`,
    );
    await data.files.write({
      path: KUBELET_ENV_FILE,
      data: kubeletFlagsEnv({
        nodeRegistration: cfg.init.nodeRegistration,
        pauseImage: pauseImage(cfg.cluster),
        hostname: data.host.hostname,
        registerTaintsUsingFlags: false,
        nodeLocalCRISocket: localCRISocket,
      }),
      mode: 0o644,
      kind: "env",
    });
  } catch (e) {
    throw wrap("error writing a dynamic environment file for the kubelet", e);
  }

  let instanceConfig: string | undefined;
  if (localCRISocket) {
    instanceConfig = kubeletInstanceConfigContent(cfg.init.nodeRegistration.criSocket);
    try {
      data.out.info(
        `[kubelet-start] Writing kubelet configuration to file ${
          JSON.stringify(KUBELET_INSTANCE_CONFIG_FILE)
        }`,
      );
      await data.files.write({
        path: KUBELET_INSTANCE_CONFIG_FILE,
        data: instanceConfig,
        mode: 0o644,
        kind: "kubelet-config",
      });
    } catch (e) {
      throw wrap("error writing instance kubelet configuration to disk", e);
    }
  }

  try {
    const out = (line: string) => data.out.info(line);
    const patches = data.patchesDir
      ? await patchManagerFor(data.files, data.patchesDir, out)
      : undefined;
    let content: string;
    try {
      content = kubeletConfigFileContent(cfg.kubelet, { patches, instanceConfig, out });
    } catch (e) {
      throw wrap("could not apply patches to the KubeletConfiguration", e);
    }
    data.out.info(
      `[kubelet-start] Writing kubelet configuration to file ${
        JSON.stringify(KUBELET_CONFIG_FILE)
      }`,
    );
    await data.files.write({
      path: KUBELET_CONFIG_FILE,
      data: content,
      mode: 0o644,
      kind: "kubelet-config",
    });
  } catch (e) {
    throw wrap("error writing kubelet configuration to disk", e);
  }

  if (!data.dryRun && hooks.restartKubelet) {
    data.out.info("[kubelet-start] Starting the kubelet");
    await hooks.restartKubelet();
  }
}
