/**
 * `NumCPU` and `Mem`: the minimum machine size for a control-plane node.
 *
 * @module
 */
import { errorMessage } from "../../errors.ts";
import { type Check, fail, pass } from "../check.ts";

/** CPUs a control-plane node needs (upstream's `ControlPlaneNumCPU`). */
const CONTROL_PLANE_NUM_CPU = 2;
/** MiB of RAM a control-plane node needs (upstream's `ControlPlaneMem`). */
const CONTROL_PLANE_MEM_MIB = 1700;

/** Fails when fewer than `required` CPUs are available to the process. */
export function numCPUCheck(required = CONTROL_PLANE_NUM_CPU): Check {
  return {
    name: "NumCPU",
    severity: "error",
    async run(host) {
      const n = await host.numCPU();
      return n < required
        ? fail(`the number of available CPUs ${n} is less than the required ${required}`)
        : pass();
    },
  };
}

/** Fails when the machine has less than `requiredMiB` of RAM. */
export function memCheck(requiredMiB = CONTROL_PLANE_MEM_MIB): Check {
  return {
    name: "Mem",
    severity: "error",
    async run(host) {
      let actual: number;
      try {
        actual = await host.memTotalMiB();
      } catch (e) {
        return fail(`failed to get system info: ${errorMessage(e)}`);
      }
      return actual < requiredMiB
        ? fail(`the system RAM (${actual} MB) is less than the minimum ${requiredMiB} MB`)
        : pass();
    },
  };
}
