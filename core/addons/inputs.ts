/**
 * What a workflow hands the addons (`init`, `upgrade apply|node`): the images, the control-plane
 * endpoint and the component config from the resolved configuration, and the `--patches`
 * for the CoreDNS Deployment (`corednsdeployment`) and the kube-proxy DaemonSet
 * (`kubeproxydaemonset`, v1.37).
 *
 * @module
 */
import type { Hashing } from "../ports/crypto.ts";
import type { DaemonSet, Deployment } from "kubernetes-types/apps/v1.d.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { dnsImage, kubernetesImage } from "../manifests/images.ts";
import { controlPlaneEndpointURL } from "../net/endpoint.ts";
import type { PatchManager } from "../patches/patch_manager.ts";
import { daemonSetSchema, deploymentSchema } from "../patches/patch_schemas.ts";
import { toKubeYaml } from "../yaml/kube_yaml.ts";
import type { CoreDNSInput } from "./coredns.ts";
import type { KubeProxyInput } from "./kube_proxy.ts";

/** Patch target of the CoreDNS Deployment. */
const COREDNS_DEPLOYMENT_TARGET = "corednsdeployment";
/** Patch target of the kube-proxy DaemonSet (v1.37). */
const KUBE_PROXY_DAEMONSET_TARGET = "kubeproxydaemonset";

/** The CoreDNS addon's input for a configuration (its patches from `patches`, if any). */
export function coreDNSInputFor(cfg: ResolvedConfig, patches?: PatchManager): CoreDNSInput {
  const { networking } = cfg.cluster;
  return {
    dnsDomain: networking.dnsDomain,
    serviceSubnet: networking.serviceSubnet,
    image: dnsImage(cfg.cluster),
    patchDeployment: patches?.hasPatchesFor(COREDNS_DEPLOYMENT_TARGET)
      ? (d) => patches.apply(COREDNS_DEPLOYMENT_TARGET, d, deploymentSchema) as Deployment
      : undefined,
  };
}

/**
 * The kube-proxy addon's input for a configuration: pointed at the control-plane endpoint (or
 * this node's API endpoint), the host's proxy variables, its patches from `patches`, if any.
 */
export function kubeProxyInputFor(
  cfg: ResolvedConfig,
  proxyEnv: Readonly<Record<string, string>> | undefined,
  crypto: Hashing,
  patches?: PatchManager,
): KubeProxyInput {
  return {
    kubeProxyConfigurationYaml: toKubeYaml(cfg.kubeProxy),
    controlPlaneEndpoint: controlPlaneEndpointURL(
      cfg.cluster.controlPlaneEndpoint,
      cfg.init.localAPIEndpoint,
    ),
    userSupplied: cfg.userSupplied.kubeProxy,
    crypto,
    image: kubernetesImage("kube-proxy", cfg.cluster),
    proxyEnv,
    patchDaemonSet: patches?.hasPatchesFor(KUBE_PROXY_DAEMONSET_TARGET)
      ? (ds) => patches.apply(KUBE_PROXY_DAEMONSET_TARGET, ds, daemonSetSchema) as DaemonSet
      : undefined,
  };
}
