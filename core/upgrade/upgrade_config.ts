/**
 * The `UpgradeConfiguration` the upgrade commands read from `--config` (upstream
 * `LoadOrDefaultUpgradeConfiguration`): the file must hold one (other kubeadm documents are
 * ignored with a warning; the cluster's own configuration is what an upgrade works with),
 * decoded strictly, defaulted (renew certificates and upgrade etcd, pull images
 * `IfNotPresent` one at a time, every timeout set) and validated (`patches.directory` absolute,
 * `imagePullPolicy` one of `Always`, `IfNotPresent`, `Never`). No file: the defaults.
 *
 * A flag the user sets wins over the file's value (upstream `ValueFromFlagsOrConfig`).
 *
 * @module
 */
import { ConfigError, ValidationError } from "../errors.ts";
import type { FieldError } from "../errors.ts";
import type { Timeouts } from "../config/types.ts";
import { withDefaultTimeouts } from "../config/defaults.ts";
import { loadConfigDocuments } from "../config/parse.ts";
import { parseDuration } from "../text/duration.ts";

/** `imagePullPolicy` values. */
const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];

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

function section(doc: Section, name: string): Section {
  const v = doc[name];
  return typeof v === "object" && v !== null ? v as Section : {};
}

const bool = (s: Section, k: string, d: boolean) => typeof s[k] === "boolean" ? s[k] as boolean : d;
const strs = (s: Section, k: string) => Array.isArray(s[k]) ? (s[k] as unknown[]).map(String) : [];
const str = (s: Section, k: string) =>
  typeof s[k] === "string" && s[k] !== "" ? s[k] as string : undefined;

function patchesDir(s: Section): string | undefined {
  const p = s.patches;
  return typeof p === "object" && p !== null ? str(p as Section, "directory") ?? "" : undefined;
}

function runSettings(s: Section): UpgradeRunSettings {
  return {
    certificateRenewal: bool(s, "certificateRenewal", true),
    dryRun: bool(s, "dryRun", false),
    etcdUpgrade: bool(s, "etcdUpgrade", true),
    ignorePreflightErrors: strs(s, "ignorePreflightErrors"),
    patchesDirectory: patchesDir(s),
    skipPhases: strs(s, "skipPhases"),
    imagePullPolicy: str(s, "imagePullPolicy") ?? "IfNotPresent",
    imagePullSerial: bool(s, "imagePullSerial", true),
  };
}

function validate(cfg: ResolvedUpgradeConfig): void {
  const errs: FieldError[] = [];
  for (const name of ["apply", "node"] as const) {
    const dir = cfg[name].patchesDirectory;
    if (dir !== undefined && !dir.startsWith("/")) {
      errs.push({ field: `${name}.patches.directory`, value: dir, detail: "path is not absolute" });
    }
    const policy = cfg[name].imagePullPolicy;
    if (!PULL_POLICIES.includes(policy)) {
      errs.push({
        field: `${name}.imagePullPolicy`,
        value: policy,
        detail: `supported values: ${PULL_POLICIES.map((p) => JSON.stringify(p)).join(", ")}`,
      });
    }
  }
  for (const [k, v] of Object.entries(cfg.timeouts)) {
    try {
      parseDuration(v);
    } catch {
      errs.push({ field: `timeouts.${k}`, value: v, detail: "not a duration" });
    }
  }
  if (errs.length > 0) throw new ValidationError(errs);
}

/** Loads `--config`'s UpgradeConfiguration (or the defaults when there is no file). */
export function resolveUpgradeConfig(text?: string, source = "<config>"): ResolvedUpgradeConfig {
  let doc: Section = {};
  const warnings: string[] = [];
  if (text !== undefined) {
    const loaded = loadConfigDocuments(text, { source, strict: true });
    for (const d of loaded.documents) {
      if (d.kind !== "UpgradeConfiguration") {
        warnings.push(
          `[config] WARNING: Ignored configuration document with GroupVersionKind ${d.group}/${d.version}, Kind=${d.kind}`,
        );
      }
    }
    if (!loaded.upgrade) {
      throw new ConfigError("no UpgradeConfiguration found in the supplied config", {
        field: "kind",
        value: source,
        hint: "add a kubeadm.k8s.io/v1beta4 UpgradeConfiguration document",
      });
    }
    doc = loaded.upgrade as Section;
  }
  const apply = section(doc, "apply");
  const plan = section(doc, "plan");
  const diff = section(doc, "diff");
  const cfg: ResolvedUpgradeConfig = {
    apply: {
      ...runSettings(apply),
      kubernetesVersion: str(apply, "kubernetesVersion"),
      allowExperimentalUpgrades: bool(apply, "allowExperimentalUpgrades", false),
      allowRCUpgrades: bool(apply, "allowRCUpgrades", false),
      forceUpgrade: bool(apply, "forceUpgrade", false),
      printConfig: bool(apply, "printConfig", false),
    },
    node: runSettings(section(doc, "node")),
    plan: {
      kubernetesVersion: str(plan, "kubernetesVersion"),
      allowExperimentalUpgrades: bool(plan, "allowExperimentalUpgrades", false),
      allowRCUpgrades: bool(plan, "allowRCUpgrades", false),
      etcdUpgrade: bool(plan, "etcdUpgrade", true),
      ignorePreflightErrors: strs(plan, "ignorePreflightErrors"),
      printConfig: bool(plan, "printConfig", false),
    },
    diff: {
      kubernetesVersion: str(diff, "kubernetesVersion"),
      contextLines: typeof diff.contextLines === "number" ? diff.contextLines : 0,
    },
    timeouts: withDefaultTimeouts(doc.timeouts as Timeouts | undefined),
    warnings,
  };
  validate(cfg);
  return cfg;
}
