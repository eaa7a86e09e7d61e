/**
 * kubeadm's structured output (`-o json|yaml`): objects of the `output.kubeadm.k8s.io/v1alpha3`
 * API, printed the way upstream's printers print them.
 *
 * @module
 */
import { toKubeYaml } from "../yaml/kube_yaml.ts";

/** API version of kubeadm's structured output objects. */
export const OUTPUT_API_VERSION = "output.kubeadm.k8s.io/v1alpha3";

/** Go's `json.MarshalIndent(v, "", "    ")`, HTML-safe escapes included. */
export function goJsonIndent(value: unknown): string {
  return JSON.stringify(value, null, 4)
    .replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** One object as `-o json` (indented, newline-terminated) or `-o yaml` (sorted keys) prints it. */
export function formatStructured(value: unknown, format: "json" | "yaml"): string {
  return format === "json" ? `${goJsonIndent(value)}\n` : toKubeYaml(value);
}
