/**
 * `kubeadm init phase certs-auto-renewal` (beyond upstream): installs the certificate
 * auto-renewal schedule (`core/certs/auto_renewal.ts`) at the end of `init` when given
 * `--certificate-auto-renewal`; run alone, it installs it unasked. Skipped otherwise. Declared
 * for any workflow whose data carries the request: join's phase is this one too.
 *
 * @module
 */
import {
  AUTO_RENEWAL_PHASE,
  type AutoRenewalPhaseInput,
  type AutoRenewalRequest,
  installRequestedAutoRenewal,
} from "../../certs/auto_renewal.ts";
import type { InputName } from "../../config/inputs.ts";
import type { InitData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** What the phase reads of its workflow's data. */
export type AutoRenewalData =
  & Pick<AutoRenewalPhaseInput, "files" | "out" | "dryRun">
  & { node?: AutoRenewalPhaseInput["node"]; certificateAutoRenewal?: AutoRenewalRequest };

/**
 * The phase of a workflow: `command` names it in the help, `validity` reads the cluster's
 * `certificateValidityPeriod` from the data.
 */
export function certsAutoRenewalPhaseOf<D extends AutoRenewalData>(o: {
  command: string;
  validity: (data: D) => Promise<string | undefined>;
  inputs: readonly InputName[];
}): Phase<D> {
  return {
    name: AUTO_RENEWAL_PHASE,
    short: "Install the certificate auto-renewal schedule (with --certificate-auto-renewal)",
    long:
      `Installs a schedule on this control-plane node (a systemd timer, or on OpenRC a script the cron daemon runs) that renews, daily, the certificates expiring within 720h and restarts what uses them. '${o.command}' runs it when given --certificate-auto-renewal; 'kubeadm certs auto-renewal install' changes its settings, 'kubeadm reset' removes it. Beyond upstream.`,
    runIf: (data) => data.certificateAutoRenewal !== undefined,
    run: async (data) =>
      await installRequestedAutoRenewal({
        request: data.certificateAutoRenewal!,
        certificateValidityPeriod: await o.validity(data),
        node: data.node,
        files: data.files,
        out: data.out,
        dryRun: data.dryRun,
      }),
    inputs: o.inputs,
  };
}

/** `init phase certs-auto-renewal`. */
export const certsAutoRenewalPhase: Phase<InitData> = certsAutoRenewalPhaseOf<
  InitData
>({
  command: "kubeadm init",
  validity: (data) => Promise.resolve(data.cfg.cluster.certificateValidityPeriod),
  inputs: ["config", "dryRun"],
});
