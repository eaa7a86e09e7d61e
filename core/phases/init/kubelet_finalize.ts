/**
 * `kubeadm init phase kubelet-finalize enable-client-cert-rotation`: once the kubelet has a
 * rotatable client certificate (`<kubelet cert dir>/kubelet-client-current.pem`, the cert dir
 * being `/var/lib/kubelet/pki` or the kubelet's `cert-dir` extra argument), rewrites
 * `/etc/kubernetes/kubelet.conf` to point at it and restarts the kubelet. Without the file it
 * does nothing; in dry-run it only prints the line.
 *
 * @module
 */
import {
  KUBELET_CLIENT_CURRENT_PEM,
  kubeletFinalizeMessage,
  pointToRotatableClientCert,
} from "../../cluster/kubelet_finalize.ts";
import { KubeconfigFile } from "../../constants.ts";
import { KubeadmError } from "../../errors.ts";
import { parseKubeconfig, serializeKubeconfig } from "../../kubeconfig/kubeconfig.ts";
import { getArgValue } from "../../manifests/arguments.ts";
import { kubeletControl } from "../../kubelet/service.ts";
import type { InitData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** The kubelet's current client certificate path, honouring a `cert-dir` kubelet argument. */
function kubeletClientCertPath(data: InitData): string {
  const kubeletPkiDir = getArgValue(data.cfg.init.nodeRegistration.kubeletExtraArgs, "cert-dir");
  return kubeletPkiDir === undefined
    ? KUBELET_CLIENT_CURRENT_PEM
    : `${kubeletPkiDir.replace(/\/+$/, "")}/kubelet-client-current.pem`;
}

/** `kubelet-finalize/enable-client-cert-rotation`. */
export async function runEnableClientCertRotation(data: InitData): Promise<void> {
  const pemPath = kubeletClientCertPath(data);
  const log = (m: string) => data.out.log?.(1, "kubelet_finalize.ts", `[kubelet-finalize] ${m}`);
  if (await data.files.read(pemPath) === undefined) {
    log(
      `Assuming that kubelet client certificate rotation is disabled: open ${pemPath}: no such file or directory`,
    );
    return;
  }
  log(
    `Assuming that kubelet client certificate rotation is enabled: found ${
      JSON.stringify(pemPath)
    }`,
  );
  const kubeconfigPath = `${data.kubeconfigDir.replace(/\/+$/, "")}/${KubeconfigFile.kubelet}`;
  data.out.info(kubeletFinalizeMessage(kubeconfigPath));
  if (data.dryRun) return;
  const bytes = await data.files.read(kubeconfigPath);
  if (bytes === undefined) {
    throw new KubeadmError(`could not load kubeconfig file ${JSON.stringify(kubeconfigPath)}`, {
      hint: 'generate it with "kubeadm init phase kubeconfig kubelet"',
    });
  }
  const updated = pointToRotatableClientCert(parseKubeconfig(bytes, kubeconfigPath), pemPath);
  await data.files.write({
    path: kubeconfigPath,
    data: serializeKubeconfig(updated),
    mode: 0o600,
    kind: "kubeconfig",
  });
  log("Restarting the kubelet to enable client certificate rotation");
  if (data.node) await kubeletControl(data.node, data.out).restart();
}

const INPUTS = ["certificatesDir", "config", "dryRun"] as const;

/** `init phase kubelet-finalize`. */
export const kubeletFinalizePhase: Phase<InitData> = {
  name: "kubelet-finalize",
  short: "Updates settings relevant to the kubelet after TLS bootstrap",
  phases: [
    {
      name: "all",
      short: "Run all kubelet-finalize phases",
      runAllSiblings: true,
      inputs: INPUTS,
    },
    {
      name: "enable-client-cert-rotation",
      short: "Enable kubelet client certificate rotation",
      run: runEnableClientCertRotation,
      inputs: INPUTS,
    },
  ],
};
