/**
 * Kubernetes version strings: semantic-version parsing, comparison and the resolution of
 * release labels (`stable-1`, `latest`, ...) that `kubernetesVersion` may hold.
 *
 * Upstream resolves labels over the network and, offline, falls back to its own version with
 * two warnings; this core has no network, so every label resolves to {@link KUBERNETES_VERSION}
 * with those warnings, and an explicit `v1.x.y` is kept as given.
 * {@link normalizeKubernetesVersion} adds upstream's skew rule: no control plane older than
 * kubeadm's minor − 1.
 *
 * @module
 */
import { ConfigError, KubeadmError } from "../errors.ts";
import { KUBERNETES_VERSION, MINIMUM_CONTROL_PLANE_MINOR } from "../versions.ts";

/** A parsed semantic version. */
export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  /** Pre-release part without the dash (`alpha.1`), or empty. */
  preRelease: string;
  /** Build metadata without the plus, or empty. */
  build: string;
}

/** Upstream's release-version pattern (optional `v`, three numbers, optional suffix). */
const RELEASE_RE = /^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-0-9a-zA-Z_.+]*)?$/;
/** Upstream's release-label pattern (`stable`, `latest-1`, `stable-1.37`). */
const LABEL_RE = /^((latest|stable)+(-[1-9](\.[1-9]([0-9])?)?)?)$/;
/** Bucket prefixes (`release/`, `ci/`). */
const BUCKET_RE = /^((release|ci)\/)?([-\w.+]+)$/;

/** Parses `v1.37.2`, `1.37.0-rc.1+abc`; `undefined` when not a semantic version. */
export function parseSemVer(text: string): SemVer | undefined {
  const m =
    /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/
      .exec(text);
  if (!m) return undefined;
  return {
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3]),
    preRelease: m[4] ?? "",
    build: m[5] ?? "",
  };
}

function comparePreRelease(a: string, b: string): number {
  if (a === b) return 0;
  if (a === "") return 1;
  if (b === "") return -1;
  const pa = a.split(".");
  const pb = b.split(".");
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (pa[i] === undefined) return -1;
    if (pb[i] === undefined) return 1;
    const na = /^\d+$/.test(pa[i]);
    const nb = /^\d+$/.test(pb[i]);
    if (na && nb) {
      const d = Number(pa[i]) - Number(pb[i]);
      if (d !== 0) return Math.sign(d);
    } else if (na !== nb) {
      return na ? -1 : 1;
    } else if (pa[i] !== pb[i]) {
      return pa[i] < pb[i] ? -1 : 1;
    }
  }
  return 0;
}

/** Compares two semantic versions: negative, zero or positive. */
export function compareSemVer(a: SemVer, b: SemVer): number {
  return Math.sign(a.major - b.major) || Math.sign(a.minor - b.minor) ||
    Math.sign(a.patch - b.patch) || comparePreRelease(a.preRelease, b.preRelease);
}

/** Renders a version without the leading `v`, like Go's `version.Version.String()`. */
export function formatSemVer(v: SemVer): string {
  return `${v.major}.${v.minor}.${v.patch}${v.preRelease ? `-${v.preRelease}` : ""}${
    v.build ? `+${v.build}` : ""
  }`;
}

/** Oldest control-plane version this kubeadm deploys (kubeadm minor − 1). */
export const MINIMUM_CONTROL_PLANE_VERSION: SemVer = {
  major: 1,
  minor: MINIMUM_CONTROL_PLANE_MINOR,
  patch: 0,
  preRelease: "",
  build: "",
};

/** Result of {@link resolveKubernetesVersion}. */
export interface ResolvedVersion {
  /** Normalized version with a leading `v`, e.g. `v1.37.2`. */
  version: string;
  /** Warnings to show the user. */
  warnings: string[];
}

/**
 * Resolves `kubernetesVersion` (label or explicit) to a `v`-prefixed version. Throws an
 * `Error` with upstream's message when the text is neither a version nor a label, or when a
 * label cannot be resolved offline.
 */
export function resolveKubernetesVersion(text: string): ResolvedVersion {
  const bucket = BUCKET_RE.exec(text);
  if (!bucket) throw new KubeadmError(`invalid version ${JSON.stringify(text)}`);
  const isCI = (bucket[2] ?? "").startsWith("ci");
  const label = bucket[3];
  if (isCI) {
    throw new KubeadmError(
      `CI version ${
        JSON.stringify(text)
      } needs the CI image repository and network access, which kubeadm-ts does not support; use a release version such as ${KUBERNETES_VERSION}`,
    );
  }
  if (RELEASE_RE.test(label)) {
    return { version: label.startsWith("v") ? label : `v${label}`, warnings: [] };
  }
  if (!LABEL_RE.test(label)) {
    throw new KubeadmError(
      `version ${
        JSON.stringify(text)
      } doesn't match patterns for neither semantic version nor labels (stable, latest, ...)`,
    );
  }
  // Upstream fetches the label from the release bucket and, when that fails, falls back to
  // its own version and says so; kubeadm-ts never fetches, so it always falls back.
  const bucketURL = `https://dl.k8s.io/${bucket[2] ? bucket[2].slice(0, -1) : "release"}`;
  return {
    version: KUBERNETES_VERSION,
    warnings: [
      `could not fetch a Kubernetes version from the internet: kubeadm-ts resolves release labels offline (${bucketURL}/${label}.txt was not fetched)`,
      `falling back to the local client version: ${KUBERNETES_VERSION}`,
    ],
  };
}

/**
 * Resolves `kubernetesVersion` ({@link resolveKubernetesVersion}) and applies upstream's skew
 * rule (`NormalizeKubernetesVersion`): a control plane older than
 * {@link MINIMUM_CONTROL_PLANE_VERSION} is refused with upstream's message, as a
 * {@link ConfigError} naming `kubernetesVersion`, before anything is written. Newer versions
 * pass (preflight's `KubernetesVersion` check warns about them).
 */
export function normalizeKubernetesVersion(text: string): ResolvedVersion {
  let resolved: ResolvedVersion;
  try {
    resolved = resolveKubernetesVersion(text);
  } catch (e) {
    throw new ConfigError((e as Error).message, {
      field: "kubernetesVersion",
      value: text,
      hint: `use a release version such as ${KUBERNETES_VERSION}`,
    });
  }
  const v = parseSemVer(resolved.version);
  if (!v) {
    throw new ConfigError(`couldn't parse Kubernetes version ${JSON.stringify(resolved.version)}`, {
      field: "kubernetesVersion",
      value: text,
      hint: `use a release version such as ${KUBERNETES_VERSION}`,
    });
  }
  if (compareSemVer(v, MINIMUM_CONTROL_PLANE_VERSION) < 0) {
    throw new ConfigError(
      `this version of kubeadm only supports deploying clusters with the control plane version >= ${
        formatSemVer(MINIMUM_CONTROL_PLANE_VERSION)
      }. Current version: ${resolved.version}`,
      {
        field: "kubernetesVersion",
        value: text,
        hint:
          `kubeadm-ts ${KUBERNETES_VERSION} deploys Kubernetes v1.${MINIMUM_CONTROL_PLANE_MINOR} and newer; use an older kubeadm for older control planes`,
      },
    );
  }
  return resolved;
}
