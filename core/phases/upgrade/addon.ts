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
import type { UpgradeData } from "./data.ts";

/** Whether the addons may be upgraded now; prints why not. */
async function allControlPlanesUpgraded(d: UpgradeData): Promise<boolean> {
  let pending: string[];
  try {
    pending = await unupgradedControlPlaneInstances(d.client, d.cfg.init.nodeRegistration.name);
  } catch (e) {
    throw new KubeadmError(
      `failed to determine whether all the control plane instances have been upgraded: ${
        errorMessage(e)
      }`,
      { cause: e },
    );
  }
  if (pending.length > 0) {
    d.out.info(
      `[upgrade/addon] Skipping upgrade of addons because control plane instances [${
        pending.join(" ")
      }] have not been upgraded`,
    );
    return false;
  }
  return true;
}

async function shouldRun(d: UpgradeData, addon: string, disabled: boolean): Promise<boolean> {
  const skip = `[upgrade/addon] Skipping the addon/${addon} phase.`;
  if (!d.isControlPlaneNode) {
    d.out.info(`${skip} Not a control plane node.`);
    return false;
  }
  if (disabled) {
    d.out.info(`${skip} The addon is disabled.`);
    return false;
  }
  return await allControlPlanesUpgraded(d);
}

/** The `--patches` manager of the run, when a patches directory is set. */
async function patchesOf(d: UpgradeData) {
  return d.settings.patchesDir
    ? await patchManagerFor(d.files, d.settings.patchesDir, (l) => d.out.info(l))
    : undefined;
}

/** `addon/coredns`. */
export async function runCoreDNSAddon(d: UpgradeData): Promise<void> {
  if (!(await shouldRun(d, "coredns", d.cfg.cluster.dns?.disabled === true))) return;
  const input = coreDNSInputFor(d.cfg, await patchesOf(d));
  if (d.settings.dryRun) return printAddonManifests(d.out, await coreDNSManifests(input));
  await ensureCoreDNS(d.client, input, d.out);
}

/** `addon/kube-proxy`. */
export async function runKubeProxyAddon(d: UpgradeData): Promise<void> {
  if (!(await shouldRun(d, "kube-proxy", d.cfg.cluster.proxy?.disabled === true))) return;
  const input = kubeProxyInputFor(d.cfg, d.host.proxyEnv, d.crypto, await patchesOf(d));
  if (d.settings.dryRun) return printAddonManifests(d.out, await kubeProxyManifests(input));
  await ensureKubeProxy(d.client, input, d.out);
}
