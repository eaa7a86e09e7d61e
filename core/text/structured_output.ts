/**
 * kubeadm's structured output (`-o json|yaml`): objects of the `output.kubeadm.k8s.io/v1alpha3`
 * API, printed the way upstream's printers print them.
 *
 * @module
 */
import { toKubeYaml } from "../yaml/kube_yaml.ts";
import { toKyaml } from "../yaml/kyaml.ts";

/** API version of kubeadm's structured output objects. */
export const OUTPUT_API_VERSION = "output.kubeadm.k8s.io/v1alpha3";

/** Go's `json.MarshalIndent(v, "", "    ")`, HTML-safe escapes included. */
function goJsonIndent(value: unknown): string {
  return JSON.stringify(value, null, 4)
    .replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The structured output formats (`-o`). */
export type StructuredFormat = "json" | "yaml" | "kyaml";

/**
 * One object as `-o json` (indented, newline-terminated), `-o yaml` (sorted keys) or
 * `-o kyaml` prints it.
 */
export function formatStructured(value: unknown, format: StructuredFormat): string {
  if (format === "json") return `${goJsonIndent(value)}\n`;
  return format === "kyaml" ? toKyaml(value) : toKubeYaml(value);
}
