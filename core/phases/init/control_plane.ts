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
import type { Phase } from "../../workflow/phase.ts";

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

/** What every component's command takes. */
const COMMON_INPUTS = [
  "certificatesDir",
  "config",
  "dryRun",
  "kubernetesVersion",
  "imageRepository",
  "patchesDir",
] as const;
/** The API server's (and `all`'s) inputs: its address, port, endpoint, features, services. */
const APISERVER_INPUTS = [
  ...COMMON_INPUTS,
  "advertiseAddress",
  "bindPort",
  "controlPlaneEndpoint",
  "featureGates",
  "serviceSubnet",
] as const;

/** `init phase control-plane`: one sub-phase per component's static Pod manifest. */
export const controlPlanePhase: Phase<InitData> = {
  name: "control-plane",
  short: "Generate all static Pod manifest files necessary to establish the control plane",
  run: runControlPlaneHeader,
  phases: [
    {
      name: "all",
      short: "Generate all static Pod manifest files",
      runAllSiblings: true,
      inputs: [...APISERVER_INPUTS, "podSubnet"],
    },
    {
      name: "apiserver",
      short: "Generates the kube-apiserver static Pod manifest",
      run: (data) => runControlPlane(data, "kube-apiserver"),
      inputs: APISERVER_INPUTS,
    },
    {
      name: "controller-manager",
      short: "Generates the kube-controller-manager static Pod manifest",
      run: (data) => runControlPlane(data, "kube-controller-manager"),
      inputs: [...COMMON_INPUTS, "podSubnet"],
    },
    {
      name: "scheduler",
      short: "Generates the kube-scheduler static Pod manifest",
      run: (data) => runControlPlane(data, "kube-scheduler"),
      inputs: COMMON_INPUTS,
    },
  ],
};
