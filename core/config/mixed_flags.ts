/**
 * Which command-line flags may be combined with `--config` (upstream
 * `ValidateMixedArguments`): a config file replaces the flags that set configuration values,
 * so mixing them is an error.
 *
 * @module
 */
import { FlagError } from "../errors.ts";

/** Flags allowed together with `--config` (besides every `--skip-*` flag). */
const FLAGS_ALLOWED_WITH_CONFIG: readonly string[] = [
  "config",
  "ignore-preflight-errors",
  "dry-run",
  "kubeconfig",
  "node-name",
  "kubeconfig-dir",
  "upload-certs",
  "print-manifest",
  "allow-missing-template-keys",
  "output",
  "show-managed-fields",
  "print-join-command",
  "rootfs",
  "v",
  "log-file",
  "yes",
];

/** Whether a flag (name without dashes) may be set together with `--config`. */
function isFlagAllowedWithConfig(name: string): boolean {
  return FLAGS_ALLOWED_WITH_CONFIG.includes(name) || name.startsWith("skip-");
}

/**
 * Throws upstream's `can not mix '--config' with arguments [...]` when `--config` is among the
 * flags the user set together with flags that it replaces. `setFlags` are the names (without
 * dashes) of the flags the user actually set.
 */
export function validateMixedArguments(setFlags: readonly string[]): void {
  if (!setFlags.includes("config")) return;
  // pflag visits flags in lexicographical order, so upstream lists them sorted.
  const mixed = [...new Set(setFlags.filter((f) => !isFlagAllowedWithConfig(f)))].sort();
  if (mixed.length === 0) return;
  throw new FlagError(`can not mix '--config' with arguments [${mixed.join(" ")}]`, {
    field: `--${mixed[0]}`,
    hint: "set these values in the configuration file instead",
  });
}
