/**
 * The addons' objects as upstream prints them instead of applying them (`init phase addon …
 * --print-manifest`, the addon phase of `upgrade apply|node --dry-run`): each a YAML document
 * after `---`.
 *
 * @module
 */
import type { Printer } from "../ports/printer.ts";
import { toKubeYaml } from "../yaml/kube_yaml.ts";

/** Prints `objects` (from `coreDNSManifests` or `kubeProxyManifests`) one document each. */
export function printAddonManifests(out: Printer, objects: readonly object[]): void {
  for (const o of objects) out.info(`---\n${toKubeYaml(o).replace(/\n$/, "")}`);
}
