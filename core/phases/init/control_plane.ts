/**
 * `kubeadm init phase control-plane`: the kube-apiserver, kube-controller-manager and
 * kube-scheduler static Pod manifests, patched with `--patches` and written (mode 0600) to the
 * manifest directory.
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import type { FileReader } from "../../host/ports.ts";
import type { ControlPlaneComponent } from "../../manifests/volumes.ts";
import {
  buildStaticPod,
  CONTROL_PLANE_COMPONENTS,
  patchStaticPod,
  type StaticPodComponent,
  staticPodManifestPath,
  staticPodManifestYaml,
} from "../../manifests/manifest_file.ts";
import { type ManifestInput, manifestInputFromInit } from "../../manifests/manifest_input.ts";
import { patchManagerFor } from "../../patches/patch_manager.ts";
import type { InitData } from "./data.ts";

/**
 * External CA mode as upstream detects it for the controller-manager flags: `ca.crt` exists
 * and `ca.key` does not.
 */
export async function usingExternalCA(
  files: FileReader,
  certificatesDir: string,
): Promise<boolean> {
  const crt = await files.read(`${certificatesDir}/ca.crt`);
  if (crt === undefined) return false;
  return (await files.read(`${certificatesDir}/ca.key`)) === undefined;
}

/** The builder input for this init run: config, host facts, external-CA mode, warnings. */
export async function initManifestInput(data: InitData): Promise<ManifestInput> {
  return manifestInputFromInit(data.cfg, {
    existingDirs: data.host.existingDirs,
    proxyEnv: data.host.proxyEnv,
    externalCA: await usingExternalCA(data.files, data.cfg.cluster.certificatesDir),
    warn: (line) => data.out.warn(line),
  });
}

/**
 * Applies `--patches` (when set) to a built static Pod and writes its manifest with mode 0600.
 * Shared by the control-plane and etcd phases.
 */
export async function writeStaticPodManifest(
  data: InitData,
  component: StaticPodComponent,
  pod: Pod,
): Promise<void> {
  if (data.patchesDir) {
    const manager = await patchManagerFor(data.files, data.patchesDir, (l) => data.out.info(l));
    try {
      pod = patchStaticPod(pod, manager);
    } catch (e) {
      throw new KubeadmError(
        `failed to patch static Pod manifest file for ${JSON.stringify(component)}: ${
          errorMessage(e)
        }`,
        { cause: e, field: "patches.directory", value: data.patchesDir },
      );
    }
  }
  const path = staticPodManifestPath(data.manifestDir, component);
  try {
    await data.files.write({
      path,
      data: staticPodManifestYaml(pod),
      mode: 0o600,
      kind: "manifest",
    });
  } catch (e) {
    throw new KubeadmError(
      `failed to create static pod manifest file for ${JSON.stringify(component)}: ${
        errorMessage(e)
      }`,
      { cause: e, value: path },
    );
  }
}

/** The parent phase's line: `[control-plane] Using manifest folder "<dir>"`. */
export function runControlPlaneHeader(data: InitData): Promise<void> {
  data.out.info(`[control-plane] Using manifest folder ${JSON.stringify(data.manifestDir)}`);
  return Promise.resolve();
}

async function createComponent(data: InitData, component: ControlPlaneComponent): Promise<void> {
  data.out.info(`[control-plane] Creating static Pod manifest for ${JSON.stringify(component)}`);
  const input = await initManifestInput(data);
  // Upstream builds every control-plane spec for each component it writes (so warnings about
  // the API server flags repeat per component); do the same, then keep the one asked for.
  const specs = new Map(CONTROL_PLANE_COMPONENTS.map((c) => [c, buildStaticPod(c, input)]));
  await writeStaticPodManifest(data, component, specs.get(component)!);
}

/**
 * Writes the manifest of one control-plane component, or with `"all"` prints the manifest
 * folder line and writes all three (apiserver, controller-manager, scheduler).
 */
export async function runControlPlane(
  data: InitData,
  component: ControlPlaneComponent | "all",
): Promise<void> {
  if (component !== "all") return createComponent(data, component);
  await runControlPlaneHeader(data);
  for (const c of CONTROL_PLANE_COMPONENTS) await createComponent(data, c);
}
