/**
 * The cgroups validator (`k8s.io/system-validators` v1.12.1): the controllers the kubelet needs
 * must be available (from `/sys/fs/cgroup/cgroup.controllers` on cgroup v2, `/proc/cgroups` on
 * v1). A cgroup v1 host is an error for a kubelet v1.35 or newer (it refuses cgroup v1 unless
 * `failCgroupV1: false`), a warning for older kubelets.
 *
 * @module
 */
import { errorMessage } from "../../errors.ts";
import type { Machine } from "../../ports/machine.ts";
import type { ValidatorOutcome } from "./kernel.ts";
import type { ValidationReport } from "./report.ts";
import type { SysSpec } from "./spec.ts";

/** The cgroup v1 deprecation message (an error for kubelet v1.35+, else a warning). */
export const CGROUP_V1_DEPRECATED =
  "cgroups v1 support is deprecated and will be removed in a future release. " +
  "Please migrate to cgroups v2. To explicitly enable cgroups v1 support for kubelet v1.35 or newer, " +
  "you must set the kubelet configuration option 'FailCgroupV1' to 'false'. You must also explicitly " +
  "skip this validation. For more information, see https://git.k8s.io/enhancements/keps/sig-node/5573-remove-cgroup-v1";

/** The first kubelet that refuses cgroup v1 by default (`1.35.0-0`). */
const CGROUP_V1_DISABLED_FROM = { major: 1, minor: 35 };

/** Enabled cgroup v1 controllers listed in `/proc/cgroups` text. */
export function parseProcCgroups(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const parts = line.trim().split(/\s+/);
    if (parts.length >= 4 && parts[3] !== "0") out.push(parts[0]);
  }
  return out;
}

function validateSubsystems(
  wanted: readonly string[],
  available: readonly string[],
  required: boolean,
  report: ValidationReport,
): string[] {
  const missing: string[] = [];
  for (const cgroup of wanted) {
    const item = `CGROUPS_${cgroup.toUpperCase()}`;
    if (available.includes(cgroup)) {
      report.report(item, "enabled", "good");
      continue;
    }
    report.report(item, "missing", required ? "bad" : "warn");
    missing.push(cgroup);
  }
  return missing;
}

/**
 * Runs the cgroups validator. `kubeletVersion` (`1.37.2`; with upgrade, the next minor) decides
 * whether cgroup v1 is an error.
 */
export async function validateCgroups(
  host: Machine,
  spec: SysSpec,
  report: ValidationReport,
  kubeletVersion?: { major: number; minor: number },
): Promise<ValidatorOutcome> {
  const out: ValidatorOutcome = { warnings: [], errors: [] };
  let version: 1 | 2;
  try {
    version = await host.cgroupVersion();
  } catch (e) {
    out.errors.push(`cannot statfs the cgroupv2 root: ${errorMessage(e)}`);
    return out;
  }
  let subsystems: string[];
  let required: readonly string[];
  let optional: readonly string[];
  if (version === 2) {
    const path = "/sys/fs/cgroup/cgroup.controllers";
    const data = await host.readSystemFile(path);
    if (data === undefined) {
      out.errors.push(
        `failed to get cgroups v2 subsystems: open ${path}: no such file or directory`,
      );
      return out;
    }
    // devices and freezer are implicit in cgroup v2 and never listed.
    subsystems = ["devices", "freezer", ...new TextDecoder().decode(data).trim().split(/\s+/)];
    required = spec.cgroupsV2;
    optional = spec.cgroupsV2Optional;
  } else {
    const v = kubeletVersion;
    const disabled = v !== undefined &&
      (v.major > CGROUP_V1_DISABLED_FROM.major ||
        (v.major === CGROUP_V1_DISABLED_FROM.major && v.minor >= CGROUP_V1_DISABLED_FROM.minor));
    (disabled ? out.errors : out.warnings).push(CGROUP_V1_DEPRECATED);
    const data = await host.readSystemFile("/proc/cgroups");
    if (data === undefined) {
      // Upstream returns this error alone.
      return {
        warnings: [],
        errors: [
          "failed to get cgroups v1 subsystems: open /proc/cgroups: no such file or directory",
        ],
      };
    }
    subsystems = parseProcCgroups(new TextDecoder().decode(data));
    required = spec.cgroups;
    optional = spec.cgroupsOptional;
  }
  const missingRequired = validateSubsystems(required, subsystems, true, report);
  if (missingRequired.length > 0) {
    // Upstream replaces any earlier error (the cgroup v1 one) with this one.
    out.errors.splice(
      0,
      out.errors.length,
      `missing required cgroups: ${missingRequired.join(" ")}`,
    );
  }
  const missingOptional = validateSubsystems(optional, subsystems, false, report);
  if (missingOptional.length > 0) {
    out.warnings.push(`missing optional cgroups: ${missingOptional.join(" ")}`);
  }
  return out;
}
