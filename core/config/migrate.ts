/**
 * `kubeadm config migrate`: read a configuration file in the current API version (v1beta4, or
 * the experimental v1 when allowed) and write the equivalent, defaulted v1beta4 documents, as
 * upstream kubeadm v1.37 does. v1beta3 and older are refused (upstream: "Please use kubeadm
 * v1.36 instead ..."), since no release newer than v1.36 reads them.
 *
 * As upstream, every kubeadm document is loaded — defaulted (including the host-dependent
 * defaults), validated — and re-serialized: Init/ClusterConfiguration and JoinConfiguration
 * resolved as `init` and `join` would, ResetConfiguration and UpgradeConfiguration with their
 * defaults. The output order is Init+Cluster, Join, Reset, Upgrade. Component configs and
 * documents of other groups are dropped.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { LogFn } from "../ports/printer.ts";
import type { RandomSource } from "../ports/random.ts";
import { applyUpgradeDefaults } from "./defaults.ts";
import { loadConfigDocuments } from "./parse.ts";
import {
  marshalInitConfiguration,
  marshalResetConfiguration,
  marshalResolvedJoinConfiguration,
  marshalUpgradeConfiguration,
  YAML_DOCUMENT_SEPARATOR,
} from "./print.ts";
import { type InitHostFacts, resolveInitConfig } from "./resolve.ts";
import { validateUpgradeConfiguration } from "./validate.ts";
import { resolveJoinConfig } from "./join.ts";
import { applyResetDefaults, validateResetConfiguration } from "./reset.ts";

/** Input of {@link migrateConfig}. */
export interface MigrateOptions {
  /** Name of the old config file for messages. */
  source?: string;
  /** Host facts for dynamic defaults (node name, advertise address, CRI socket). */
  host: InitHostFacts;
  /** Random source (a bootstrap token is generated when the file has none). */
  random: RandomSource;
  /** Verbose log lines (upstream's `klog.V`), e.g. the kubelet's `cgroupDriver` default. */
  log?: LogFn;
  /** Accept the experimental `kubeadm.k8s.io/v1` (`--allow-experimental-api`). */
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
  const load = { source, strict: true, allowExperimental: options.allowExperimental };
  const loaded = loadConfigDocuments(text, load);
  const noise = (w: string) =>
    w.startsWith(
      "[config] WARNING: Ignored configuration document with GroupVersionKind kubeadm.k8s.io/",
    );
  const warnings = loaded.warnings.filter((w) => !noise(w));
  const parts: string[] = [];
  if (loaded.init || loaded.cluster) {
    const resolved = resolveInitConfig({
      ...load,
      text,
      host: options.host,
      random: options.random,
      log: options.log,
    });
    warnings.push(...resolved.warnings.filter((w) => !noise(w) && !warnings.includes(w)));
    parts.push(marshalInitConfiguration(resolved.config.init, resolved.config.cluster));
  }
  if (loaded.join) {
    const resolved = resolveJoinConfig({ ...load, text, host: options.host });
    warnings.push(...resolved.warnings.filter((w) => !noise(w) && !warnings.includes(w)));
    parts.push(
      marshalResolvedJoinConfiguration(resolved.config, loaded.join.nodeRegistration?.taints),
    );
  }
  if (loaded.reset) {
    validateResetConfiguration(loaded.reset);
    parts.push(marshalResetConfiguration(applyResetDefaults(loaded.reset)));
  }
  if (loaded.upgrade) {
    const upgrade = applyUpgradeDefaults(loaded.upgrade);
    validateUpgradeConfiguration(upgrade);
    parts.push(marshalUpgradeConfiguration(upgrade));
  }
  if (parts.length === 0) {
    throw new ConfigError(`${source}: no kubeadm configuration documents to migrate`, {
      field: "kind",
      hint:
        "the file must contain an InitConfiguration, ClusterConfiguration, JoinConfiguration, ResetConfiguration or UpgradeConfiguration",
    });
  }
  return { text: parts.join(YAML_DOCUMENT_SEPARATOR), warnings };
}
