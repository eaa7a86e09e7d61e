/**
 * A Pod network spanning the nodes of a test cluster, as a host-gateway network add-on builds
 * one (flannel's `host-gw` backend, kubenet): each node's Pods live on a bridge of their own
 * with the Pod CIDR the controller-manager allocated to the node (`spec.podCIDR`, carved from
 * the ClusterConfiguration's `networking.podSubnet`), and every node routes every other node's
 * Pod CIDR through that node's address. The CNI plugins are the reference ones (Debian's
 * containernetworking-plugins: `bridge` with `host-local` addresses, `portmap` for host ports);
 * the routes go over the direct links between the nodes ({@link ClusterNode.link}), so Pod
 * traffic never crosses the host.
 *
 * kubeadm installs no Pod network: a node stays NotReady until one is there. Nodes for this
 * network are created without the harness's sample CNI configuration (`cni: false`), and
 * {@link PodNetwork.add} is what a network add-on's node agent does once the node registered.
 *
 * @module
 */
import { waitFor } from "./commands.ts";
import type { ClusterNode } from "./cluster.ts";
import { sh } from "./netns.ts";

/** The CNI configuration file of the network on every node. */
export const POD_NETWORK_CONFIG = "/etc/cni/net.d/10-kts-pod-network.conflist";

/**
 * The CNI network of a node whose Pods get addresses of `podCidr`: a bridge (`cni0`, the
 * Pods' gateway), host-local addresses, hairpin mode (a Pod reaches itself through a Service),
 * no masquerading (Pod addresses stay visible across nodes), host ports.
 */
export function podNetworkConfig(podCidr: string): string {
  return JSON.stringify(
    {
      cniVersion: "1.0.0",
      name: "kts-pod-network",
      plugins: [
        {
          type: "bridge",
          bridge: "cni0",
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: "host-local",
            ranges: [[{ subnet: podCidr }]],
            routes: [{ dst: "0.0.0.0/0" }],
          },
        },
        { type: "portmap", capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  );
}

/** The Pod CIDR the controller-manager allocated to a Node (waits for it). */
export function nodePodCidr(apiNode: ClusterNode, name: string): Promise<string> {
  return waitFor(`Node ${name}'s spec.podCIDR`, async () => {
    const r = await apiNode.kubectl(["get", "node", name, "-o", "jsonpath={.spec.podCIDR}"]);
    return r.code === 0 && r.stdout.trim() !== "" ? r.stdout.trim() : undefined;
  }, 120_000);
}

/** The Pod network of one cluster: its members and their Pod CIDRs. */
export class PodNetwork {
  readonly #members: { node: ClusterNode; podCidr: string }[] = [];

  /** `apiNode`: a node whose admin kubeconfig reads the Nodes. */
  constructor(readonly apiNode: ClusterNode) {}

  /** Pod CIDR by node name. */
  get podCidrs(): ReadonlyMap<string, string> {
    return new Map(this.#members.map((m) => [m.node.name, m.podCidr]));
  }

  /**
   * Puts a registered node on the network: waits for its Pod CIDR, writes its CNI
   * configuration (containerd picks it up; the kubelet then reports the node Ready) and routes
   * its Pod CIDR and every member's both ways. The node must be linked to every member.
   */
  async add(node: ClusterNode): Promise<string> {
    const podCidr = await nodePodCidr(this.apiNode, node.name);
    for (const m of this.#members) {
      await route(m.node, podCidr, node.ip);
      await route(node, m.podCidr, m.node.ip);
    }
    await Deno.writeTextFile(node.path(POD_NETWORK_CONFIG), podNetworkConfig(podCidr));
    this.#members.push({ node, podCidr });
    return podCidr;
  }
}

/**
 * Routes `cidr` through `via` (a linked node's address) in `node`'s network namespace, from the
 * node's own address (the link carries none of its own).
 */
async function route(node: ClusterNode, cidr: string, via: string): Promise<void> {
  await sh([...node.machine.ns.exec, "ip", "route", "replace", cidr, "via", via, "src", node.ip]);
}
