/**
 * `kubeadm init phase addon`: `coredns` installs CoreDNS (the `corednsdeployment` patches of
 * `--patches` applied to its Deployment) and `kube-proxy` installs kube-proxy pointed at the
 * control-plane endpoint (the `kubeproxydaemonset` patches applied to its DaemonSet, v1.37). A disabled addon (`dns.disabled`, `proxy.disabled`, which skipping
 * the phase also sets) is not installed.
 *
 * @module
 */
import type { DaemonSet, Deployment } from "kubernetes-types/apps/v1.d.ts";
import { ensureCoreDNS } from "../../addons/coredns.ts";
import { ensureKubeProxy } from "../../addons/kube_proxy.ts";
import { dnsImage, kubernetesImage } from "../../manifests/images.ts";
import { controlPlaneEndpointURL } from "../../net/endpoint.ts";
import { patchManagerFor } from "../../patches/patch_manager.ts";
import { daemonSetSchema, deploymentSchema } from "../../patches/patch_schemas.ts";
import { toKubeYaml } from "../../yaml/kube_yaml.ts";
import { clusterClient } from "./cluster_access.ts";
import type { InitData } from "./data.ts";

/** Patch target of the CoreDNS Deployment. */
export const COREDNS_DEPLOYMENT_TARGET = "corednsdeployment";
/** Patch target of the kube-proxy DaemonSet (v1.37). */
export const KUBE_PROXY_DAEMONSET_TARGET = "kubeproxydaemonset";

/** The `--patches` manager of the run, when a patches directory is set. */
async function patchesOf(data: InitData) {
  return data.patchesDir
    ? await patchManagerFor(data.files, data.patchesDir, (l) => data.out.info(l))
    : undefined;
}

/** `addon/coredns`. */
export async function runCoreDNSAddon(data: InitData): Promise<void> {
  const client = await clusterClient(data.cluster);
  const patches = await patchesOf(data);
  const { networking } = data.cfg.cluster;
  await ensureCoreDNS(client, {
    dnsDomain: networking.dnsDomain,
    serviceSubnet: networking.serviceSubnet,
    image: dnsImage(data.cfg.cluster),
    patchDeployment: patches?.hasPatchesFor(COREDNS_DEPLOYMENT_TARGET)
      ? (d) => patches.apply(COREDNS_DEPLOYMENT_TARGET, d, deploymentSchema) as Deployment
      : undefined,
  }, data.out);
}

/** `addon/kube-proxy`. */
export async function runKubeProxyAddon(data: InitData): Promise<void> {
  const client = await clusterClient(data.cluster);
  const patches = await patchesOf(data);
  await ensureKubeProxy(client, {
    kubeProxyConfigurationYaml: toKubeYaml(data.cfg.kubeProxy),
    controlPlaneEndpoint: controlPlaneEndpointURL(
      data.cfg.cluster.controlPlaneEndpoint,
      data.cfg.init.localAPIEndpoint,
    ),
    userSupplied: data.cfg.userSupplied.kubeProxy,
    image: kubernetesImage("kube-proxy", data.cfg.cluster),
    proxyEnv: data.host.proxyEnv,
    patchDaemonSet: patches?.hasPatchesFor(KUBE_PROXY_DAEMONSET_TARGET)
      ? (ds) => patches.apply(KUBE_PROXY_DAEMONSET_TARGET, ds, daemonSetSchema) as DaemonSet
      : undefined,
  }, data.out);
}
