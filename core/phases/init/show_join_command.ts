/**
 * `kubeadm init phase show-join-command`: prints upstream's success message with the join
 * commands, once per bootstrap token. The commands come from admin.conf (server, one
 * `--discovery-token-ca-cert-hash` per CA certificate); the control-plane block appears only
 * when `controlPlaneEndpoint` is set, and `--skip-token-print` / `--skip-certificate-key-print`
 * replace the values with `<value withheld>`.
 *
 * @module
 */
import {
  initSuccessMessage,
  joinCommandFromKubeconfig,
  printLines,
} from "../../cluster/join_command.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import { adminKubeconfig } from "./cluster_access.ts";
import type { InitData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** The success message for one token. */
async function initSuccessText(data: InitData, token: string): Promise<string> {
  const admin = await adminKubeconfig(data.cluster);
  const common = {
    token,
    skipTokenPrint: data.skipTokenPrint,
    skipCertificateKeyPrint: data.skipCertificateKeyPrint,
  };
  try {
    const joinControlPlaneCommand = await joinCommandFromKubeconfig(admin, {
      ...common,
      controlPlane: true,
      certificateKey: data.cfg.init.certificateKey ?? "",
    }, data.crypto);
    const joinWorkerCommand = await joinCommandFromKubeconfig(admin, common, data.crypto);
    return initSuccessMessage({
      kubeconfigPath: data.cluster?.kubeconfigPath ?? `${data.kubeconfigDir}/admin.conf`,
      controlPlaneEndpoint: Boolean(data.cfg.cluster.controlPlaneEndpoint),
      uploadCerts: data.cfg.uploadCerts,
      joinWorkerCommand,
      joinControlPlaneCommand,
    });
  } catch (e) {
    throw new KubeadmError(`failed to print join command: ${errorMessage(e)}`, {
      cause: e,
      hint: e instanceof KubeadmError ? e.hint : undefined,
    });
  }
}

/** Runs the phase. */
export async function runShowJoinCommand(data: InitData): Promise<void> {
  for (const t of data.cfg.init.bootstrapTokens) {
    printLines(data.out, await initSuccessText(data, t.token));
  }
}

/** `init phase show-join-command`. */
export const showJoinCommandPhase: Phase<InitData> = {
  name: "show-join-command",
  short: "Show the join command for control-plane and worker node",
  run: runShowJoinCommand,
};
