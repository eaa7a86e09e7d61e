/**
 * The API server URLs kubeadm writes into kubeconfig files and prints in join commands.
 *
 * - local endpoint: `https://<advertiseAddress>:<bindPort>` (the node's own API server);
 * - control-plane endpoint: `controlPlaneEndpoint` (its port, or bindPort when it has none),
 *   falling back to the local endpoint when unset.
 *
 * @module
 */
import { errorMessage, KubeadmError } from "../errors.ts";
import { joinHostPort, parseHostPort, parsePort } from "./host_port.ts";
import { formatIP, parseIP } from "./ip.ts";

/** `localAPIEndpoint`: the address and port this node's API server advertises and binds. */
export interface LocalEndpoint {
  advertiseAddress: string;
  bindPort: number;
}

/** Upstream's warning when `controlPlaneEndpoint` carries a port different from bindPort. */
export const PORT_OVERRIDE_WARNING =
  "[endpoint] WARNING: port specified in controlPlaneEndpoint overrides bindPort in the controlplane address";

/** `https://<advertiseAddress>:<bindPort>` with the address in canonical form (IPv6 bracketed). */
export function localAPIEndpointURL(local: LocalEndpoint): string {
  try {
    parsePort(String(local.bindPort));
  } catch (e) {
    throw new KubeadmError(
      `invalid value "${local.bindPort}" given for api.bindPort: ${errorMessage(e)}`,
      { field: "localAPIEndpoint.bindPort", value: String(local.bindPort) },
    );
  }
  const ip = parseIP(local.advertiseAddress);
  if (!ip) {
    throw new KubeadmError(
      `invalid value \`${local.advertiseAddress}\` given for api.advertiseAddress`,
      { field: "localAPIEndpoint.advertiseAddress", value: local.advertiseAddress },
    );
  }
  return `https://${joinHostPort(formatIP(ip), local.bindPort)}`;
}

/**
 * The control-plane URL: from `controlPlaneEndpoint` when set (port defaults to bindPort),
 * else the local endpoint. `warn` receives upstream's port-override warning.
 */
export function controlPlaneEndpointURL(
  controlPlaneEndpoint: string | undefined,
  local: LocalEndpoint,
  warn?: (line: string) => void,
): string {
  const localURL = localAPIEndpointURL(local);
  if (!controlPlaneEndpoint) return localURL;
  let host: string;
  let port: string;
  try {
    ({ host, port } = parseHostPort(controlPlaneEndpoint));
  } catch (e) {
    throw new KubeadmError(
      `invalid value ${JSON.stringify(controlPlaneEndpoint)} given for controlPlaneEndpoint: ${
        errorMessage(e)
      }`,
      { field: "controlPlaneEndpoint", value: controlPlaneEndpoint, cause: e },
    );
  }
  const bindPort = String(local.bindPort);
  if (port !== "") {
    if (port !== bindPort) warn?.(PORT_OVERRIDE_WARNING);
  } else {
    port = bindPort;
  }
  return `https://${joinHostPort(host, port)}`;
}
