/**
 * The `UpgradeConfiguration` the upgrade commands read from `--config` (upstream
 * `LoadOrDefaultUpgradeConfiguration`): the file must hold one (other kubeadm documents are
 * ignored with a warning; the cluster's own configuration is what an upgrade works with),
 * decoded leniently as upstream does (an unknown field is a warning), defaulted by
 * `config/defaults.ts` (`applyUpgradeDefaults`) and validated by `config/validate.ts`
 * (`validateUpgradeConfiguration`). No file: the defaults.
 *
 * A flag the user sets wins over the file's value (upstream `ValueFromFlagsOrConfig`).
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { Timeouts, UpgradeConfiguration } from "../config/types.ts";
import { applyUpgradeDefaults } from "../config/defaults.ts";
import { KUBEADM_GROUP, loadConfigDocuments } from "../config/parse.ts";
import { validateUpgradeConfiguration } from "../config/validate.ts";

/** Settings shared by `upgrade apply` and `upgrade node`. */
export interface UpgradeRunSettings {
  certificateRenewal: boolean;
  dryRun: boolean;
  etcdUpgrade: boolean;
  ignorePreflightErrors: string[];
  patchesDirectory?: string;
  skipPhases: string[];
  imagePullPolicy: string;
  imagePullSerial: boolean;
}

/** `apply`. */
export interface UpgradeApplySettings extends UpgradeRunSettings {
  kubernetesVersion?: string;
  allowExperimentalUpgrades: boolean;
  allowRCUpgrades: boolean;
  forceUpgrade: boolean;
  printConfig: boolean;
}

/** `plan`. */
export interface UpgradePlanSettings {
  kubernetesVersion?: string;
  allowExperimentalUpgrades: boolean;
  allowRCUpgrades: boolean;
  etcdUpgrade: boolean;
  ignorePreflightErrors: string[];
  printConfig: boolean;
}

/** `diff`. */
export interface UpgradeDiffSettings {
  kubernetesVersion?: string;
  contextLines: number;
}

/** A defaulted, validated UpgradeConfiguration. */
export interface ResolvedUpgradeConfig {
  apply: UpgradeApplySettings;
  node: UpgradeRunSettings;
  plan: UpgradePlanSettings;
  diff: UpgradeDiffSettings;
  timeouts: Required<Timeouts>;
  /** Warnings (ignored documents). */
  warnings: string[];
}

type Section = Record<string, unknown>;

const section = (doc: Section, name: string) => doc[name] as Section;
const bool = (s: Section, k: string) => s[k] === true;
const strs = (s: Section, k: string) => Array.isArray(s[k]) ? (s[k] as unknown[]).map(String) : [];
const str = (s: Section, k: string) =>
  typeof s[k] === "string" && s[k] !== "" ? s[k] as string : undefined;

function patchesDir(s: Section): string | undefined {
  const p = s.patches;
  return typeof p === "object" && p !== null ? str(p as Section, "directory") ?? "" : undefined;
}

/** A defaulted section of `apply` or `node`. */
function runSettings(s: Section): UpgradeRunSettings {
  return {
    certificateRenewal: bool(s, "certificateRenewal"),
    dryRun: bool(s, "dryRun"),
    etcdUpgrade: bool(s, "etcdUpgrade"),
    ignorePreflightErrors: strs(s, "ignorePreflightErrors"),
    patchesDirectory: patchesDir(s),
    skipPhases: strs(s, "skipPhases"),
    imagePullPolicy: str(s, "imagePullPolicy")!,
    imagePullSerial: bool(s, "imagePullSerial"),
  };
}

/** Loads `--config`'s UpgradeConfiguration (or the defaults when there is no file). */
export function resolveUpgradeConfig(text?: string, source = "<config>"): ResolvedUpgradeConfig {
  let given: UpgradeConfiguration = {};
  const warnings: string[] = [];
  if (text !== undefined) {
    const loaded = loadConfigDocuments(text, { source, strict: false });
    for (const d of loaded.documents) {
      if (d.group === KUBEADM_GROUP && d.kind !== "UpgradeConfiguration") {
        warnings.push(
          `[config] WARNING: Ignored configuration document with GroupVersionKind ${d.group}/${d.version}, Kind=${d.kind}`,
        );
      }
    }
    warnings.push(...loaded.warnings);
    if (!loaded.upgrade) {
      throw new ConfigError("no UpgradeConfiguration found in the supplied config", {
        field: "kind",
        value: source,
        hint: "add a kubeadm.k8s.io/v1beta4 UpgradeConfiguration document",
      });
    }
    given = loaded.upgrade;
  }
  const doc = applyUpgradeDefaults(given) as Section;
  validateUpgradeConfiguration(doc);
  const apply = section(doc, "apply");
  const plan = section(doc, "plan");
  const diff = section(doc, "diff");
  return {
    apply: {
      ...runSettings(apply),
      kubernetesVersion: str(apply, "kubernetesVersion"),
      allowExperimentalUpgrades: bool(apply, "allowExperimentalUpgrades"),
      allowRCUpgrades: bool(apply, "allowRCUpgrades"),
      forceUpgrade: bool(apply, "forceUpgrade"),
      printConfig: bool(apply, "printConfig"),
    },
    node: runSettings(section(doc, "node")),
    plan: {
      kubernetesVersion: str(plan, "kubernetesVersion"),
      allowExperimentalUpgrades: bool(plan, "allowExperimentalUpgrades"),
      allowRCUpgrades: bool(plan, "allowRCUpgrades"),
      etcdUpgrade: bool(plan, "etcdUpgrade"),
      ignorePreflightErrors: strs(plan, "ignorePreflightErrors"),
      printConfig: bool(plan, "printConfig"),
    },
    diff: {
      kubernetesVersion: str(diff, "kubernetesVersion"),
      contextLines: typeof diff.contextLines === "number" ? diff.contextLines : 0,
    },
    timeouts: doc.timeouts as Required<Timeouts>,
    warnings,
  };
}
