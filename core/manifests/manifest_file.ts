/**
 * Static Pod manifest files: which builder makes which component, how `--patches` apply to a
 * built Pod, and the bytes written to `<manifestDir>/<component>.yaml`.
 *
 * The YAML is what upstream writes for a v1 Pod in v1.34: keys sorted, `status: {}` last, and
 * no `metadata.creationTimestamp` (zero timestamps are omitted since v1.34).
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import { Component } from "../constants.ts";
import type { PatchManager } from "../patches/patch_manager.ts";
import { isJsonObject, type JsonValue } from "../patches/json_value.ts";
import { podSchema } from "../patches/patch_schemas.ts";
import { toKubeYaml } from "../yaml/kube_yaml.ts";
import { apiServerPod } from "./apiserver.ts";
import { controllerManagerPod } from "./controller_manager.ts";
import { etcdPod } from "./etcd.ts";
import type { ManifestInput } from "./manifest_input.ts";
import { schedulerPod } from "./scheduler.ts";

/** A component kubeadm writes a static Pod manifest for. */
export type StaticPodComponent = (typeof Component)[keyof typeof Component];

/** The control-plane components, in the order `init` writes them. */
export const CONTROL_PLANE_COMPONENTS = [
  Component.apiServer,
  Component.controllerManager,
  Component.scheduler,
] as const;

/** `<manifestDir>/<component>.yaml`. */
export function staticPodManifestPath(manifestDir: string, component: string): string {
  return `${manifestDir.replace(/\/+$/, "")}/${component}.yaml`;
}

/** Builds the static Pod of a component (local etcd for `etcd`). */
export function buildStaticPod(component: StaticPodComponent, input: ManifestInput): Pod {
  switch (component) {
    case Component.apiServer:
      return apiServerPod(input);
    case Component.controllerManager:
      return controllerManagerPod(input);
    case Component.scheduler:
      return schedulerPod(input);
    case Component.etcd:
      return etcdPod(input);
  }
}

/** Drops nulls and leftover `$` directives, as decoding into a typed v1.Pod does. */
function typedPodShape(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(typedPodShape);
  if (isJsonObject(v)) {
    const out: { [k: string]: JsonValue } = {};
    for (const [k, x] of Object.entries(v)) {
      if (x === null || k.startsWith("$")) continue;
      out[k] = typedPodShape(x);
    }
    return out;
  }
  return v;
}

const DECIMAL_SUFFIXES = ["", "k", "M", "G", "T", "P", "E"];

/**
 * The canonical text of a numeric resource quantity, as a typed `resource.Quantity` prints it
 * (`1` → `1`, `0.5` → `500m`, `2000` → `2k`).
 */
export function canonicalQuantity(n: number): string {
  if (Number.isInteger(n)) {
    let exp = 0;
    while (n !== 0 && n % 1000 === 0 && exp < DECIMAL_SUFFIXES.length - 1) {
      n /= 1000;
      exp++;
    }
    return `${n}${DECIMAL_SUFFIXES[exp]}`;
  }
  for (const [scale, suffix] of [[1e3, "m"], [1e6, "u"], [1e9, "n"]] as const) {
    const scaled = Math.round(n * scale);
    if (Math.abs(scaled - n * scale) < 1e-6) return `${scaled}${suffix}`;
  }
  return `${Math.ceil(n * 1e9)}n`;
}

/** Numeric requests/limits become quantity strings, as they do in a typed container. */
function canonicalResources(pod: Record<string, unknown>): void {
  const spec = pod.spec as Record<string, unknown> | undefined;
  for (const list of ["initContainers", "containers"]) {
    const containers = spec?.[list];
    if (!Array.isArray(containers)) continue;
    for (const c of containers) {
      const resources = isJsonObject(c) ? c.resources : undefined;
      if (!isJsonObject(resources ?? null)) continue;
      for (const kind of ["limits", "requests"]) {
        const values = (resources as Record<string, JsonValue>)[kind];
        if (!isJsonObject(values)) continue;
        for (const [k, v] of Object.entries(values)) {
          if (typeof v === "number") values[k] = canonicalQuantity(v);
        }
      }
    }
  }
}

/**
 * Applies the patches for the Pod's target (its name) and returns the patched Pod, re-shaped
 * like upstream's re-decoded v1.Pod: nulls and `$` directives dropped, numeric resource
 * quantities canonicalised, `status: {}` kept.
 */
export function patchStaticPod(pod: Pod, patches: PatchManager): Pod {
  const target = pod.metadata?.name ?? "";
  const patched = typedPodShape(patches.apply(target, pod, podSchema)) as Record<string, unknown>;
  canonicalResources(patched);
  if (!isJsonObject(patched.status as JsonValue)) patched.status = {};
  return patched as Pod;
}

/** The manifest file content of a Pod. */
export function staticPodManifestYaml(pod: Pod): string {
  return toKubeYaml(pod);
}
