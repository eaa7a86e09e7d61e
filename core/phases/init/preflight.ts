/**
 * `kubeadm init phase preflight`: kubeadm's checks of the machine (`core/preflight/init.ts`,
 * loaded when the phase runs), while the run's keys start generating. A plan, which has no
 * machine to inspect and always skips the phase, gives the phase work of its own
 * ({@link preflightPhaseWith}) and so does not carry the checks at all (they are a good part
 * of the library bundle).
 *
 * @module
 */
import { KubeadmError } from "../../errors.ts";
import type { Phase } from "../../workflow/phase.ts";
import type { InitData } from "./data.ts";

/** The preflight phase doing `work`. */
export function preflightPhaseWith(work: (data: InitData) => Promise<void>): Phase<InitData> {
  return {
    name: "preflight",
    short: "Run pre-flight checks",
    run: work,
    // `-o` is a kubeadm-ts addition: the JSON report of every check.
    inputs: [
      "config",
      "criSocket",
      "dryRun",
      "ignorePreflightErrors",
      "imageRepository",
      "output",
    ],
  };
}

async function runChecks(data: InitData): Promise<void> {
  if (!data.node) {
    throw new KubeadmError("the preflight phase needs a host to inspect", {
      hint: "the runtime did not provide one; skip it with --skip-phases=preflight",
    });
  }
  // The keys the certs and kubeconfig phases will make depend only on the configuration and
  // the files already there: start them now (the certs phase takes the pending ones), so that
  // the slow part of those phases, RSA key generation, runs while the checks wait on the machine.
  const [{ runInitPreflight }, { prefetchKeys }] = await Promise.all([
    import("../../preflight/init.ts"),
    import("./certs.ts"),
  ]);
  await prefetchKeys(data);
  // `--ignore-preflight-errors` is already merged into nodeRegistration by the resolver.
  await runInitPreflight(data, data.node.machine, { ignore: [], output: data.preflightOutput });
}

/** The preflight phase running kubeadm's checks on the InitData's node. */
export const preflightPhase: Phase<InitData> = /* @__PURE__ */ preflightPhaseWith(runChecks);
