/**
 * Container image names for the control plane, etcd, pause and CoreDNS.
 *
 * Rules from upstream `cmd/kubeadm/app/images`: `<repository>/<name>:<tag>`; Kubernetes images
 * take the `kubernetesVersion` as tag (`+` becomes `_`) from `imageRepository`, or from the CI
 * registry for `ci/` versions; etcd takes `etcd.local.imageRepository`/`imageTag` overrides or
 * the target minor's etcd version; pause always comes from `imageRepository`; CoreDNS lives
 * under `coredns/` on the default registry. The etcd, CoreDNS and pause tags come from the
 * version table (`versions.ts`).
 *
 * @module
 */
import type { ClusterConfiguration } from "../config/types.ts";
import { DEFAULT_CI_IMAGE_REPOSITORY, DEFAULT_IMAGE_REPOSITORY } from "../constants.ts";
import { targetRelease } from "../versions.ts";
import type { LogFn } from "../ports/printer.ts";

/** The cluster fields image names depend on. */
export type ImageConfig = Pick<
  ClusterConfiguration,
  "imageRepository" | "kubernetesVersion" | "etcd" | "dns"
>;

const CI_VERSION = /^ci(-cross)?\//;

/** True when `kubernetesVersion` names a CI build (`ci/latest`, `ci/v1.35.0-alpha.0.1+abc`). */
function isCIKubernetesVersion(version: string | undefined): boolean {
  return CI_VERSION.test(version ?? "");
}

/** Registry of the control-plane and kube-proxy images (the CI registry for CI versions). */
export function controlPlaneImageRepository(cfg: ImageConfig): string {
  const repo = cfg.imageRepository || DEFAULT_IMAGE_REPOSITORY;
  return isCIKubernetesVersion(cfg.kubernetesVersion) && repo === DEFAULT_IMAGE_REPOSITORY
    ? DEFAULT_CI_IMAGE_REPOSITORY
    : repo;
}

/** Image tag for a Kubernetes version: `v1.34.4`, `v1.35.0-alpha.1.2_abc` for `+abc` builds. */
function kubernetesImageTag(version: string): string {
  return version.replace(CI_VERSION, "").replaceAll("+", "_");
}

/** `<repo>/<name>:<kubernetesVersion>` for kube-apiserver, -controller-manager, -scheduler, -proxy. */
export function kubernetesImage(name: string, cfg: ImageConfig): string {
  return `${controlPlaneImageRepository(cfg)}/${name}:${
    kubernetesImageTag(cfg.kubernetesVersion ?? "")
  }`;
}

/**
 * etcd image tag: `etcd.local.imageTag`, else the target minor's etcd version. A target minor
 * without its own etcd version is logged at `-v=1`, as upstream (also with a tag given).
 */
function etcdImageTag(cfg: ImageConfig, log?: LogFn): string {
  const { etcd, etcdWarning } = targetRelease(cfg.kubernetesVersion);
  if (etcdWarning) log?.(1, "images.ts", `WARNING: ${etcdWarning}`);
  return cfg.etcd?.local?.imageTag || etcd;
}

/** `<etcd.local.imageRepository or imageRepository>/etcd:<tag>`. */
export function etcdImage(cfg: ImageConfig, log?: LogFn): string {
  const repo = cfg.etcd?.local?.imageRepository || cfg.imageRepository ||
    DEFAULT_IMAGE_REPOSITORY;
  return `${repo}/etcd:${etcdImageTag(cfg, log)}`;
}

/** `<imageRepository>/pause:<tag>` (never the CI registry). */
export function pauseImage(cfg: ImageConfig): string {
  return `${cfg.imageRepository || DEFAULT_IMAGE_REPOSITORY}/pause:${
    targetRelease(cfg.kubernetesVersion).pause
  }`;
}

/** CoreDNS image; the default registry keeps it under `coredns/coredns`. */
export function dnsImage(cfg: ImageConfig): string {
  let repo = cfg.dns?.imageRepository || cfg.imageRepository || DEFAULT_IMAGE_REPOSITORY;
  if (repo === DEFAULT_IMAGE_REPOSITORY) repo = `${repo}/coredns`;
  return `${repo}/coredns:${cfg.dns?.imageTag || targetRelease(cfg.kubernetesVersion).coreDNS}`;
}
