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
import { kubeconfigSpec } from "../../kubeconfig/specs.ts";
import { prefetchKeys } from "../../certs/tree.ts";
import { PkiDirectory } from "../../certs/pki_dir.ts";
import { certTree, kubeconfigTree, plannedKubeconfigs } from "./certs.ts";
import type { InitData } from "./data.ts";

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
