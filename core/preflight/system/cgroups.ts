/**
 * The cgroups validator: the controllers the kubelet needs must be available (from
 * `/sys/fs/cgroup/cgroup.controllers` on cgroup v2, `/proc/cgroups` on v1), and cgroup v1 itself
 * draws a warning.
 *
 * @module
 */
import { errorMessage } from "../../errors.ts";
import type { Machine } from "../../host/machine.ts";
import type { ValidatorOutcome } from "./kernel.ts";
import type { ValidationReport } from "./report.ts";
import type { SysSpec } from "./spec.ts";

/** The cgroup v1 deprecation warning. */
export const CGROUP_V1_WARNING = "cgroups v1 support is in maintenance mode, please migrate to " +
  "cgroups v2";

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

/** Runs the cgroups validator. */
export async function validateCgroups(
  host: Machine,
  spec: SysSpec,
  report: ValidationReport,
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
    out.warnings.push(CGROUP_V1_WARNING);
    const data = await host.readSystemFile("/proc/cgroups");
    if (data === undefined) {
      out.errors.push(
        "failed to get cgroups v1 subsystems: open /proc/cgroups: no such file or directory",
      );
      return out;
    }
    subsystems = parseProcCgroups(new TextDecoder().decode(data));
    required = spec.cgroups;
    optional = spec.cgroupsOptional;
  }
  const missingRequired = validateSubsystems(required, subsystems, true, report);
  if (missingRequired.length > 0) {
    out.errors.push(`missing required cgroups: ${missingRequired.join(" ")}`);
  }
  const missingOptional = validateSubsystems(optional, subsystems, false, report);
  if (missingOptional.length > 0) {
    out.warnings.push(`missing optional cgroups: ${missingOptional.join(" ")}`);
  }
  return out;
}
