/**
 * The v1beta4 `UpgradeConfiguration`'s static defaults (upstream `SetDefaults_Upgrade*`): what
 * `kubeadm config print upgrade-defaults` shows, what `config migrate` writes for one, and the
 * base the `upgrade` commands default onto. Certificate renewal and the etcd upgrade are on,
 * images are pulled `IfNotPresent` one at a time, every timeout has its default; what the user
 * set is kept.
 *
 * @module
 */
import { withDefaultTimeouts } from "./defaults.ts";
import { KUBEADM_API_VERSION, type Timeouts, type UpgradeConfiguration } from "./types.ts";

type Section = Record<string, unknown>;

function section(value: unknown): Section {
  return typeof value === "object" && value !== null ? value as Section : {};
}

/** Sets the keys `defaults` has and `user` leaves unset (nil pointers in upstream's types). */
function fill(user: unknown, defaults: Section): Section {
  const out = { ...section(user) };
  for (const [k, v] of Object.entries(defaults)) {
    if (out[k] === undefined || out[k] === null) out[k] = v;
  }
  return out;
}

/** An UpgradeConfiguration with upstream's static defaults applied (v1beta4). */
export function applyUpgradeDefaults(cfg: UpgradeConfiguration): UpgradeConfiguration {
  const pulls = { imagePullPolicy: "IfNotPresent", imagePullSerial: true };
  return {
    ...cfg,
    apiVersion: KUBEADM_API_VERSION,
    kind: "UpgradeConfiguration",
    apply: fill(cfg.apply, { certificateRenewal: true, etcdUpgrade: true, ...pulls }),
    diff: fill(cfg.diff, {}),
    node: fill(cfg.node, { certificateRenewal: true, etcdUpgrade: true, ...pulls }),
    plan: fill(cfg.plan, { etcdUpgrade: true }),
    timeouts: withDefaultTimeouts(cfg.timeouts as Timeouts | undefined),
  };
}

/** The statically defaulted UpgradeConfiguration (v1beta4). */
export function defaultUpgradeConfiguration(): UpgradeConfiguration {
  return applyUpgradeDefaults({});
}
