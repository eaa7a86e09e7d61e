/**
 * The `kubeadm certs rotate-ca` workflow (beyond upstream): `preflight`, `prepare`, `trust`,
 * `reissue`, `finish` on a control plane, and `node`, run on its own on every node between
 * them. Each phase reads the stage from the files (`certs/ca_rotation.ts`) and does only its
 * own stage's work, so the whole workflow run again resumes where a killed run stopped, and
 * stops with what to run on which node when the other nodes have not caught up.
 *
 * @module
 */
import { type RunOptions, runWorkflow } from "../../workflow/runner.ts";
import type { Workflow } from "../../workflow/phase.ts";
import type { RotateCaData } from "./data.ts";
import { preflightPhase } from "./preflight.ts";
import { preparePhase } from "./prepare.ts";
import { trustPhase } from "./trust.ts";
import { reissuePhase } from "./reissue.ts";
import { finishPhase } from "./finish.ts";
import { nodePhase } from "./node.ts";

/** The rotate-ca workflow; `node` runs only when asked for alone. */
export function rotateCaWorkflow(): Workflow<RotateCaData> {
  return {
    name: "rotate-ca",
    phases: [
      preflightPhase,
      preparePhase,
      trustPhase,
      reissuePhase,
      finishPhase,
      { ...nodePhase, runIf: (d) => d.onlyNode === true },
    ],
  };
}

/** Runs the workflow, or one phase with `opts.only`. */
export async function runRotateCa(data: RotateCaData, opts: RunOptions = {}): Promise<void> {
  await runWorkflow(rotateCaWorkflow(), { ...data, onlyNode: opts.only === "node" }, opts);
}
