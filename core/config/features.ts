/**
 * kubeadm's own feature gates for Kubernetes 1.34 (`--feature-gates`, `featureGates`).
 *
 * Gate names and stages follow upstream `cmd/kubeadm/app/features/features.go` at v1.34:
 * `NodeLocalCRISocket` went beta and on by default in 1.34 (kubernetes#131981);
 * `EtcdLearnerMode` is gone. Flag parsing and its messages mirror upstream's `NewFeatureGate`.
 *
 * @module
 */
import { ValueError } from "../errors.ts";

/** Maturity of a gate. */
export type FeatureStage = "Alpha" | "Beta" | "GA" | "Deprecated";

/** One gate's specification. */
export interface FeatureSpec {
  /** Value when the user does not set it. */
  default: boolean;
  stage: FeatureStage;
  /** Printed as a warning when the user sets the gate. */
  deprecationMessage?: string;
}

/** Gate names. */
export const Feature = {
  ControlPlaneKubeletLocalMode: "ControlPlaneKubeletLocalMode",
  NodeLocalCRISocket: "NodeLocalCRISocket",
  PublicKeysECDSA: "PublicKeysECDSA",
  RootlessControlPlane: "RootlessControlPlane",
  WaitForAllControlPlaneComponents: "WaitForAllControlPlaneComponents",
} as const;

/** The gates `kubeadm init` knows, in alphabetical order. */
export const INIT_FEATURE_GATES: Readonly<Record<string, FeatureSpec>> = {
  [Feature.ControlPlaneKubeletLocalMode]: { default: true, stage: "Beta" },
  [Feature.NodeLocalCRISocket]: { default: true, stage: "Beta" },
  [Feature.PublicKeysECDSA]: {
    default: false,
    stage: "Deprecated",
    deprecationMessage:
      "The PublicKeysECDSA feature gate is deprecated and will be removed when v1beta3 is removed. v1beta4 supports a new option 'ClusterConfiguration.EncryptionAlgorithm'.",
  },
  [Feature.RootlessControlPlane]: { default: false, stage: "Alpha" },
  [Feature.WaitForAllControlPlaneComponents]: { default: true, stage: "GA" },
};

/** Whether a gate is known. */
export function isKnownFeature(name: string): boolean {
  return Object.hasOwn(INIT_FEATURE_GATES, name);
}

/** The effective value of a gate given the user's settings. */
export function featureEnabled(gates: Readonly<Record<string, boolean>> | undefined, name: string) {
  const set = gates?.[name];
  if (set !== undefined) return set;
  return INIT_FEATURE_GATES[name]?.default ?? false;
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

/** Deprecation warnings for the deprecated gates the user set. */
export function deprecatedFeatureWarnings(gates: Readonly<Record<string, boolean>>): string[] {
  const out: string[] = [];
  for (const name of Object.keys(gates).sort()) {
    const spec = INIT_FEATURE_GATES[name];
    if (spec?.stage === "Deprecated") {
      out.push(spec.deprecationMessage ?? `Setting this option is deprecated: ${name}`);
    }
  }
  return out;
}
