/**
 * `kubeadm init phase kubeconfig`: the kubeconfig folder line (and the concurrent generation of
 * the client keys still missing), then each file of `core/kubeconfig/files.ts` as its own
 * sub-phase.
 *
 * @module
 */
import {
  checkExistingKubeconfigs,
  ensureKubeconfigFile,
  kubeconfigDirLine,
} from "../../kubeconfig/files.ts";
import { KUBECONFIG_SPECS, kubeconfigSpec } from "../../kubeconfig/specs.ts";
import { prefetchKeys } from "../../certs/tree.ts";
import { PkiDirectory } from "../../certs/pki_dir.ts";
import { certTree, kubeconfigTree, plannedKubeconfigs } from "./certs.ts";
import type { InitData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/**
 * The kubeconfig phase's own step: `[kubeconfig] Using kubeconfig folder "<dir>"`, then every
 * existing file the sub-phases would refuse is refused (before any of them writes), and the
 * client keys of the files this run will write start generating concurrently.
 */
export async function runKubeconfigHeader(data: InitData): Promise<void> {
  data.out.info(kubeconfigDirLine(data.kubeconfigDir));
  const names = plannedKubeconfigs(data);
  await checkExistingKubeconfigs(kubeconfigTree(data), names);
  if (await PkiDirectory.of(data).isKeyless("ca")) return;
  await prefetchKeys(certTree(data), {
    certs: [],
    kubeconfigs: names.map((name) => kubeconfigSpec(name).fileName),
    kubeconfigDir: data.kubeconfigDir,
  });
}

/** Runs one `init phase kubeconfig <name>` sub-phase (`admin`, `super-admin`, `kubelet`, ...). */
export function runKubeconfig(data: InitData, name: string): Promise<void> {
  return ensureKubeconfigFile(kubeconfigTree(data), name);
}

/** What every kubeconfig file's command takes. */
const KUBECONFIG_INPUTS = [
  "advertiseAddress",
  "bindPort",
  "certificatesDir",
  "config",
  "controlPlaneEndpoint",
  "dryRun",
  "kubeconfigDir",
  "kubernetesVersion",
] as const;
/** kubelet.conf (and `all`) also take the node name. */
const KUBELET_KUBECONFIG_INPUTS = [...KUBECONFIG_INPUTS, "nodeName"] as const;

/** `init phase kubeconfig`: one sub-phase per kubeconfig file (`kubeconfig/specs.ts`). */
export const kubeconfigPhase: Phase<InitData> = {
  name: "kubeconfig",
  short:
    "Generate all kubeconfig files necessary to establish the control plane and the admin kubeconfig file",
  run: runKubeconfigHeader,
  phases: [
    {
      name: "all",
      short: "Generate all kubeconfig files",
      runAllSiblings: true,
      inputs: KUBELET_KUBECONFIG_INPUTS,
    },
    ...KUBECONFIG_SPECS.map((k): Phase<InitData> => ({
      name: k.name,
      short: k.short,
      run: (data) => runKubeconfig(data, k.name),
      inputs: k.name === "kubelet" ? KUBELET_KUBECONFIG_INPUTS : KUBECONFIG_INPUTS,
    })),
  ],
};
