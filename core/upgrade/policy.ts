/**
 * The version-skew policy of `kubeadm upgrade` (upstream `phases/upgrade/policy.go`): which
 * target versions an upgrade may go to from the cluster's version, this kubeadm's version and
 * the kubelets' versions. Errors are mandatory (never bypassed) or skippable (`--force`).
 *
 * Rules: the target must be at least the minimum control-plane version; at most one minor up
 * and one minor down from the cluster; not a newer minor than kubeadm (a newer patch is
 * skippable); not an older minor than kubeadm (skippable); a pre-release needs
 * `--allow-experimental-upgrades` (or, for `rc`, `--allow-release-candidate-upgrades`); no
 * kubelet may end up more than three minors behind. A pre-release target turns the minor-skew
 * errors into skippable ones. Messages are upstream's, word for word.
 *
 * @module
 */
import { goQuote } from "../text/go_quote.ts";
import { compareSemVer, parseSemVer, type SemVer } from "../config/version.ts";
import type { Printer } from "../ports/printer.ts";
import { errorMessage } from "../errors.ts";

/** How many minors the control plane may go up in one upgrade. */
const MAX_MINOR_UPGRADE_SKEW = 1;
/** How many minors the control plane may go down in one downgrade. */
const MAX_MINOR_DOWNGRADE_SKEW = 1;
/** How many minors the kubelets may be behind the control plane. */
const MAX_MINOR_KUBELET_SKEW = 3;

/** What the policy looks at besides the target. */
export interface VersionFacts {
  /** The API server's version as it reports it (`v1.36.3`). */
  cluster: string;
  /** This kubeadm's version (`v1.37.2`). */
  kubeadm: string;
  /** Kubelet version → node names; absent when the nodes could not be listed. */
  kubelets?: Readonly<Record<string, readonly string[]>>;
  /** Why the kubelet versions are absent. */
  kubeletError?: string;
}

/** Settings of the policy. */
export interface VersionPolicyOptions {
  /** Upstream's `MinimumControlPlaneVersion` (kubeadm minor − 1). */
  minimumControlPlane: SemVer;
  /** `--allow-experimental-upgrades`. */
  allowExperimental: boolean;
  /** `--allow-release-candidate-upgrades`. */
  allowRC: boolean;
}

/** The policy's findings (upstream `VersionSkewPolicyErrors`). */
export interface VersionSkewErrors {
  /** Errors no flag bypasses. */
  mandatory: string[];
  /** Errors `--force` bypasses. */
  skippable: string[];
}

/**
 * Checks a target version against the facts. `target` is the version as the user gave it
 * (messages quote it); a target that is not a semantic version is a mandatory error.
 */
export function versionSkewErrors(
  target: string,
  facts: VersionFacts,
  opts: VersionPolicyOptions,
): VersionSkewErrors {
  const errs: VersionSkewErrors = { mandatory: [], skippable: [] };
  const next = parseSemVer(target);
  if (!next) {
    errs.mandatory.push(
      `unable to parse normalized version ${goQuote(target)} as a semantic version`,
    );
    return errs;
  }
  const cluster = parseSemVer(facts.cluster);
  if (!cluster) {
    errs.mandatory.push(
      `Unable to fetch cluster version: Couldn't parse cluster version: could not parse ${
        goQuote(facts.cluster)
      } as version`,
    );
    return errs;
  }
  const kubeadm = parseSemVer(facts.kubeadm);
  if (!kubeadm) {
    errs.mandatory.push(
      `Unable to fetch kubeadm version: Couldn't parse kubeadm version: could not parse ${
        goQuote(facts.kubeadm)
      } as version`,
    );
    return errs;
  }
  if (facts.kubelets === undefined) {
    errs.skippable.push(`Unable to fetch kubelet version: ${facts.kubeletError ?? "unknown"}`);
  }
  const released = next.preRelease === "";
  const bySeverity = (message: string) =>
    (released ? errs.mandatory : errs.skippable).push(message);
  const q = goQuote(target);

  if (compareSemVer(next, opts.minimumControlPlane) < 0) {
    // Upstream quotes the cluster version where it means the minimum; kept as it prints.
    errs.mandatory.push(
      `Specified version to upgrade to ${q} is equal to or lower than the minimum supported version ${
        goQuote(facts.cluster)
      }. Please specify a higher version to upgrade to`,
    );
  }
  if (next.minor > cluster.minor + MAX_MINOR_UPGRADE_SKEW) {
    bySeverity(
      `Specified version to upgrade to ${q} is too high; kubeadm can upgrade only ${MAX_MINOR_UPGRADE_SKEW} minor version at a time`,
    );
  }
  if (next.minor < cluster.minor - MAX_MINOR_DOWNGRADE_SKEW) {
    bySeverity(
      `Specified version to downgrade to ${q} is too low; kubeadm can downgrade only ${MAX_MINOR_DOWNGRADE_SKEW} minor version at a time`,
    );
  }
  if (compareSemVer(kubeadm, next) < 0) {
    if (next.minor > kubeadm.minor) {
      bySeverity(
        `Specified version to upgrade to ${q} is at least one minor release higher than the kubeadm minor release (${next.minor} > ${kubeadm.minor}). Such an upgrade is not supported`,
      );
    } else {
      errs.skippable.push(
        `Specified version to upgrade to ${q} is higher than the kubeadm version ${
          goQuote(facts.kubeadm)
        }. Upgrade kubeadm first using the tool you used to install kubeadm`,
      );
    }
  }
  if (kubeadm.major > next.major || kubeadm.minor > next.minor) {
    errs.skippable.push(
      `Kubeadm version ${facts.kubeadm} can only be used to upgrade to Kubernetes version ${kubeadm.major}.${kubeadm.minor}`,
    );
  }
  const unstable = unstableVersionError(next, target, opts);
  if (unstable) errs.skippable.push(unstable);
  if (facts.kubelets !== undefined) {
    const old = tooOldKubelets(next, facts.kubelets);
    if (old) errs.skippable.push(old);
  }
  return errs;
}

