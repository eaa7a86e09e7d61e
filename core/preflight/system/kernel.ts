/**
 * The kernel validator: `uname -r` against the supported releases (a warning since v1.34),
 * and the kernel build configuration against the required and optional options.
 *
 * The configuration is read from the first of upstream's candidate files that exists
 * (`/proc/config.gz`, `/boot/config-<release>`, ...). Upstream additionally tries
 * `modprobe configs` when none exists; kubeadm-ts does not load kernel modules, so it reports
 * the missing configuration directly.
 *
 * @module
 */
import { errorMessage, KubeadmError } from "../../errors.ts";
import type { Machine } from "../../ports/machine.ts";
import type { ValidationReport } from "./report.ts";
import type { KernelConfig, KernelSpec } from "./spec.ts";

/** Warnings and errors from one validator. */
export interface ValidatorOutcome {
  warnings: string[];
  errors: string[];
}

/** Where upstream looks for the kernel configuration, in order. */
function kernelConfigPaths(release: string): string[] {
  return [
    "/proc/config.gz",
    `/boot/config-${release}`,
    `/usr/src/linux-${release}/.config`,
    "/usr/src/linux/.config",
    `/usr/lib/modules/${release}/config`,
    `/usr/lib/ostree-boot/config-${release}`,
    `/usr/lib/kernel/config-${release}`,
    `/usr/src/linux-headers-${release}/.config`,
    `/lib/modules/${release}/build/.config`,
  ];
}

async function gunzip(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Parses `CONFIG_X=y|m|n` lines into option → first letter of the value. */
export function parseKernelConfig(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!/^CONFIG_[A-Z0-9_]+=[myn]/.test(line)) continue;
    const [name, value] = line.split("=");
    out.set(name, value[0]);
  }
  return out;
}

async function readKernelConfig(host: Machine, release: string): Promise<string> {
  const paths = kernelConfigPaths(release);
  for (const path of paths) {
    const data = await host.readSystemFile(path);
    if (data === undefined) continue;
    const bytes = path.endsWith(".gz") ? await gunzip(data) : data;
    return new TextDecoder().decode(bytes);
  }
  throw new KubeadmError(`no config path in [${paths.join(" ")}] is available`);
}

/** Checks the options in `config` against the spec, reporting each; returns the bad ones. */
function validateKernelConfig(
  config: Map<string, string>,
  spec: KernelSpec,
  report: ValidationReport,
  cgroupV2: boolean,
): string[] {
  const bad: string[] = [];
  const check = (kc: KernelConfig, expect: "required" | "optional" | "forbidden") => {
    const [found, missing] = expect === "required"
      ? ["good", "bad"] as const
      : expect === "optional"
      ? ["good", "warn"] as const
      : ["bad", "good"] as const;
    const record = (name: string, msg: string, result: "good" | "warn" | "bad") => {
      if (result === "bad") bad.push(name);
      if (result !== "good" && kc.description) msg = `${msg} - ${kc.description}`;
      report.report(name, msg, result);
    };
    let name = "";
    let opt: string | undefined;
    for (const candidate of [kc.name, ...(kc.aliases ?? [])]) {
      name = `CONFIG_${candidate}`;
      opt = config.get(name);
      if (opt !== undefined) break;
    }
    if (opt === undefined) return record(name, "not set", missing);
    if (opt === "y") return record(name, "enabled", found);
    if (opt === "m") return record(name, "enabled (as module)", found);
    if (opt === "n") return record(name, "disabled", missing);
    record(name, `unknown option: ${opt}`, missing);
  };
  for (const kc of spec.required) check(kc, "required");
  for (const kc of cgroupV2 ? spec.requiredCgroupsV2 : spec.requiredCgroupsV1) {
    check(kc, "required");
  }
  for (const kc of spec.optional) check(kc, "optional");
  for (const kc of spec.forbidden) check(kc, "forbidden");
  return bad;
}

/** Runs the kernel validator. */
export async function validateKernel(
  host: Machine,
  spec: KernelSpec,
  report: ValidationReport,
): Promise<ValidatorOutcome> {
  const out: ValidatorOutcome = { warnings: [], errors: [] };
  let release: string;
  try {
    release = (await host.kernelRelease()).trim();
  } catch (e) {
    out.errors.push(`failed to get kernel release: ${errorMessage(e)}`);
    return out;
  }
  if (spec.versions.some((re) => re.test(release))) {
    report.report("KERNEL_VERSION", release, "good");
  } else {
    report.report("KERNEL_VERSION", release, "bad");
    out.warnings.push(`kernel release ${release} is unsupported. ${spec.versionsNote}`);
  }
  const options = spec.required.length + spec.optional.length + spec.forbidden.length +
    spec.requiredCgroupsV1.length + spec.requiredCgroupsV2.length;
  if (options === 0) return out;
  let text: string;
  try {
    text = await readKernelConfig(host, release);
  } catch (e) {
    out.errors.push(`failed to parse kernel config: ${errorMessage(e)}`);
    return out;
  }
  const cgroupV2 = await host.cgroupVersion().then((v) => v === 2, () => false);
  const bad = validateKernelConfig(parseKernelConfig(text), spec, report, cgroupV2);
  if (bad.length > 0) out.errors.push(`unexpected kernel config: ${bad.join(" ")}`);
  return out;
}
