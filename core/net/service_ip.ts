/**
 * Addresses kubeadm derives from the service subnet: the `kubernetes` Service VIP (1st address)
 * and the cluster DNS IP (10th address), both taken from the FIRST CIDR of a possibly
 * dual-stack, comma-separated `networking.serviceSubnet`.
 *
 * @module
 */
import { errorMessage, KubeadmError } from "../errors.ts";
import { type CIDR, cidrNthAddress, formatCIDR, parseCIDRList } from "./cidr.ts";

/** The first CIDR of a comma-separated service subnet list. */
function kubernetesServiceCIDR(serviceSubnet: string): CIDR {
  const list = parseCIDRList(serviceSubnet);
  if (!list || list.length === 0) {
    throw new KubeadmError(
      `unable to get internal Kubernetes Service IP from the given service CIDR (${serviceSubnet}): couldn't parse CIDR ${
        JSON.stringify(serviceSubnet)
      }`,
      { field: "networking.serviceSubnet", value: serviceSubnet },
    );
  }
  return list[0];
}

function indexed(serviceSubnet: string, n: number): string {
  const cidr = kubernetesServiceCIDR(serviceSubnet);
  try {
    return cidrNthAddress(cidr, n);
  } catch (e) {
    throw new KubeadmError(
      `unable to get the ${n === 1 ? "first" : `${n}th`} IP address from the given CIDR: ${
        formatCIDR(cidr)
      }: ${errorMessage(e)}`,
      { field: "networking.serviceSubnet", value: serviceSubnet, cause: e },
    );
  }
}

/** The API server's in-cluster Service VIP, e.g. `10.96.0.1` for `10.96.0.0/12`. */
export function apiServerVirtualIP(serviceSubnet: string): string {
  return indexed(serviceSubnet, 1);
}

/** The cluster DNS Service IP, e.g. `10.96.0.10` for `10.96.0.0/12`. */
export function clusterDNSIP(serviceSubnet: string): string {
  return indexed(serviceSubnet, 10);
}

/** {@link clusterDNSIP}, or `undefined` when the subnet list is invalid or too small. */
export function clusterDNSIPOrUndefined(serviceSubnet: string): string | undefined {
  try {
    return clusterDNSIP(serviceSubnet);
  } catch {
    return undefined;
  }
}
