/**
 * `kubeadm reset` and `kubeadm reset phase <preflight|remove-etcd-member|cleanup-node>`,
 * generated from the core's reset workflow.
 *
 * @module
 */
import type { Command } from "commander";
import { RESET_OUTLINE } from "../phase_outlines.ts";
import type { ResetData } from "../../core/phases/reset/data.ts";
import type { ResetDeps } from "../reset_runtime.ts";
import type { FlagName } from "../flags.ts";
import { registerWorkflowCommand, type WorkflowCommand } from "../workflow_command.ts";

/** The flags of `kubeadm reset`, in upstream's (alphabetical) help order. */
const RESET_FLAGS: readonly FlagName[] = [
  "cert-dir",
  "cleanup-tmp-dir",
  "config",
  "cri-socket",
  "dry-run",
  "force",
  "ignore-preflight-errors",
  "kubeconfig",
  "skip-phases",
];

/** `kubeadm reset`. */
export function resetCommand(deps: ResetDeps = {}): WorkflowCommand<ResetData> {
  return {
    name: "reset",
    summary:
      "Performs a best effort revert of changes made to this host by 'kubeadm init' or 'kubeadm join'",
    flags: RESET_FLAGS,
    workflow: () => RESET_OUTLINE,
    prepare: async (invocation, common) =>
      (await import("../reset_runtime.ts")).prepareReset(invocation, { ...common, ...deps }),
  };
}

/** Registers `reset` and its generated `reset phase …` tree. */
export function registerReset(program: Command, deps: ResetDeps = {}): void {
  registerWorkflowCommand(program, resetCommand(deps), deps);
}
