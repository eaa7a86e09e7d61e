/**
 * `SystemVerification`: kernel release and configuration, operating system, cgroups.
 *
 * Since v1.35 the check first runs `kubelet --version` (failing at once when it cannot) and
 * hands that version to the cgroups validator (with upgrade, the next minor). When a validator
 * reports an error, the full report is printed on stdout (as upstream does) before the check's
 * warnings and errors.
 *
 * @module
 */
import { errorMessage } from "../../errors.ts";
import type { Check, CheckOutcome } from "../check.ts";
import type { Machine } from "../../ports/machine.ts";
import { validateCgroups } from "../system/cgroups.ts";
import { validateKernel, type ValidatorOutcome } from "../system/kernel.ts";
import { ValidationReport } from "../system/report.ts";
import { DEFAULT_SYS_SPEC, type SysSpec } from "../system/spec.ts";
import { parseKubeletVersion } from "./versions.ts";

/** The line printed before the report when the verification fails. */
const SYSTEM_VERIFICATION_FAILED =
  "[preflight] The system verification failed. Printing the output from the verification:";

async function validateOS(
  host: Machine,
  spec: SysSpec,
  report: ValidationReport,
): Promise<ValidatorOutcome> {
  let os: string;
  try {
    os = (await host.osName()).trim();
  } catch (e) {
    return { warnings: [], errors: [`failed to get os name: ${errorMessage(e)}`] };
  }
  if (os !== spec.os) {
    report.report("OS", os, "bad");
    return { warnings: [], errors: [`unsupported operating system: ${os}`] };
  }
  report.report("OS", os, "good");
  return { warnings: [], errors: [] };
}

/** Options of {@link systemVerificationCheck}. */
export interface SystemVerificationOptions {
  /** The checks of `upgrade`: the kubelet is judged at its next minor. */
  isUpgrade?: boolean;
  spec?: SysSpec;
}

/** Runs the kernel, OS and cgroups validators against the spec. */
export function systemVerificationCheck(opts: SystemVerificationOptions = {}): Check {
  const spec = opts.spec ?? DEFAULT_SYS_SPEC;
  return {
    name: "SystemVerification",
    severity: "error",
    async run(host, log): Promise<CheckOutcome> {
      log?.(1, "system_verification.ts", "running system verification checks");
      let kubelet;
      try {
        kubelet = parseKubeletVersion(await host.kubeletVersionOutput());
      } catch (e) {
        return { warnings: [], errors: [`couldn't get kubelet version: ${errorMessage(e)}`] };
      }
      if (opts.isUpgrade) kubelet = { ...kubelet, minor: kubelet.minor + 1 };
      const report = new ValidationReport();
      const outcome: CheckOutcome = { warnings: [], errors: [] };
      for (
        const v of [
          await validateKernel(host, spec.kernel, report),
          await validateOS(host, spec, report),
          await validateCgroups(host, spec, report, kubelet),
        ]
      ) {
        outcome.warnings.push(...v.warnings);
        outcome.errors.push(...v.errors);
      }
      if (outcome.errors.length > 0) outcome.stdout = [SYSTEM_VERIFICATION_FAILED, ...report.lines];
      return outcome;
    },
  };
}
