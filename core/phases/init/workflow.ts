/**
 * The `kubeadm init` workflow of the command line: the phases of `./phases.ts`, with kubeadm's
 * preflight checks of the machine as the preflight phase's work.
 *
 * @module
 */
import { KubeadmError } from "../../errors.ts";
import type { Workflow } from "../../workflow/phase.ts";
import type { InitData } from "./data.ts";
import { initWorkflowWith } from "./phases.ts";

const preflight = () => import("../../preflight/init.ts");

/** Builds the init workflow. */
export function initWorkflow(): Workflow<InitData> {
  return initWorkflowWith(runPreflightPhase);
}

async function runPreflightPhase(data: InitData): Promise<void> {
  if (!data.node) {
    throw new KubeadmError("the preflight phase needs a host to inspect", {
      hint: "the runtime did not provide one; skip it with --skip-phases=preflight",
    });
  }
  // `--ignore-preflight-errors` is already merged into nodeRegistration by the resolver.
  await (await preflight()).runInitPreflight(data, data.node.machine, {
    ignore: [],
    output: data.preflightOutput,
  });
}
