/**
 * `kubeadm join phase certs-auto-renewal` (beyond upstream): init's phase
 * (`../init/certs_auto_renewal.ts`) at the end of a control-plane join given
 * `--certificate-auto-renewal` (a worker join with it is refused before anything is done), the
 * window checked against the cluster's certificate validity.
 *
 * @module
 */
import { certsAutoRenewalPhaseOf } from "../init/certs_auto_renewal.ts";
import type { JoinData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** `join phase certs-auto-renewal`. */
export const certsAutoRenewalPhase: Phase<JoinData> = certsAutoRenewalPhaseOf<
  JoinData
>({
  command: "kubeadm join --control-plane",
  validity: async (data) => (await data.initCfg()).cluster.certificateValidityPeriod,
  inputs: ["config", "controlPlane", "dryRun"],
});
