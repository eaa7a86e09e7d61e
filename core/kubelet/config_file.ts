/**
 * `/var/lib/kubelet/config.yaml` and `/var/lib/kubelet/instance-config.yaml` (upstream
 * `phases/kubelet/config.go`).
 *
 * `config.yaml` is the cluster KubeletConfiguration with this node's own adjustments (the
 * systemd-resolved `resolvConf`, which never reaches the cluster-wide `kubelet-config`), the
 * `kubeletconfiguration` patches of `--patches`, and the per-node `instance-config.yaml` merged
 * over it as one more strategic merge patch.
 *
 * @module
 */
import type { KubeletConfiguration } from "../config/types.ts";
import type { PatchOutput } from "../patches/patch_manager.ts";
import { parsePatchDocuments, PatchManager } from "../patches/patch_manager.ts";
import { PatchType } from "../patches/patch_file_name.ts";
import { kubeletConfigurationSchema } from "../patches/patch_schemas.ts";
import { toKubeYaml } from "../yaml/kube_yaml.ts";
import type { JsonValue } from "../patches/json_value.ts";
import { BoundedMemo } from "../text/bounded_memo.ts";
import { goQuote } from "../text/go_quote.ts";

/** Patch target name of the KubeletConfiguration. */
export const KUBELET_CONFIGURATION_TARGET = "kubeletconfiguration";

/** Content of `instance-config.yaml`: `containerRuntimeEndpoint: "<criSocket>"`. */
export function kubeletInstanceConfigContent(criSocket: string): string {
  return `containerRuntimeEndpoint: ${goQuote(criSocket)}\n`;
}

/** How {@link kubeletConfigFileContent} patches the configuration. */
export interface KubeletConfigFileOptions {
  /** The `--patches` manager, when a patches directory is set. */
  patches?: PatchManager;
  /** Content of `instance-config.yaml`, merged last. */
  instanceConfig?: string;
  /** Receives `[patches] Applied patch ...` lines of the instance-config merge. */
  out?: PatchOutput;
}

/**
 * `instance-config.yaml` contents parsed as patches, by text: a node's is the same on every run
 * (its CRI endpoint), so it is parsed once, and each run gets its own copy.
 */
const instancePatches = new BoundedMemo<JsonValue[]>(16);

function instanceConfigPatches(text: string): JsonValue[] {
  return structuredClone(
    instancePatches.get(text) ??
      instancePatches.set(text, parsePatchDocuments(text, "instance-config.yaml")),
  );
}

/** Content of `config.yaml`: the (patched) KubeletConfiguration as YAML. */
export function kubeletConfigFileContent(
  kubelet: KubeletConfiguration,
  opts: KubeletConfigFileOptions = {},
): string {
  let doc: unknown = kubelet;
  if (opts.patches) {
    doc = opts.patches.apply(KUBELET_CONFIGURATION_TARGET, doc, kubeletConfigurationSchema);
  }
  if (opts.instanceConfig !== undefined) {
    const instance = new PatchManager(
      [{
        file: "instance-config.yaml",
        target: KUBELET_CONFIGURATION_TARGET,
        patchType: PatchType.strategic,
        patches: instanceConfigPatches(opts.instanceConfig),
      }],
      [KUBELET_CONFIGURATION_TARGET],
      opts.out,
    );
    doc = instance.apply(KUBELET_CONFIGURATION_TARGET, doc, kubeletConfigurationSchema);
  }
  return toKubeYaml(doc);
}
