/**
 * `Swap`: warns when swap is on, since the kubelet then needs explicit configuration.
 *
 * @module
 */
import { type Check, pass, warn } from "../check.ts";

/** The warning text upstream prints when swap is enabled. */
export const SWAP_WARNING = "swap is supported for cgroup v2 only. " +
  "The kubelet must be properly configured to use swap. Please refer to " +
  "https://kubernetes.io/docs/concepts/architecture/nodes/#swap-memory, " +
  "or disable swap on the node";

/** Warns when `/proc/swaps` lists any swap area (more than its header line). */
export function swapCheck(): Check {
  return {
    name: "Swap",
    severity: "warning",
    async run(host, log) {
      log?.(1, "swap.ts", "validating whether swap is enabled or not");
      const data = await host.readSystemFile("/proc/swaps");
      if (data === undefined) return pass();
      const text = new TextDecoder().decode(data);
      const lines = text.split("\n");
      if (lines.at(-1) === "") lines.pop();
      return lines.length > 1 ? warn(SWAP_WARNING) : pass();
    },
  };
}
