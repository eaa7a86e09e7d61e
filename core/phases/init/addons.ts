/**
 * `kubeadm init phase addon`: `coredns` installs CoreDNS (the `corednsdeployment` patches of
 * `--patches` applied to its Deployment) and `kube-proxy` installs kube-proxy pointed at the
 * control-plane endpoint (the `kubeproxydaemonset` patches applied to its DaemonSet, v1.37). A disabled addon (`dns.disabled`, `proxy.disabled`, which skipping
 * the phase also sets) is not installed.
 *
 * @module
 */
import { coreDNSInputFor, kubeProxyInputFor } from "../../addons/inputs.ts";
import { ensureCoreDNS } from "../../addons/coredns.ts";
import { ensureKubeProxy } from "../../addons/kube_proxy.ts";
import { patchManagerFor } from "../../patches/patch_manager.ts";
import { clusterClient } from "./cluster_access.ts";
import type { InitData } from "./data.ts";

/** The `--patches` manager of the run, when a patches directory is set. */
async function patchesOf(data: InitData) {
  return data.patchesDir
    ? await patchManagerFor(data.files, data.patchesDir, (l) => data.out.info(l))
    : undefined;
}

/** `addon/coredns`. */
export async function runCoreDNSAddon(data: InitData): Promise<void> {
  const client = await clusterClient(data.cluster);
  await ensureCoreDNS(client, coreDNSInputFor(data.cfg, await patchesOf(data)), data.out);
}

/** `addon/kube-proxy`. */
export async function runKubeProxyAddon(data: InitData): Promise<void> {
  const client = await clusterClient(data.cluster);
  const input = kubeProxyInputFor(data.cfg, data.host.proxyEnv, await patchesOf(data));
  await ensureKubeProxy(client, input, data.out);
}
