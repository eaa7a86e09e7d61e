/**
 * The kubeconfig files `kubeadm init` writes (upstream `getKubeConfigSpecsBase`): who each
 * one authenticates as and which API server URL it points to, with the help text of its
 * `init phase kubeconfig` sub-phase. `core/kubeconfig/files.ts` makes and writes them.
 *
 * @module
 */
import type { ResolvedConfig } from "../config/types.ts";
import { Component, Identity, KubeconfigFile } from "../constants.ts";
import { KubeadmError } from "../errors.ts";
import { controlPlaneEndpointURL, localAPIEndpointURL } from "../net/endpoint.ts";

/** Names of the `init phase kubeconfig` sub-phases. */
export type KubeconfigName =
  | "admin"
  | "super-admin"
  | "kubelet"
  | "controller-manager"
  | "scheduler";

/** One kubeconfig file kubeadm manages. */
export interface KubeconfigSpec {
  name: KubeconfigName;
  /** File name in the kubeconfig dir, e.g. `admin.conf`. */
  fileName: string;
  /** Fixed client name (user and certificate CN); the kubelet's is derived from the node name. */
  clientName: string;
  organizations: readonly string[];
  /** `control-plane`: controlPlaneEndpoint (or local); `local`: this node's API server. */
  endpoint: "control-plane" | "local";
  /** One-line help of the sub-phase. */
  short: string;
  /**
   * What `kubeadm certs renew <fileName>` calls the embedded client certificate; absent for
   * the files `certs renew` leaves alone (kubelet.conf: the kubelet rotates its own).
   */
  renewLongName?: string;
  /** The static Pods that load this file (to restart after its certificate is renewed). */
  readers?: readonly string[];
}

/** The inventory, in creation (and log) order. */
export const KUBECONFIG_SPECS: readonly KubeconfigSpec[] = [
  {
    name: "admin",
    fileName: KubeconfigFile.admin,
    clientName: Identity.adminUser,
    organizations: [Identity.clusterAdminsGroup],
    endpoint: "control-plane",
    short: "Generate a kubeconfig file for the admin to use and for kubeadm itself",
    renewLongName:
      "certificate embedded in the kubeconfig file for the admin to use and for kubeadm itself",
  },
  {
    name: "super-admin",
    fileName: KubeconfigFile.superAdmin,
    clientName: Identity.superAdminUser,
    organizations: [Identity.mastersGroup],
    endpoint: "control-plane",
    short: "Generate a kubeconfig file for the super-admin",
    renewLongName: "certificate embedded in the kubeconfig file for the super-admin",
  },
  {
    name: "kubelet",
    fileName: KubeconfigFile.kubelet,
    clientName: Identity.nodeUserPrefix,
    organizations: [Identity.nodesGroup],
    endpoint: "control-plane",
    short:
      "Generate a kubeconfig file for the kubelet to use *only* for cluster bootstrapping purposes",
  },
  {
    name: "controller-manager",
    fileName: KubeconfigFile.controllerManager,
    clientName: Identity.controllerManagerUser,
    organizations: [],
    endpoint: "local",
    short: "Generate a kubeconfig file for the controller manager to use",
    renewLongName: "certificate embedded in the kubeconfig file for the controller manager to use",
    readers: [Component.controllerManager],
  },
  {
    name: "scheduler",
    fileName: KubeconfigFile.scheduler,
    clientName: Identity.schedulerUser,
    organizations: [],
    endpoint: "local",
    short: "Generate a kubeconfig file for the scheduler to use",
    renewLongName: "certificate embedded in the kubeconfig file for the scheduler manager to use",
    readers: [Component.scheduler],
  },
];

/** Looks a spec up by sub-phase name or file name; throws for unknown names. */
export function kubeconfigSpec(name: string): KubeconfigSpec {
  const spec = KUBECONFIG_SPECS.find((s) => s.name === name || s.fileName === name);
  if (!spec) {
    throw new KubeadmError(`couldn't retrieve KubeConfigSpec for ${name}`, { value: name });
  }
  return spec;
}

/** A spec made concrete for a configuration. */
export interface ResolvedKubeconfigSpec {
  spec: KubeconfigSpec;
  /** User name and certificate CN (`system:node:<node>` for the kubelet). */
  clientName: string;
  organizations: string[];
  /** API server URL written into the cluster entry. */
  serverURL: string;
}

/** Options of {@link resolveKubeconfigSpec}. */
export interface ResolveKubeconfigOptions {
  /**
   * Upstream's base specs (`getKubeConfigSpecsBase`, used by `certs generate-csr`): kubelet.conf
   * keeps the controlPlaneEndpoint (only the init phase points it at the local endpoint).
   */
  base?: boolean;
}

/** Resolves client name and server URL; `warn` gets the controlPlaneEndpoint port warning. */
export function resolveKubeconfigSpec(
  spec: KubeconfigSpec,
  cfg: ResolvedConfig,
  warn?: (line: string) => void,
  options: ResolveKubeconfigOptions = {},
): ResolvedKubeconfigSpec {
  const local = cfg.init.localAPIEndpoint;
  // A control-plane node's kubelet talks to its own API server (kubeadm v1.37, formerly the
  // ControlPlaneKubeletLocalMode gate), so kubelet.conf gets the local endpoint too; upstream's
  // base specs (generate-csr) keep the controlPlaneEndpoint.
  const kubeletLocal = spec.name === "kubelet" && !options.base;
  const serverURL = spec.endpoint === "local" || kubeletLocal
    ? localAPIEndpointURL(local)
    : controlPlaneEndpointURL(cfg.cluster.controlPlaneEndpoint, local, warn);
  return {
    spec,
    clientName: spec.name === "kubelet"
      ? `${Identity.nodeUserPrefix}${cfg.init.nodeRegistration.name}`
      : spec.clientName,
    organizations: [...spec.organizations],
    serverURL,
  };
}

/**
 * The admin kubeconfig a run connects with: `--kubeconfig` when given, else `admin.conf` in the
 * kubeconfig directory (`/etc/kubernetes`).
 */
export function adminKubeconfigPath(kubeconfigDir: string, kubeconfigPath?: string): string {
  return kubeconfigPath ?? `${kubeconfigDir.replace(/\/+$/, "")}/${KubeconfigFile.admin}`;
}
