/**
 * The reset `preflight` phase: unless `--force` or `--dry-run`, warn and ask for confirmation;
 * then run the root check.
 *
 * @module
 */
import { KubeadmError } from "../../errors.ts";
import { rootChecks } from "../../preflight/catalog.ts";
import { PreflightRun } from "../../preflight/runner.ts";
import type { ResetData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** The confirmation question. */
export const RESET_PROMPT = "[reset] Are you sure you want to proceed? [y/N]: ";

/** Asks for confirmation (unless forced or dry-running) and runs `IsPrivilegedUser`. */
export async function runResetPreflight(data: ResetData): Promise<void> {
  if (!data.force && !data.dryRun) {
    data.out.warn(
      "[reset] WARNING: Changes made to this host by 'kubeadm init' or 'kubeadm join' will be reverted.",
    );
    const answer = (await data.confirm(RESET_PROMPT))?.trim().toLowerCase();
    if (answer !== "y" && answer !== "yes") {
      throw new KubeadmError("won't proceed; the user didn't answer (Y|y) in order to continue", {
        hint: "answer y, or pass --force to skip the question",
      });
    }
  }
  data.out.info("[preflight] Running pre-flight checks");
  const run = new PreflightRun(data.node.machine, {
    command: "reset",
    ignore: data.ignore,
    out: data.out,
    dryRun: data.dryRun,
  });
  await run.run(rootChecks());
}

/** `reset phase preflight`. */
export const preflightPhase: Phase<ResetData> = {
  name: "preflight",
  aliases: ["pre-flight"],
  short: "Run reset pre-flight checks",
  long: "Run pre-flight checks for kubeadm reset.",
  run: runResetPreflight,
  inputs: ["ignorePreflightErrors", "force", "dryRun"],
};
