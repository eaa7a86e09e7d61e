/**
 * `kubeadm config validate`: every kubeadm document of a file read, defaulted and validated the
 * way the command that takes it would (upstream `ValidateConfig`): Init and Cluster
 * configuration as `init`, a JoinConfiguration as `join`, a ResetConfiguration as `reset`, an
 * UpgradeConfiguration strictly decoded (new in 1.37). Unknown fields are errors. Experimental
 * `kubeadm.k8s.io/v1` documents are read only with `allowExperimental`. Throws the first
 * problem as a `ConfigError`/`ValidationError`; returns the warnings.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { RandomSource } from "../host/ports.ts";
import { validateResetConfiguration } from "./reset.ts";
import type { InitHostFacts } from "./defaults.ts";
import { resolveJoinConfig } from "./join.ts";
import { loadConfigDocuments } from "./parse.ts";
import { resolveInitConfig } from "./resolve.ts";

/** Input of {@link validateConfigFile}. */
export interface ValidateFileOptions {
  /** The file's name, for messages. */
  source: string;
  /** Host facts dynamic defaults need (plausible values suffice). */
  host: InitHostFacts;
  random: RandomSource;
  /** `--allow-experimental-api`. */
  allowExperimental?: boolean;
}

/** Validates a configuration file's content (see the module documentation). */
export function validateConfigFile(text: string, options: ValidateFileOptions): string[] {
  const { source, host, random, allowExperimental } = options;
  const loaded = loadConfigDocuments(text, { source, strict: true, allowExperimental });
  const warnings = [...loaded.warnings];
  const add = (more: readonly string[]) => {
    for (const w of more) if (!warnings.includes(w)) warnings.push(w);
  };
  if (!loaded.init && !loaded.cluster && !loaded.join && !loaded.reset && !loaded.upgrade) {
    throw new ConfigError(`${source}: no kubeadm configuration documents found`, {
      field: "kind",
      hint:
        "the file must contain an InitConfiguration, ClusterConfiguration, JoinConfiguration, ResetConfiguration or UpgradeConfiguration",
    });
  }
  if (loaded.init || loaded.cluster) {
    add(resolveInitConfig({ text, source, host, random, allowExperimental }).warnings);
  }
  if (loaded.join) add(resolveJoinConfig({ text, source, host, allowExperimental }).warnings);
  if (loaded.reset) validateResetConfiguration(loaded.reset);
  return warnings;
}
