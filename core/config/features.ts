/**
 * kubeadm's own feature gates (`--feature-gates`, `featureGates`), as upstream kubeadm v1.37
 * (`cmd/kubeadm/app/features/features.go`): only `RootlessControlPlane` is left.
 * `ControlPlaneKubeletLocalMode`, `NodeLocalCRISocket`, `PublicKeysECDSA` and
 * `WaitForAllControlPlaneComponents` were removed (their 1.34 default behaviour is now the only
 * one), so naming them is an error. Flag parsing and its messages mirror upstream's
 * `NewFeatureGate`.
 *
 * @module
 */
import { ValueError } from "../errors.ts";

/** Maturity of a gate. */
type FeatureStage = "Alpha" | "Beta" | "GA" | "Deprecated";

/** One gate's specification. */
interface FeatureSpec {
  /** Value when the user does not set it. */
  default: boolean;
  stage: FeatureStage;
  /** Upstream's deprecation note (shown by `upgrade` for gates stored in the cluster). */
  deprecationMessage?: string;
}

/** Gate names. */
const Feature = {
  RootlessControlPlane: "RootlessControlPlane",
} as const;

/** The gates `kubeadm init` knows, in alphabetical order. */
const INIT_FEATURE_GATES: Readonly<Record<string, FeatureSpec>> = {
  [Feature.RootlessControlPlane]: {
    default: false,
    stage: "Alpha",
    deprecationMessage:
      "Deprecated in favor of the core kubelet feature UserNamespacesSupport which is beta since 1.30. Once UserNamespacesSupport graduates to GA, kubeadm will start using it and RootlessControlPlane will be removed.",
  },
};

/** Whether a gate is known. */
export function isKnownFeature(name: string): boolean {
  return Object.hasOwn(INIT_FEATURE_GATES, name);
}

/**
 * Notices about gates stored in a cluster's configuration (upstream `CheckDeprecatedFlags`,
 * printed by `upgrade` which carries on): `Unknown feature gate flag: X` for a gate this
 * release no longer knows (removed ones), a deprecated gate's deprecation message. By name.
 */
export function storedFeatureGateNotices(gates: Readonly<Record<string, boolean>>): string[] {
  const out: string[] = [];
  for (const name of Object.keys(gates).sort()) {
    const spec = INIT_FEATURE_GATES[name];
    if (!spec) out.push(`Unknown feature gate flag: ${name}`);
    else if (spec.stage === "Deprecated") out.push(spec.deprecationMessage ?? "");
  }
  return out;
}

/** Help text lines: `Name=true|false (BETA - default=true)`, sorted. */
export function knownFeatures(): string[] {
  return Object.entries(INIT_FEATURE_GATES).map(([name, spec]) => {
    const pre = spec.stage === "GA" ? "" : `${spec.stage.toUpperCase()} - `;
    return `${name}=true|false (${pre}default=${spec.default})`;
  }).sort();
}

function parseGoBool(text: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(text)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(text)) return false;
  return undefined;
}

/**
 * Parses `--feature-gates` (`Key1=true,Key2=false`). Throws an `Error` with upstream's
 * message for a missing value, an unknown key or a non-boolean value.
 */
export function parseFeatureGates(text: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const item of text.split(",")) {
    if (item.length === 0) continue;
    const eq = item.indexOf("=");
    if (eq < 0) throw new ValueError(`missing bool value for feature-gate key:${item}`);
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (!isKnownFeature(key)) throw new ValueError(`unrecognized feature-gate key: ${key}`);
    const b = parseGoBool(value);
    if (b === undefined) {
      throw new ValueError(
        `invalid value ${value} for feature-gate key: ${key}, use true|false instead`,
      );
    }
    out[key] = b;
  }
  return out;
}
