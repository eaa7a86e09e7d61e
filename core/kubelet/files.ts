/**
 * Writing the kubelet's three kubeadm-managed files — `kubeadm-flags.env`,
 * `instance-config.yaml` and `config.yaml` — with upstream's log lines, modes and error
 * wording. Shared by `init` and `join`'s kubelet-start phases.
 *
 * @module
 */
import {
  KUBELET_CONFIG_FILE,
  KUBELET_ENV_FILE,
  KUBELET_INSTANCE_CONFIG_FILE,
} from "../constants.ts";
import type { KubeletConfiguration } from "../config/types.ts";
import { nodeKubeletConfiguration } from "../config/kubelet_config.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { FileSystem } from "../ports/files.ts";
import type { Printer } from "../ports/printer.ts";
import { patchManagerFor } from "../patches/patch_manager.ts";
import { kubeletConfigFileContent, kubeletInstanceConfigContent } from "./config_file.ts";
import { kubeletFlagsEnv, type KubeletFlagsOptions } from "./flags_env.ts";

/** Wraps an error as upstream does: `<message>: <cause>`, keeping the cause's hint. */
export function wrapKubeletError(message: string, e: unknown): KubeadmError {
  return new KubeadmError(`${message}: ${errorMessage(e)}`, {
    cause: e,
    hint: e instanceof KubeadmError ? e.hint : undefined,
  });
}

/** Writes `/var/lib/kubelet/kubeadm-flags.env` (mode 0644). */
export async function writeKubeletEnvFile(
  files: FileSystem,
  out: Printer,
  flags: KubeletFlagsOptions,
): Promise<void> {
  const data = kubeletFlagsEnv({ ...flags, log: out.log });
  out.info(
    `[kubelet-start] Writing kubelet environment file with flags to file ${
      JSON.stringify(KUBELET_ENV_FILE)
    }`,
  );
  await files.write({
    path: KUBELET_ENV_FILE,
    data,
    mode: 0o644,
    kind: "env",
  })
    .catch((e) => {
      throw wrapKubeletError("error writing a dynamic environment file for the kubelet", e);
    });
}

/** Writes `/var/lib/kubelet/instance-config.yaml` (mode 0644) and returns its content. */
export async function writeKubeletInstanceConfig(
  files: FileSystem,
  out: Printer,
  criSocket: string,
): Promise<string> {
  const content = kubeletInstanceConfigContent(criSocket);
  out.info(
    `[kubelet-start] Writing kubelet configuration to file ${
      JSON.stringify(KUBELET_INSTANCE_CONFIG_FILE)
    }`,
  );
  await files.write({
    path: KUBELET_INSTANCE_CONFIG_FILE,
    data: content,
    mode: 0o644,
    kind: "kubelet-config",
  }).catch((e) => {
    throw wrapKubeletError("error writing instance kubelet configuration to disk", e);
  });
  return content;
}

/**
 * Writes `/var/lib/kubelet/config.yaml` (mode 0644): this node's copy of the cluster
 * KubeletConfiguration (`nodeKubeletConfiguration`: systemd-resolved), after the
 * `kubeletconfiguration` patches of `patchesDir`, merged with the instance config.
 */
export async function writeKubeletConfigFile(
  files: FileSystem,
  out: Printer,
  cluster: KubeletConfiguration,
  opts: { patchesDir?: string; instanceConfig?: string; systemdResolvedActive?: boolean },
): Promise<void> {
  const node = nodeKubeletConfiguration(cluster, opts);
  for (const w of node.warnings) out.warn(w);
  const kubelet = node.config;
  const log = (line: string) => out.info(line);
  const patches = opts.patchesDir ? await patchManagerFor(files, opts.patchesDir, log) : undefined;
  let content: string;
  try {
    content = kubeletConfigFileContent(kubelet, {
      patches,
      instanceConfig: opts.instanceConfig,
      out: log,
    });
  } catch (e) {
    throw wrapKubeletError("could not apply patches to the KubeletConfiguration", e);
  }
  out.info(
    `[kubelet-start] Writing kubelet configuration to file ${JSON.stringify(KUBELET_CONFIG_FILE)}`,
  );
  await files.write({
    path: KUBELET_CONFIG_FILE,
    data: content,
    mode: 0o644,
    kind: "kubelet-config",
  });
}
