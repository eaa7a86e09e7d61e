/**
 * `kubeadm init phase addon`: `coredns` installs CoreDNS (the `corednsdeployment` patches of
 * `--patches` applied to its Deployment) and `kube-proxy` installs kube-proxy pointed at the
 * control-plane endpoint. A disabled addon (`dns.disabled`, `proxy.disabled`, which skipping
 * the phase also sets) is not installed. With `--print-manifest` the objects are printed as
 * YAML documents instead, and the cluster is never contacted.
 *
 * @module
 */
import type { Deployment } from "kubernetes-types/apps/v1.d.ts";
import {
  coreDNSImage,
  type CoreDNSInput,
  coreDNSManifests,
  ensureCoreDNS,
} from "../../addons/coredns.ts";
import {
  ensureKubeProxy,
  kubeProxyImage,
  type KubeProxyInput,
  kubeProxyManifests,
} from "../../addons/kube_proxy.ts";
import { controlPlaneEndpointURL } from "../../net/endpoint.ts";
import { patchManagerFor } from "../../patches/patch_manager.ts";
import { deploymentSchema } from "../../patches/patch_schemas.ts";
import { toKubeYaml } from "../../yaml/kube_yaml.ts";
import { clusterClient } from "./cluster_access.ts";
import type { InitData } from "./data.ts";

/** Patch target of the CoreDNS Deployment. */
export const COREDNS_DEPLOYMENT_TARGET = "corednsdeployment";

/** Prints objects the way `--print-manifest` does: each a YAML document after `---`. */
function printManifests(data: InitData, objects: readonly object[]): void {
  for (const o of objects) data.out.info(`---\n${toKubeYaml(o).replace(/\n$/, "")}`);
}

/** `addon/coredns`. */
export async function runCoreDNSAddon(data: InitData): Promise<void> {
  const patches = data.patchesDir
    ? await patchManagerFor(data.files, data.patchesDir, (l) => data.out.info(l))
    : undefined;
  const { networking } = data.cfg.cluster;
  const input: CoreDNSInput = {
    dnsDomain: networking.dnsDomain,
    serviceSubnet: networking.serviceSubnet,
    image: coreDNSImage(data.cfg.cluster),
    patchDeployment: patches?.hasPatchesFor(COREDNS_DEPLOYMENT_TARGET)
      ? (d) => patches.apply(COREDNS_DEPLOYMENT_TARGET, d, deploymentSchema) as Deployment
      : undefined,
  };
  if (data.printManifest) return printManifests(data, await coreDNSManifests(input));
  await ensureCoreDNS(await clusterClient(data.cluster), input, data.out);
}

/** `addon/kube-proxy`. */
export async function runKubeProxyAddon(data: InitData): Promise<void> {
  const input: KubeProxyInput = {
    kubeProxyConfigurationYaml: toKubeYaml(data.cfg.kubeProxy),
    controlPlaneEndpoint: controlPlaneEndpointURL(
      data.cfg.cluster.controlPlaneEndpoint,
      data.cfg.init.localAPIEndpoint,
    ),
    userSupplied: data.cfg.userSupplied.kubeProxy,
    image: kubeProxyImage(data.cfg.cluster),
    proxyEnv: data.host.proxyEnv,
  };
  if (data.printManifest) return printManifests(data, await kubeProxyManifests(input));
  await ensureKubeProxy(await clusterClient(data.cluster), input, data.out);
}
