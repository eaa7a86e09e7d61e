/**
 * `Port-<n>`: a port kubeadm's components will listen on must be free.
 *
 * @module
 */
import { type Check, fail, pass } from "../check.ts";

/** Fails when a TCP listener cannot be opened on `:<port>`. */
export function portOpenCheck(port: number, label?: string): Check {
  return {
    name: label ?? `Port-${port}`,
    severity: "error",
    async run(host) {
      return (await host.isPortFree(port)) ? pass() : fail(`Port ${port} is in use`);
    },
  };
}
