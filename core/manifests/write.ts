/**
 * Writing the static Pod manifests of a control-plane node: the builder input for this node
 * (external-CA mode detected from the certificates dir), `--patches` applied to a built Pod,
 * and the manifest written with mode 0600. `init`'s control-plane and etcd phases, a
 * control-plane `join` and `upgrade` call this.
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { FileSystem } from "../ports/files.ts";
import type { Printer } from "../ports/printer.ts";
import type { CryptoPort } from "../ports/crypto.ts";
import { PkiDirectory } from "../certs/pki_dir.ts";
import { patchManagerFor } from "../patches/patch_manager.ts";
import {
  buildStaticPod,
  CONTROL_PLANE_COMPONENTS,
  patchStaticPod,
  type StaticPodComponent,
  staticPodManifestPath,
  staticPodManifestYaml,
} from "./manifest_file.ts";
import { type ManifestInput, manifestInputFromInit } from "./manifest_input.ts";
import type { ControlPlaneComponent } from "./volumes.ts";

/** This module's name in verbose log lines. */
const LOG_SOURCE = "write.ts";

/** What writing a node's static Pod manifests needs. */
export interface ManifestWriteContext {
  /** The configuration of this node in its cluster. */
  cfg: ResolvedConfig;
  /** The node's files (real, or a dry-run overlay). */
  files: FileSystem;
  /** The run's crypto port (the certificates directory's keys). */
  crypto: CryptoPort;
  out: Printer;
  /** `/etc/kubernetes/manifests`. */
  manifestDir: string;
  /** `--patches` directory, if any. */
  patchesDir?: string;
  /** Host facts the manifests depend on. */
  host: {
    existingDirs: ReadonlySet<string>;
    proxyEnv: Readonly<Record<string, string>>;
  };
}

/** `[control-plane] Using manifest folder "<dir>"`. */
export function manifestDirLine(manifestDir: string): string {
  return `[control-plane] Using manifest folder ${JSON.stringify(manifestDir)}`;
}

/** The builder input for this node: config, host facts, external-CA mode, warnings. */
export async function nodeManifestInput(ctx: ManifestWriteContext): Promise<ManifestInput> {
  return manifestInputFromInit(ctx.cfg, {
    existingDirs: ctx.host.existingDirs,
    proxyEnv: ctx.host.proxyEnv,
    externalCA: await PkiDirectory.of(ctx).isKeyless("ca"),
    warn: (line) => ctx.out.warn(line),
    log: ctx.out.log,
  });
}

/** Applies `--patches` (when set) to a built static Pod and writes its manifest (mode 0600). */
export async function writeStaticPodManifest(
  ctx: ManifestWriteContext,
  component: StaticPodComponent,
  pod: Pod,
): Promise<void> {
  if (ctx.patchesDir) {
    const manager = await patchManagerFor(ctx.files, ctx.patchesDir, (l) => ctx.out.info(l));
    try {
      pod = patchStaticPod(pod, manager);
    } catch (e) {
      throw new KubeadmError(
        `failed to patch static Pod manifest file for ${JSON.stringify(component)}: ${
          errorMessage(e)
        }`,
        { cause: e, field: "patches.directory", value: ctx.patchesDir },
      );
    }
  }
  const path = staticPodManifestPath(ctx.manifestDir, component);
  try {
    await ctx.files.write({
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

/**
 * Writes a local etcd member's manifest and says so at `-v=1` (upstream
 * `CreateLocalEtcdStaticPodManifestFile`, as `init` and an upgrade write it).
 */
export async function writeLocalEtcdManifest(ctx: ManifestWriteContext, pod: Pod): Promise<void> {
  await writeStaticPodManifest(ctx, "etcd", pod);
  ctx.out.log?.(
    1,
    LOG_SOURCE,
    `[etcd] wrote Static Pod manifest for a local etcd member to ${
      JSON.stringify(staticPodManifestPath(ctx.manifestDir, "etcd"))
    }`,
  );
}

/** Writes the static Pod manifest of one control-plane component. */
export async function writeControlPlaneManifest(
  ctx: ManifestWriteContext,
  component: ControlPlaneComponent,
): Promise<void> {
  ctx.out.info(`[control-plane] Creating static Pod manifest for ${JSON.stringify(component)}`);
  ctx.out.log?.(1, LOG_SOURCE, "[control-plane] getting StaticPodSpecs");
  const input = await nodeManifestInput(ctx);
  // Upstream builds every control-plane spec for each component it writes (so warnings about
  // the API server flags repeat per component); do the same, then keep the one asked for.
  const specs = new Map(CONTROL_PLANE_COMPONENTS.map((c) => [c, buildStaticPod(c, input)]));
  await writeBuiltManifest(ctx, component, specs.get(component)!);
}

/**
 * Writes the manifests of the three control-plane components into `ctx.manifestDir` from one
 * set of specs (upstream `CreateInitStaticPodManifestFiles`, as an upgrade writes them).
 */
export async function writeControlPlaneManifests(ctx: ManifestWriteContext): Promise<void> {
  ctx.out.log?.(1, LOG_SOURCE, "[control-plane] creating static Pod files");
  ctx.out.log?.(1, LOG_SOURCE, "[control-plane] getting StaticPodSpecs");
  const input = await nodeManifestInput(ctx);
  for (const component of CONTROL_PLANE_COMPONENTS) {
    await writeBuiltManifest(ctx, component, buildStaticPod(component, input));
  }
}

/** Writes a built control-plane Pod, logging its volumes (`-v=2`) and the file (`-v=1`). */
async function writeBuiltManifest(
  ctx: ManifestWriteContext,
  component: ControlPlaneComponent,
  pod: Pod,
): Promise<void> {
  for (const v of pod.spec?.volumes ?? []) {
    ctx.out.log?.(
      2,
      LOG_SOURCE,
      `[control-plane] adding volume ${JSON.stringify(v.name)} for component ${
        JSON.stringify(component)
      }`,
    );
  }
  await writeStaticPodManifest(ctx, component, pod);
  ctx.out.log?.(
    1,
    LOG_SOURCE,
    `[control-plane] wrote static Pod manifest for component ${JSON.stringify(component)} to ${
      JSON.stringify(staticPodManifestPath(ctx.manifestDir, component))
    }`,
  );
}