function unstableVersionError(
  next: SemVer,
  target: string,
  opts: VersionPolicyOptions,
): string | undefined {
  if (next.preRelease === "" || opts.allowExperimental) return undefined;
  if (next.preRelease.startsWith("rc") && opts.allowRC) return undefined;
  return `Specified version to upgrade to ${
    goQuote(target)
  } is an unstable version and such upgrades weren't allowed via setting the --allow-*-upgrades flags`;
}

function tooOldKubelets(
  next: SemVer,
  kubelets: Readonly<Record<string, readonly string[]>>,
): string | undefined {
  const old: string[] = [];
  for (const v of Object.keys(kubelets)) {
    const parsed = parseSemVer(v);
    if (!parsed) return `couldn't parse kubelet version ${v}`;
    if (next.minor > parsed.minor + MAX_MINOR_KUBELET_SKEW) old.push(v);
  }
  if (old.length === 0) return undefined;
  return `There are kubelets in this cluster that are too old that have these versions [${
    old.join(" ")
  }]`;
}

/** Where the policy's facts come from (the parts of upstream's `VersionGetter` it uses). */
export interface PolicyVersionSource {
  /** The API server's version string; rejects when it cannot be fetched. */
  clusterVersion(): Promise<string>;
  /** This kubeadm's version string. */
  kubeadmVersion(): string;
  /** Kubelet version → node names; rejects when the nodes cannot be listed. */
  kubeletVersions(): Promise<Record<string, string[]>>;
}

/**
 * Upstream's `EnforceVersionPolicies`: fetches the facts, printing
 * `[upgrade/versions] Cluster version: …` and `kubeadm version: …` as they come, and returns
 * the findings (`undefined` when there are none).
 */
export async function enforceVersionPolicies(
  source: PolicyVersionSource,
  target: string,
  opts: VersionPolicyOptions,
  out: Printer,
): Promise<VersionSkewErrors | undefined> {
  let cluster: string;
  try {
    cluster = await source.clusterVersion();
  } catch (e) {
    return { mandatory: [`Unable to fetch cluster version: ${errorMessage(e)}`], skippable: [] };
  }
  out.info(`[upgrade/versions] Cluster version: ${cluster}`);
  const kubeadm = source.kubeadmVersion();
  out.info(`[upgrade/versions] kubeadm version: ${kubeadm}`);
  const facts: VersionFacts = { cluster, kubeadm };
  try {
    facts.kubelets = await source.kubeletVersions();
  } catch (e) {
    facts.kubeletError = errorMessage(e);
  }
  const errs = versionSkewErrors(target, facts, opts);
  return errs.mandatory.length + errs.skippable.length === 0 ? undefined : errs;
}

/** Upstream's `formatErrorMsg`: one `\t- <error>` line per error. */
function formatSkewErrors(errs: readonly string[]): string {
  return errs.map((e) => `\t- ${e}\n`).join("");
}

/** What `upgrade apply` does with the policy's findings. */
export interface PolicyVerdict {
  /** The error to fail with (mandatory errors, or skippable ones without `--force`). */
  error?: string;
  /** Printed when `--force` bypasses skippable errors. */
  forced?: string;
}

/** Upstream's `enforceVersionPolicies` (the `apply` side): fail, or bypass with `--force`. */
export function policyVerdict(errs: VersionSkewErrors | undefined, force: boolean): PolicyVerdict {
  if (!errs) return {};
  if (errs.mandatory.length > 0) {
    return {
      error: `the version argument is invalid due to these fatal errors:\n\n${
        formatSkewErrors(errs.mandatory)
      }\nPlease fix the misalignments highlighted above and try upgrading again`,
    };
  }
  if (errs.skippable.length === 0) return {};
  if (!force) {
    return {
      error: `the version argument is invalid due to these errors:\n\n${
        formatSkewErrors(errs.skippable)
      }\nCan be bypassed if you pass the --force flag`,
    };
  }
  return {
    forced:
      `[upgrade/preflight] Found ${errs.skippable.length} potential version compatibility errors but skipping since the --force flag is set: \n\n${
        formatSkewErrors(errs.skippable)
      }`,
  };
}
