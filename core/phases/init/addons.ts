/**
 * `kubeadm init phase addon`: `coredns` installs CoreDNS (the `corednsdeployment` patches of
 * `--patches` applied to its Deployment) and `kube-proxy` installs kube-proxy pointed at the
 * control-plane endpoint (the `kubeproxydaemonset` patches applied to its DaemonSet, v1.37). A
 * disabled addon (`dns.disabled`, `proxy.disabled`, which skipping the phase also sets) is not
 * installed. With `--print-manifest` the objects (patched) are printed as YAML documents
 * instead, and the cluster is never contacted.
 *
 * @module
 */
import { coreDNSInputFor, kubeProxyInputFor } from "../../addons/inputs.ts";
import { coreDNSManifests, ensureCoreDNS } from "../../addons/coredns.ts";
import { ensureKubeProxy, kubeProxyManifests } from "../../addons/kube_proxy.ts";
import { printAddonManifests } from "../../addons/print.ts";
import { patchManagerFor } from "../../patches/patch_manager.ts";
import { clusterClient } from "./cluster_access.ts";
import type { InitData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** The `--patches` manager of the run, when a patches directory is set. */
async function patchesOf(data: InitData) {
  return data.patchesDir
    ? await patchManagerFor(data.files, data.patchesDir, (l) => data.out.info(l))
    : undefined;
}

/** `addon/coredns`. */
export async function runCoreDNSAddon(data: InitData): Promise<void> {
  const input = coreDNSInputFor(data.cfg, await patchesOf(data));
  if (data.printManifest) return printAddonManifests(data.out, await coreDNSManifests(input));
  await ensureCoreDNS(await clusterClient(data.cluster), input, data.out);
}

/** `addon/kube-proxy`. */
export async function runKubeProxyAddon(data: InitData): Promise<void> {
  const input = kubeProxyInputFor(
    data.cfg,
    data.host.proxyEnv,
    data.crypto,
    await patchesOf(data),
  );
  if (data.printManifest) return printAddonManifests(data.out, await kubeProxyManifests(input));
  await ensureKubeProxy(await clusterClient(data.cluster), input, data.out);
}

/** What every addon's command takes. */
const ADDON_INPUTS = [
  "config",
  "dryRun",
  "imageRepository",
  "kubeconfig",
  "kubernetesVersion",
] as const;

/** `init phase addon`: CoreDNS and kube-proxy, each unless disabled. */
export const addonPhase: Phase<InitData> = {
  name: "addon",
  short: "Install required addons for passing conformance tests",
  phases: [
    {
      name: "all",
      short: "Install all the addons",
      runAllSiblings: true,
      inputs: [
        ...ADDON_INPUTS,
        "advertiseAddress",
        "bindPort",
        "controlPlaneEndpoint",
        "featureGates",
        "podSubnet",
        "serviceSubnet",
        "dnsDomain",
      ],
    },
    {
      name: "coredns",
      short: "Install the CoreDNS addon to a Kubernetes cluster",
      runIf: (data) => !data.cfg.cluster.dns.disabled,
      run: runCoreDNSAddon,
      inputs: [...ADDON_INPUTS, "featureGates", "printManifest", "serviceSubnet", "dnsDomain"],
    },
    {
      name: "kube-proxy",
      short: "Install the kube-proxy addon to a Kubernetes cluster",
      runIf: (data) => !data.cfg.cluster.proxy.disabled,
      run: runKubeProxyAddon,
      inputs: [
        ...ADDON_INPUTS,
        "advertiseAddress",
        "bindPort",
        "controlPlaneEndpoint",
        "podSubnet",
        "printManifest",
      ],
    },
  ],
};
