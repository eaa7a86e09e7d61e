/**
 * Container image names for the control plane, etcd, pause and CoreDNS.
 *
 * Rules from upstream `cmd/kubeadm/app/images`: `<repository>/<name>:<tag>`; Kubernetes images
 * take the `kubernetesVersion` as tag (`+` becomes `_`) from `imageRepository`, or from the CI
 * registry for `ci/` versions; etcd takes `etcd.local.imageRepository`/`imageTag` overrides or
 * the supported etcd version for the Kubernetes minor; pause always comes from
 * `imageRepository`; CoreDNS lives under `coredns/` on the default registry.
 *
 * @module
 */
import type { ClusterConfiguration } from "../config/types.ts";
import {
  COREDNS_VERSION,
  DEFAULT_CI_IMAGE_REPOSITORY,
  DEFAULT_IMAGE_REPOSITORY,
  ETCD_VERSION,
  PAUSE_VERSION,
  SUPPORTED_ETCD_VERSIONS,
} from "../constants.ts";

/** The cluster fields image names depend on. */
export type ImageConfig = Pick<
  ClusterConfiguration,
  "imageRepository" | "kubernetesVersion" | "etcd" | "dns"
>;

const CI_VERSION = /^ci(-cross)?\//;

/** True when `kubernetesVersion` names a CI build (`ci/latest`, `ci/v1.35.0-alpha.0.1+abc`). */
export function isCIKubernetesVersion(version: string | undefined): boolean {
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
export function kubernetesImageTag(version: string): string {
  return version.replace(CI_VERSION, "").replaceAll("+", "_");
}

/** `<repo>/<name>:<kubernetesVersion>` for kube-apiserver, -controller-manager, -scheduler, -proxy. */
export function kubernetesImage(name: string, cfg: ImageConfig): string {
  return `${controlPlaneImageRepository(cfg)}/${name}:${
    kubernetesImageTag(cfg.kubernetesVersion ?? "")
  }`;
}

/** Minor of a `vMAJOR.MINOR.PATCH[...]` version, or `undefined` when it does not parse. */
export function kubernetesMinor(version: string | undefined): number | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(
    (version ?? "").replace(CI_VERSION, ""),
  );
  return m ? Number(m[2]) : undefined;
}

/**
 * The supported etcd version for a Kubernetes version: exact minor, else the nearest known
 * minor (upstream's `EtcdSupportedVersion`); the bundled default when the version does not parse.
 */
export function supportedEtcdVersion(kubernetesVersion: string | undefined): string {
  const minor = kubernetesMinor(kubernetesVersion);
  if (minor === undefined) return ETCD_VERSION;
  const known = Object.keys(SUPPORTED_ETCD_VERSIONS).map(Number).sort((a, b) => a - b);
  if (SUPPORTED_ETCD_VERSIONS[minor] !== undefined) return SUPPORTED_ETCD_VERSIONS[minor];
  const nearest = minor < known[0] ? known[0] : known[known.length - 1];
  return SUPPORTED_ETCD_VERSIONS[nearest];
}

/** etcd image tag: `etcd.local.imageTag`, else the supported version for the Kubernetes minor. */
export function etcdImageTag(cfg: ImageConfig): string {
  return cfg.etcd?.local?.imageTag || supportedEtcdVersion(cfg.kubernetesVersion);
}

/** `<etcd.local.imageRepository or imageRepository>/etcd:<tag>`. */
export function etcdImage(cfg: ImageConfig): string {
  const repo = cfg.etcd?.local?.imageRepository || cfg.imageRepository ||
    DEFAULT_IMAGE_REPOSITORY;
  return `${repo}/etcd:${etcdImageTag(cfg)}`;
}

/** `<imageRepository>/pause:<PAUSE_VERSION>` (never the CI registry). */
export function pauseImage(cfg: ImageConfig): string {
  return `${cfg.imageRepository || DEFAULT_IMAGE_REPOSITORY}/pause:${PAUSE_VERSION}`;
}

/** CoreDNS image; the default registry keeps it under `coredns/coredns`. */
export function dnsImage(cfg: ImageConfig): string {
  let repo = cfg.dns?.imageRepository || cfg.imageRepository || DEFAULT_IMAGE_REPOSITORY;
  if (repo === DEFAULT_IMAGE_REPOSITORY) repo = `${repo}/coredns`;
  return `${repo}/coredns:${cfg.dns?.imageTag || COREDNS_VERSION}`;
}
