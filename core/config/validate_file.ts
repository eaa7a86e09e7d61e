/**
 * `kubeadm config validate`: every kubeadm document of a file decoded strictly and validated
 * the way the command that reads it would (upstream `ValidateConfig`, v1.37).
 *
 * Init/ClusterConfiguration are resolved and validated as `init` does, a JoinConfiguration as
 * `join` does, a ResetConfiguration's CRI socket and unmount flags as upstream's; every kind,
 * UpgradeConfiguration included (newly checked in v1.37), is decoded strictly (unknown fields
 * are errors). Old API versions are always refused and
 * the experimental `kubeadm.k8s.io/v1` only when allowed; `allowDeprecated` changes nothing,
 * since v1.37 has no deprecated API version left.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { LogFn } from "../ports/printer.ts";
import type { RandomSource } from "../ports/random.ts";
import { KUBEADM_GROUP, loadConfigDocuments } from "./parse.ts";
import { applyUpgradeDefaults } from "./defaults.ts";
import { type InitHostFacts, resolveInitConfig } from "./resolve.ts";
import { validateUpgradeConfiguration } from "./validate.ts";
import { resolveJoinConfig } from "./join.ts";
import { validateResetConfiguration } from "./reset.ts";

/** Input of {@link validateConfigFile}. */
export interface ValidateFileOptions {
  /** Name of the file for messages. */
  source?: string;
  /** Host facts for the dynamic defaults validation needs. */
  host: InitHostFacts;
  random: RandomSource;
  /** Verbose log lines (upstream's `klog.V`), e.g. the kubelet's `cgroupDriver` default. */
  log?: LogFn;
  /** `--allow-deprecated-api`. */
  allowDeprecated?: boolean;
  /** `--allow-experimental-api`. */
  allowExperimental?: boolean;
}

/**
 * Validates a configuration file's content; returns the warnings. Throws `ConfigError` or
 * `ValidationError` (exit status 3) naming the first problem's field.
 */
export function validateConfigFile(text: string, options: ValidateFileOptions): string[] {
  const source = options.source ?? "<config>";
  const load = { source, strict: true, allowExperimental: options.allowExperimental };
  const loaded = loadConfigDocuments(text, load);
  if (!loaded.documents.some((d) => d.group === KUBEADM_GROUP)) {
    throw new ConfigError(`${source}: no kubeadm configuration document was found`, {
      field: "kind",
      hint:
        "add an InitConfiguration, ClusterConfiguration, JoinConfiguration, ResetConfiguration or UpgradeConfiguration document",
    });
  }
  const warnings = [...loaded.warnings];
  // The other kubeadm kinds are validated here, not ignored as `init` or `join` would.
  const add = (more: readonly string[]) => {
    for (const w of more) {
      if (w.startsWith("[config] WARNING: Ignored configuration document with GroupVersionKind")) {
        continue;
      }
      if (!warnings.includes(w)) warnings.push(w);
    }
  };
  if (loaded.init || loaded.cluster) {
    add(
      resolveInitConfig({
        ...load,
        text,
        host: options.host,
        random: options.random,
        log: options.log,
      }).warnings,
    );
  }
  if (loaded.join) add(resolveJoinConfig({ ...load, text, host: options.host }).warnings);
  if (loaded.reset) validateResetConfiguration(loaded.reset);
  if (loaded.upgrade) validateUpgradeConfiguration(applyUpgradeDefaults(loaded.upgrade));
  return warnings;
}
