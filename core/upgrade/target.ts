/**
 * The version `upgrade apply` goes to (upstream `NormalizeKubernetesVersion` on the target):
 * a release label resolves offline to this kubeadm's version (kubeadm-ts never fetches
 * labels), a version keeps its spelling with a `v`, and a target below the oldest control
 * plane this kubeadm deploys is refused with upstream's message.
 *
 * @module
 */
import { ConfigError, errorMessage } from "../errors.ts";
import {
  compareSemVer,
  formatSemVer,
  MINIMUM_CONTROL_PLANE_VERSION,
  parseSemVer,
  resolveKubernetesVersion,
  type SemVer,
} from "../config/version.ts";

/** The oldest version an upgrade may go to (`MinimumControlPlaneVersion`). */
export const MINIMUM_UPGRADE_TARGET: SemVer = MINIMUM_CONTROL_PLANE_VERSION;

/** The normalized target (`v1.37.2`); throws naming the version argument. */
export function normalizeUpgradeTarget(text: string): string {
  let version: string;
  try {
    version = resolveKubernetesVersion(text).version;
  } catch (e) {
    throw new ConfigError(errorMessage(e), { field: "version", value: text });
  }
  const v = parseSemVer(version);
  if (!v) {
    throw new ConfigError(`couldn't parse Kubernetes version ${JSON.stringify(version)}`, {
      field: "version",
      value: text,
    });
  }
  if (compareSemVer(v, MINIMUM_UPGRADE_TARGET) < 0) {
    throw new ConfigError(
      `this version of kubeadm only supports deploying clusters with the control plane version >= ${
        formatSemVer(MINIMUM_UPGRADE_TARGET)
      }. Current version: ${version}`,
      { field: "version", value: text, hint: "upgrade to a newer version" },
    );
  }
  return version;
}
