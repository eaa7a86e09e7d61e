/**
 * `kubeadm init phase kubeconfig`: the kubeconfig folder line (and the concurrent generation of
 * the client keys still missing), then each file of `core/kubeconfig/files.ts` as its own
 * sub-phase.
 *
 * @module
 */
import { ensureKubeconfigFile, kubeconfigDirLine } from "../../kubeconfig/files.ts";
import { KUBECONFIG_SPECS } from "../../kubeconfig/specs.ts";
import { keylessCA, prefetchKeys } from "../../certs/tree.ts";
import { certTree } from "./certs.ts";
import type { InitData } from "./data.ts";

/**
 * The kubeconfig phase's own step: `[kubeconfig] Using kubeconfig folder "<dir>"`, and the
 * client keys of the files this run will write start generating concurrently.
 */
export async function runKubeconfigHeader(data: InitData): Promise<void> {
  data.out.info(kubeconfigDirLine(data.kubeconfigDir));
  if (await keylessCA(data.files, data.cfg.cluster.certificatesDir)) return;
  const kubeconfigs = KUBECONFIG_SPECS
    .filter((s) => !data.willRun || data.willRun(`kubeconfig/${s.name}`))
    .map((s) => s.fileName);
  await prefetchKeys(certTree(data), { certs: [], kubeconfigs, kubeconfigDir: data.kubeconfigDir });
}

/** Runs one `init phase kubeconfig <name>` sub-phase (`admin`, `super-admin`, `kubelet`, ...). */
export function runKubeconfig(data: InitData, name: string): Promise<void> {
  return ensureKubeconfigFile({ ...certTree(data), kubeconfigDir: data.kubeconfigDir }, name);
}
