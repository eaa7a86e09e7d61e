/**
 * Environment variables of the static Pod containers.
 *
 * Control-plane containers receive the host's `*_proxy` variables (name ending in `_proxy`,
 * any case, non-empty value); etcd does not. A component's `extraEnvs` override same-named
 * entries; the result is sorted by name (upstream's `MergeKubeadmEnvVars`).
 *
 * @module
 */
import type { EnvVar } from "kubernetes-types/core/v1.d.ts";

/** The host `*_proxy` variables as EnvVars, in the host's order. */
export function proxyEnvVars(proxyEnv: Readonly<Record<string, string>>): EnvVar[] {
  return Object.entries(proxyEnv)
    .filter(([name, value]) => name.toLowerCase().endsWith("_proxy") && value !== "")
    .map(([name, value]) => ({ name, value }));
}

/** Merges EnvVar lists by name (later lists win) and sorts the result by name. */
export function mergeEnvVars(...lists: readonly (readonly EnvVar[] | undefined)[]): EnvVar[] {
  const byName = new Map<string, EnvVar>();
  for (const list of lists) {
    for (const env of list ?? []) byName.set(env.name, { ...env });
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
