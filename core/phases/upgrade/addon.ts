/**
 * The `addon` phase of `upgrade apply` and `upgrade node` (upstream
 * `cmd/phases/upgrade/addons.go`): CoreDNS and kube-proxy are upgraded on a control-plane node
 * only once every control-plane instance runs this node's kube-apiserver image (the last one
 * upgraded does it); a disabled addon is left alone. In `--dry-run` the addon's objects are
 * printed instead of applied, as upstream.
 *
 * @module
 */
import { coreDNSManifests, ensureCoreDNS } from "../../addons/coredns.ts";
import { coreDNSInputFor, kubeProxyInputFor } from "../../addons/inputs.ts";
import { ensureKubeProxy, kubeProxyManifests } from "../../addons/kube_proxy.ts";
import { printAddonManifests } from "../../addons/print.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import { patchManagerFor } from "../../patches/patch_manager.ts";
import { unupgradedControlPlaneInstances } from "../../upgrade/post_upgrade.ts";
import { BASE_INPUTS, type UpgradeData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** Whether the addons may be upgraded now; prints why not. */
async function allControlPlanesUpgraded(data: UpgradeData): Promise<boolean> {
  let pending: string[];
  try {
    pending = await unupgradedControlPlaneInstances(
      data.client,
      data.cfg.init.nodeRegistration.name,
    );
  } catch (e) {
    throw new KubeadmError(
      `failed to determine whether all the control plane instances have been upgraded: ${
        errorMessage(e)
      }`,
      { cause: e },
    );
  }
  if (pending.length > 0) {
    data.out.info(
      `[upgrade/addon] Skipping upgrade of addons because control plane instances [${
        pending.join(" ")
      }] have not been upgraded`,
    );
    return false;
  }
  return true;
}

async function shouldRun(data: UpgradeData, addon: string, disabled: boolean): Promise<boolean> {
  const skip = `[upgrade/addon] Skipping the addon/${addon} phase.`;
  if (!data.isControlPlaneNode) {
    data.out.info(`${skip} Not a control plane node.`);
    return false;
  }
  if (disabled) {
    data.out.info(`${skip} The addon is disabled.`);
    return false;
  }
  return await allControlPlanesUpgraded(data);
}

/** The `--patches` manager of the run, when a patches directory is set. */
async function patchesOf(data: UpgradeData) {
  return data.settings.patchesDir
    ? await patchManagerFor(data.files, data.settings.patchesDir, (l) => data.out.info(l))
    : undefined;
}

/** `addon/coredns`. */
export async function runCoreDNSAddon(data: UpgradeData): Promise<void> {
  if (!(await shouldRun(data, "coredns", data.cfg.cluster.dns?.disabled === true))) return;
  const input = coreDNSInputFor(data.cfg, await patchesOf(data));
  if (data.settings.dryRun) return printAddonManifests(data.out, await coreDNSManifests(input));
  await ensureCoreDNS(data.client, input, data.out);
}

/** `addon/kube-proxy`. */
export async function runKubeProxyAddon(data: UpgradeData): Promise<void> {
  if (!(await shouldRun(data, "kube-proxy", data.cfg.cluster.proxy?.disabled === true))) return;
  const input = kubeProxyInputFor(data.cfg, data.host.proxyEnv, data.crypto, await patchesOf(data));
  if (data.settings.dryRun) return printAddonManifests(data.out, await kubeProxyManifests(input));
  await ensureKubeProxy(data.client, input, data.out);
}

const INPUTS = [...BASE_INPUTS, "patchesDir"] as const;

/** `upgrade apply|node phase addon`. */
export const addonPhase: Phase<UpgradeData> = {
  name: "addon",
  short: "Upgrade the default kubeadm addons",
  phases: [
    { name: "all", short: "Upgrade all the addons", runAllSiblings: true, inputs: INPUTS },
    { name: "coredns", short: "Upgrade the CoreDNS addon", run: runCoreDNSAddon, inputs: INPUTS },
    {
      name: "kube-proxy",
      short: "Upgrade the kube-proxy addon",
      run: runKubeProxyAddon,
      inputs: INPUTS,
    },
  ],
};
