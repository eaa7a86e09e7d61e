/**
 * `Port-<n>`: a port kubeadm's components will listen on must be free.
 *
 * @module
 */
import { type Check, fail, pass } from "../check.ts";

/**
 * Fails when a TCP listener cannot be opened on `<address>:<port>` (v1.37: the component's own
 * bind or advertise address when known), or on `:<port>` without one. As upstream, any listen
 * failure (an address that is not on this host included) reads "Port <n> is in use".
 */
export function portOpenCheck(port: number, address = "", label?: string): Check {
  return {
    name: label ?? `Port-${port}`,
    severity: "error",
    async run(host, log) {
      log?.(
        1,
        "ports.ts",
        `validating availability of port ${port} on address ${JSON.stringify(address)}`,
      );
      const free = await host.isPortFree(port, address === "" ? undefined : address);
      return free ? pass() : fail(`Port ${port} is in use`);
    },
  };
}
