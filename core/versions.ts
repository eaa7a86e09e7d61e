/**
 * Versions: the upstream kubeadm release kubeadm-ts matches, and the one table of what that
 * kubeadm deploys for each target control-plane minor.
 *
 * Upstream kubeadm v1.37.2 (`cmd/kubeadm/app/constants/constants.go`) deploys control planes of
 * its own minor and the one before it. Almost everything it does follows its own release (one
 * set of flags, gates, phases, manifests, objects); what depends on the target minor is looked
 * up in {@link TARGET_MINORS} through {@link targetRelease}, never tested with scattered `if`s.
 * The kube-* image tags are the target version itself.
 *
 * @module
 */

/**
 * The upstream kubeadm release kubeadm-ts matches: what `kubeadm version` reports, and the
 * default target (upstream resolves `stable-1` offline to its own version).
 */
export const KUBERNETES_VERSION = "v1.37.2";
/** The kubeadm minor we match. */
export const KUBEADM_MINOR = 37;
/** Upstream's `CurrentKubernetesVersion`: the kubeadm minor with patch 0. */
export const CURRENT_KUBERNETES_VERSION = `v1.${KUBEADM_MINOR}.0`;
/** Oldest control-plane minor this kubeadm deploys (`MinimumControlPlaneVersion`: minor − 1). */
export const MINIMUM_CONTROL_PLANE_MINOR = KUBEADM_MINOR - 1;
/** Oldest kubelet minor this kubeadm supports (`MinimumKubeletVersion`: minor − 3). */
export const MINIMUM_KUBELET_MINOR = KUBEADM_MINOR - 3;
/** etcd image tag when the target version does not parse (`DefaultEtcdVersion`). */
const DEFAULT_ETCD_VERSION = "3.7.0-0";
/** Oldest external etcd this kubeadm accepts (`MinExternalEtcdVersion`). */
export const MIN_EXTERNAL_ETCD_VERSION = "3.5.24-0";
/** CoreDNS image tag kubeadm v1.37 deploys (`CoreDNSVersion`). */
export const COREDNS_VERSION = "v1.14.6";
/** pause image tag kubeadm v1.37 pulls and compares with the CRI's sandbox image. */
const PAUSE_VERSION = "3.10.2";

/** What kubeadm v1.37 deploys for one control-plane minor. */
export interface TargetMinor {
  /**
   * The etcd image tag upstream's `SupportedEtcdVersion` pairs with the minor. Absent where
   * upstream has no entry: the nearest minor's tag is used, with upstream's warning.
   */
  etcd?: string;
  /** CoreDNS image tag. */
  coreDNS: string;
  /** pause image tag. */
  pause: string;
}

/**
 * The per-target table, keyed by control-plane minor. kubeadm v1.37.2 deploys v1.36 and v1.37
 * identically except for the kube-* image tags and the etcd lookup: upstream's
 * `SupportedEtcdVersion` has no v1.37 entry, so v1.37 falls back to the nearest (3.7.0-0) and
 * says so at `-v=1`. Rows 34 and 35 are below {@link MINIMUM_CONTROL_PLANE_MINOR} (refused for
 * init and join); they keep upstream's etcd entries for lookups about existing clusters.
 */
export const TARGET_MINORS: Readonly<Record<number, TargetMinor>> = {
  34: { etcd: "3.7.0-0", coreDNS: COREDNS_VERSION, pause: PAUSE_VERSION },
  35: { etcd: "3.7.0-0", coreDNS: COREDNS_VERSION, pause: PAUSE_VERSION },
  36: { etcd: "3.7.0-0", coreDNS: COREDNS_VERSION, pause: PAUSE_VERSION },
  37: { coreDNS: COREDNS_VERSION, pause: PAUSE_VERSION },
};

/** What {@link targetRelease} found for one target version. */
export interface TargetRelease {
  /** The target's minor, or `undefined` when the version does not parse. */
  minor: number | undefined;
  /** etcd image tag for a local etcd. */
  etcd: string;
  /** Upstream's `-v=1` warning when the etcd tag is a fallback, else `undefined`. */
  etcdWarning?: string;
  /** CoreDNS image tag. */
  coreDNS: string;
  /** pause image tag. */
  pause: string;
}

const VERSION_MINOR = /^(?:ci(?:-cross)?\/)?v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/;

/** Minor of a `[ci/]vMAJOR.MINOR.PATCH[...]` version, or `undefined` when it does not parse. */
function kubernetesMinor(version: string | undefined): number | undefined {
  const m = VERSION_MINOR.exec(version ?? "");
  return m ? Number(m[2]) : undefined;
}

/** The key of `keys` (sorted) for `minor`: itself, else the nearest end (upstream's rule). */
function nearestKey(keys: readonly number[], minor: number): number {
  if (keys.includes(minor)) return minor;
  return minor < keys[0] ? keys[0] : keys[keys.length - 1];
}

/**
 * Looks a target Kubernetes version up in {@link TARGET_MINORS}. A version that does not parse
 * gets upstream's defaults; a minor outside the table gets its nearest row, and an etcd tag
 * from the nearest minor that has one (with upstream's warning).
 */
export function targetRelease(kubernetesVersion: string | undefined): TargetRelease {
  const minor = kubernetesMinor(kubernetesVersion);
  if (minor === undefined) {
    return { minor, etcd: DEFAULT_ETCD_VERSION, coreDNS: COREDNS_VERSION, pause: PAUSE_VERSION };
  }
  const keys = Object.keys(TARGET_MINORS).map(Number).sort((a, b) => a - b);
  const row = TARGET_MINORS[nearestKey(keys, minor)];
  const etcdKeys = keys.filter((k) => TARGET_MINORS[k].etcd !== undefined);
  const etcdKey = nearestKey(etcdKeys, minor);
  const etcd = TARGET_MINORS[etcdKey].etcd!;
  return {
    minor,
    etcd,
    etcdWarning: etcdKey === minor
      ? undefined
      : `could not find officially supported version of etcd for Kubernetes ${kubernetesVersion}, falling back to the nearest etcd version (${etcd})`,
    coreDNS: row.coreDNS,
    pause: row.pause,
  };
}
