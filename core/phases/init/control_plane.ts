/**
 * `kubeadm init phase control-plane`: the kube-apiserver, kube-controller-manager and
 * kube-scheduler static Pod manifests (`core/manifests/write.ts`), one sub-phase each.
 *
 * @module
 */
import type { ControlPlaneComponent } from "../../manifests/volumes.ts";
import { CONTROL_PLANE_COMPONENTS } from "../../manifests/manifest_file.ts";
import { manifestDirLine, writeControlPlaneManifest } from "../../manifests/write.ts";
import type { InitData } from "./data.ts";

/** The parent phase's line: `[control-plane] Using manifest folder "<dir>"`. */
export function runControlPlaneHeader(data: InitData): Promise<void> {
  data.out.info(manifestDirLine(data.manifestDir));
  return Promise.resolve();
}

/**
 * Writes the manifest of one control-plane component, or with `"all"` prints the manifest
 * folder line and writes all three (apiserver, controller-manager, scheduler).
 */
export async function runControlPlane(
  data: InitData,
  component: ControlPlaneComponent | "all",
): Promise<void> {
  if (component !== "all") return writeControlPlaneManifest(data, component);
  await runControlPlaneHeader(data);
  for (const c of CONTROL_PLANE_COMPONENTS) await writeControlPlaneManifest(data, c);
}
