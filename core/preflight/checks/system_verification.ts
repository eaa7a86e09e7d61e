/**
 * `SystemVerification`: kernel release and configuration, operating system, cgroups.
 *
 * When a validator reports an error, the full report is printed on stdout (as upstream does)
 * before the check's warnings and errors.
 *
 * @module
 */
import { errorMessage } from "../../errors.ts";
import type { Check, CheckOutcome } from "../check.ts";
import type { Machine } from "../../host/machine.ts";
import { validateCgroups } from "../system/cgroups.ts";
import { validateKernel, type ValidatorOutcome } from "../system/kernel.ts";
import { ValidationReport } from "../system/report.ts";
import { DEFAULT_SYS_SPEC, type SysSpec } from "../system/spec.ts";

/** The line printed before the report when the verification fails. */
export const SYSTEM_VERIFICATION_FAILED =
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

/** Runs the kernel, OS and cgroups validators against `spec`. */
export function systemVerificationCheck(spec: SysSpec = DEFAULT_SYS_SPEC): Check {
  return {
    name: "SystemVerification",
    severity: "error",
    async run(host): Promise<CheckOutcome> {
      const report = new ValidationReport();
      const outcome: CheckOutcome = { warnings: [], errors: [] };
      for (
        const v of [
          await validateKernel(host, spec.kernel, report),
          await validateOS(host, spec, report),
          await validateCgroups(host, spec, report),
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
