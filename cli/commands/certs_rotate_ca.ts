/**
 * Beyond upstream: `kubeadm certs rotate-ca` (the whole rotation on a control plane, resuming
 * where it stopped) and `kubeadm certs rotate-ca phase <preflight|prepare|trust|reissue|finish|node>`
 * (`core/phases/rotate_ca/`), registered under `certs`. `--dry-run` prints the stage, every
 * step, and what the next phase would write and restart.
 *
 * @module
 */
import type { Command } from "commander";
import { addFlags, type FlagName, flagValues } from "../flags.ts";
import { consolePrinter, stdout } from "../output.ts";
import { requireSubcommand } from "../usage.ts";

const FLAGS: readonly FlagName[] = ["ca", "ca-cert", "ca-key", "cert-dir", "dry-run", "kubeconfig"];
const NODE_FLAGS: readonly FlagName[] = ["ca", "cert-dir", "dry-run", "kubeconfig"];

const LONG =
  `Rotate a certificate authority of the cluster (beyond upstream, which documents this as a manual procedure): the cluster CA ("ca", the default) or, with --ca front-proxy-ca or --ca etcd-ca, the front-proxy CA or a stacked etcd's CA.

The rotation goes through stages; each phase does one, reads from the files how far the rotation got, and does nothing twice, so running the command again resumes an interrupted rotation:

  1. prepare  (first control plane) keep the CA in use and make (or take, --ca-cert/--ca-key) the new one in <certificatesDir>/ca-rotation; copy that folder to the other control planes
  2. trust    (every control plane) ca.crt, the kubeconfig files, cluster-info and every namespace's kube-root-ca.crt trust old and new; the control plane restarts one component at a time
  3. node     (every other node) the kubelet takes the new trust from cluster-info
  4. reissue  (every control plane, once every Node trusts the new CA) the new CA signs; every leaf and kubeconfig it signs is re-issued; the control plane restarts
  5. node     (every other node) the kubelet gets a client certificate from the new CA
  6. finish   (every control plane, once every kubelet has one) the old CA is trusted nowhere; the kubeadm-certs Secret is deleted; ca-rotation is removed
  7. node     (every other node) the kubelet drops the old CA

"kubeadm certs rotate-ca" runs 1, 2, 4 and 6 with this node's part of 3, 5 and 7, and stops, saying what to run where, when another node has not caught up.

With --ca front-proxy-ca the same control-plane phases rotate front-proxy-ca.crt/.key (in <certificatesDir>/front-proxy-ca-rotation) and re-issue front-proxy-client; only kube-apiserver and kube-controller-manager read it (the API server publishes it in kube-system/extension-apiserver-authentication for aggregated API servers), so there is no node step: "phase node --ca front-proxy-ca" says so and does nothing. With --ca etcd-ca likewise for etcd/ca.crt/.key (in <certificatesDir>/etcd-ca-rotation): etcd and kube-apiserver read it; etcd's server, peer and healthcheck-client certificates and apiserver-etcd-client are re-issued; etcd restarts last, only while its other members keep quorum.`;

async function run(cmd: Command, only?: string): Promise<void> {
  const flags = flagValues(cmd);
  const { rotateCaData } = await import("../certs_rotate_ca_runtime.ts");
  const { runRotateCa } = await import("../../core/phases/rotate_ca/workflow.ts");
  const data = await rotateCaData(flags, consolePrinter);
  if (data.dryRun) {
    const { caRotationSteps, rotationState } = await import("../../core/certs/ca_rotation.ts");
    const state = await rotationState(data.pki, data.ca).catch(() => undefined);
    stdout(`[dryrun] Rotation stage: ${state?.stage ?? "unknown"} (${data.ca.name})`);
    caRotationSteps(data.ca).forEach((s, i) =>
      stdout(`[dryrun] ${i + 1}. ${s.phase} (${s.on}): ${s.does}`)
    );
  }
  const { faultInjectionArmed, faultPoint } = await import(
    "../../adapters/deno/fault_injection.ts"
  );
  await runRotateCa(data, {
    only,
    onPhase: faultInjectionArmed() ? (path) => faultPoint(`phase:${path}`) : undefined,
  });
  if (data.dryRun) stdout("[dryrun] Nothing was written and nothing was restarted.");
}

/** Registers `certs rotate-ca` and its `phase` commands under `certs`. */
export function registerRotateCa(certs: Command): void {
  const rotate = addFlags(
    certs.command("rotate-ca")
      .summary(
        "Rotate the cluster, front-proxy or etcd CA, resuming an interrupted rotation (beyond upstream)",
      )
      .description(LONG),
    FLAGS,
    "certs rotate-ca",
  ).action((_opts: unknown, cmd: Command) => run(cmd));
  const phase = requireSubcommand(
    rotate.command("phase").description(
      "Use this command to invoke single phase of the rotate-ca workflow",
    ),
  );
  const phases: [string, string][] = [
    ["preflight", "Check that the CA can be rotated from this node now"],
    ["prepare", "Keep the CA in use and make (or take) the new one"],
    ["trust", "Trust the old and the new CA on this control plane; restart in order"],
    ["reissue", "Sign with the new CA; re-issue every leaf and kubeconfig; restart in order"],
    ["finish", "Trust only the new CA on this control plane; remove the old one"],
  ];
  for (const [name, summary] of phases) {
    addFlags(phase.command(name).summary(summary), FLAGS, "certs rotate-ca")
      .action((_opts: unknown, cmd: Command) => run(cmd, name));
  }
  addFlags(
    phase.command("node").summary(
      "Take the cluster's published CA trust and signer into this node's kubelet (every node)",
    ),
    NODE_FLAGS,
    "certs rotate-ca",
  ).action((_opts: unknown, cmd: Command) => run(cmd, "node"));
}
