/**
 * The kubeconfig files `kubeadm init` writes (upstream `getKubeConfigSpecsBase`): who each
 * one authenticates as, which API server URL it points to, and how its client certificate is
 * made (signed by `ca`, clientAuth only, key per `encryptionAlgorithm`).
 *
 * @module
 */
import type { ResolvedConfig } from "../config/types.ts";
import { parseDuration } from "../text/duration.ts";
import { Identity, KubeconfigFile } from "../constants.ts";
import { KubeadmError } from "../errors.ts";
import { controlPlaneEndpointURL, localAPIEndpointURL } from "../net/endpoint.ts";
import { Feature, featureEnabled } from "../config/features.ts";
import type { RandomSource } from "../host/ports.ts";
import { type Certificate, createSignedCert, encodeCertificatePEM } from "../pki/cert.ts";
import { encodePrivateKeyPEM, type KeyPair } from "../pki/keys.ts";
import { createKubeconfigWithCerts, type Kubeconfig } from "./kubeconfig.ts";

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
  },
  {
    name: "super-admin",
    fileName: KubeconfigFile.superAdmin,
    clientName: Identity.superAdminUser,
    organizations: [Identity.mastersGroup],
    endpoint: "control-plane",
    short: "Generate a kubeconfig file for the super-admin",
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
  },
  {
    name: "scheduler",
    fileName: KubeconfigFile.scheduler,
    clientName: Identity.schedulerUser,
    organizations: [],
    endpoint: "local",
    short: "Generate a kubeconfig file for the scheduler to use",
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

/** Resolves client name and server URL; `warn` gets the controlPlaneEndpoint port warning. */
export function resolveKubeconfigSpec(
  spec: KubeconfigSpec,
  cfg: ResolvedConfig,
  warn?: (line: string) => void,
): ResolvedKubeconfigSpec {
  const local = cfg.init.localAPIEndpoint;
  // With ControlPlaneKubeletLocalMode (beta, on by default in 1.34) a control-plane node's
  // kubelet talks to its own API server, so kubelet.conf gets the local endpoint too.
  const kubeletLocal = spec.name === "kubelet" &&
    featureEnabled(cfg.cluster.featureGates, Feature.ControlPlaneKubeletLocalMode);
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

/** Validity of kubeconfig client certificates for this run. */
export interface ClientCertValidity {
  /** Defaults to the CA's NotBefore (upstream's signer fallback). */
  notBefore?: Date;
  notAfter?: Date;
}

/** NotAfter = start + certificateValidityPeriod (NotBefore left to the CA's, as upstream). */
export function clientCertValidity(cfg: ResolvedConfig, startTime: Date): ClientCertValidity {
  return {
    notAfter: new Date(startTime.getTime() + parseDuration(cfg.cluster.certificateValidityPeriod)),
  };
}

/** A kubeconfig with its client certificate (for inspection and tests). */
export interface BuiltKubeconfig {
  kubeconfig: Kubeconfig;
  clientCert: Certificate;
}

/**
 * Builds a kubeconfig with an embedded client certificate for `clientKey`, signed by the CA
 * (upstream `buildKubeConfigFromSpec`).
 */
export async function buildClientCertKubeconfig(
  resolved: ResolvedKubeconfigSpec,
  clusterName: string,
  ca: { cert: Certificate; key: KeyPair },
  clientKey: KeyPair,
  random: RandomSource,
  validity: ClientCertValidity = {},
): Promise<BuiltKubeconfig> {
  const clientCert = await createSignedCert(
    {
      commonName: resolved.clientName,
      organization: resolved.organizations,
      usages: ["clientAuth"],
      notBefore: validity.notBefore,
      notAfter: validity.notAfter,
    },
    clientKey,
    ca.cert,
    ca.key,
    random,
  );
  const kubeconfig = createKubeconfigWithCerts(
    resolved.serverURL,
    clusterName,
    resolved.clientName,
    encodeCertificatePEM(ca.cert),
    await encodePrivateKeyPEM(clientKey),
    encodeCertificatePEM(clientCert),
  );
  return { kubeconfig, clientCert };
}
