/**
 * `kubeadm config migrate`: read a configuration in an older supported API version (v1beta3)
 * or the current one, and write the equivalent v1beta4 documents.
 *
 * As upstream, every kubeadm document is fully loaded — converted, defaulted (including the
 * host-dependent defaults), validated — and re-serialized: Init/ClusterConfiguration,
 * JoinConfiguration, ResetConfiguration and (new in 1.37) UpgradeConfiguration, in that order. Component configs and documents of other groups are dropped.
 * Experimental `kubeadm.k8s.io/v1` input is read with `allowExperimental`; the output is always
 * v1beta4, as upstream's.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { RandomSource } from "../host/ports.ts";
import { loadConfigDocuments } from "./parse.ts";
import {
  marshalInitConfiguration,
  marshalResetConfiguration,
  marshalResolvedJoinConfiguration,
  YAML_DOCUMENT_SEPARATOR,
} from "./print.ts";
import { type InitHostFacts, resolveInitConfig } from "./resolve.ts";
import { applyUpgradeDefaults } from "./upgrade.ts";
import { resolveJoinConfig } from "./join.ts";
import { applyResetDefaults, validateResetConfiguration } from "./reset.ts";
import { toKubeYaml } from "../yaml/kube_yaml.ts";

export {
  argsFromMap,
  convertClusterConfiguration,
  convertInitConfiguration,
  convertJoinConfiguration,
} from "./convert_v1beta3.ts";

/** Input of {@link migrateConfig}. */
export interface MigrateOptions {
  /** Name of the old config file for messages. */
  source?: string;
  /** Host facts for dynamic defaults (node name, advertise address, CRI socket). */
  host: InitHostFacts;
  /** Random source (a bootstrap token is generated when the file has none). */
  random: RandomSource;
  /** Read the experimental `kubeadm.k8s.io/v1` (`--allow-experimental-api`); v1beta4 is written. */
  allowExperimental?: boolean;
}

/** Output of {@link migrateConfig}. */
export interface MigrateResult {
  /** The v1beta4 YAML documents. */
  text: string;
  warnings: string[];
}

/**
 * Migrates a configuration file's content to v1beta4. Throws `ConfigError` /
 * `ValidationError` for invalid input (unknown fields are errors, as upstream's strict
 * migrate decoding).
 */
export function migrateConfig(text: string, options: MigrateOptions): MigrateResult {
  const source = options.source ?? "<config>";
  const allowExperimental = options.allowExperimental;
  const loaded = loadConfigDocuments(text, { source, strict: true, allowExperimental });
  // The conversion itself is the point of this command: drop the deprecation notices.
  const noise = (w: string) =>
    w.startsWith("your configuration file uses a deprecated API spec") ||
    w.startsWith(
      "[config] WARNING: Ignored configuration document with GroupVersionKind kubeadm.k8s.io/",
    );
  const warnings = loaded.warnings.filter((w) => !noise(w));
  const parts: string[] = [];
  if (loaded.init || loaded.cluster) {
    const resolved = resolveInitConfig({
      text,
      source,
      host: options.host,
      random: options.random,
      allowExperimental,
    });
    warnings.push(...resolved.warnings.filter((w) => !noise(w) && !warnings.includes(w)));
    parts.push(marshalInitConfiguration(resolved.config.init, resolved.config.cluster));
  }
  if (loaded.join) {
    const resolved = resolveJoinConfig({ text, source, host: options.host, allowExperimental });
    warnings.push(...resolved.warnings.filter((w) => !noise(w) && !warnings.includes(w)));
    parts.push(
      marshalResolvedJoinConfiguration(resolved.config, loaded.join.nodeRegistration?.taints),
    );
  }
  if (loaded.reset) {
    validateResetConfiguration(loaded.reset);
    parts.push(marshalResetConfiguration(applyResetDefaults(loaded.reset)));
  }
  if (loaded.upgrade) parts.push(toKubeYaml(applyUpgradeDefaults(loaded.upgrade)));
  if (parts.length === 0) {
    throw new ConfigError(`${source}: no kubeadm configuration documents to migrate`, {
      field: "kind",
      hint:
        "the file must contain an InitConfiguration, ClusterConfiguration, JoinConfiguration, ResetConfiguration or UpgradeConfiguration",
    });
  }
  return { text: parts.join(YAML_DOCUMENT_SEPARATOR), warnings };
}
