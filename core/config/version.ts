/**
 * Kubernetes version strings: semantic-version parsing, comparison and the resolution of
 * release labels (`stable-1`, `latest`, ...) that `kubernetesVersion` may hold.
 *
 * Upstream resolves labels over the network and falls back to its own version when offline;
 * this core has no network, so labels of the current release line resolve to the pinned
 * {@link KUBERNETES_VERSION} (with upstream's fallback warning), and an explicit
 * `v1.x.y` is kept as given.
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";
import { KUBEADM_MINOR, KUBERNETES_VERSION } from "../constants.ts";

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
/** Upstream's release-label pattern (`stable`, `latest-1`, `stable-1.34`). */
const LABEL_RE = /^((latest|stable)+(-[1-9](\.[1-9]([0-9])?)?)?)$/;
/** Bucket prefixes (`release/`, `ci/`). */
const BUCKET_RE = /^((release|ci)\/)?([-\w.+]+)$/;

/** Parses `v1.34.4`, `1.34.0-rc.1+abc`; `undefined` when not a semantic version. */
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
  minor: KUBEADM_MINOR - 1,
  patch: 0,
  preRelease: "",
  build: "",
};

/** Result of {@link resolveKubernetesVersion}. */
export interface ResolvedVersion {
  /** Normalized version with a leading `v`, e.g. `v1.34.4`. */
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
  const pinned = /-1\.(\d+)$/.exec(label);
  if (pinned && Number(pinned[1]) !== KUBEADM_MINOR) {
    throw new KubeadmError(
      `cannot resolve version label ${
        JSON.stringify(text)
      } without network access; specify an explicit version such as v1.${pinned[1]}.0`,
    );
  }
  // Upstream would fetch the label from the release bucket; offline it falls back to its own
  // version, which is what a kubeadm-ts build always does (silently: there is no network).
  return { version: KUBERNETES_VERSION, warnings: [] };
}
