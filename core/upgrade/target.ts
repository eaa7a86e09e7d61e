/**
 * The version `upgrade apply` goes to: upstream runs `NormalizeKubernetesVersion` on the
 * target, as `init` does on its `kubernetesVersion` (`config/version.ts`): a release label
 * resolves offline to this kubeadm's version, a version gets its `v`, and a target below the
 * oldest control plane this kubeadm deploys is refused with upstream's message. Errors name
 * the version argument.
 *
 * @module
 */
import { ConfigError, KubeadmError } from "../errors.ts";
import {
  MINIMUM_CONTROL_PLANE_VERSION,
  normalizeKubernetesVersion,
  type ResolvedVersion,
  type SemVer,
} from "../config/version.ts";

/** The oldest version an upgrade may go to (`MinimumControlPlaneVersion`). */
export const MINIMUM_UPGRADE_TARGET: SemVer = MINIMUM_CONTROL_PLANE_VERSION;

/** The normalized target (`v1.37.2`) and its warnings; throws naming the version argument. */
export function normalizeUpgradeTarget(text: string): ResolvedVersion {
  try {
    return normalizeKubernetesVersion(text);
  } catch (e) {
    if (!(e instanceof KubeadmError)) throw e;
    throw new ConfigError(e.message, { field: "version", value: text, hint: e.hint, cause: e });
  }
}
