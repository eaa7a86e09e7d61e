/**
 * Reads the `[dryrun]` action log that both upstream kubeadm and ours print:
 *
 *   [dryrun] Would perform action CREATE on resource "configmaps" in API group "core/v1"
 *   [dryrun] Resource name "x", namespace "y"        (not for CREATE)
 *   [dryrun] Attached object:
 *   <YAML>
 *   <blank line>
 *
 * @module
 */
import { parseKubeYaml, parseKubeYamlOne } from "../../core/yaml/kube_yaml.ts";

/** One printed action. */
export interface PrintedAction {
  verb: string;
  resource: string;
  groupVersion: string;
  name?: string;
  namespace?: string;
  object?: Record<string, unknown>;
}

/** Whether a line ends an attached object's YAML (upstream prints a blank line after it). */
function endsAttachedObject(line: string): boolean {
  return line === "" || line.startsWith("[") || line === "---";
}

/** Parses every `[dryrun] Would perform action …` block of a dry-run's stdout. */
export function parseDryRunActions(stdout: string): PrintedAction[] {
  const lines = stdout.split("\n");
  const out: PrintedAction[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = lines[i].match(
      /^\[dryrun\] Would perform action (\w+) on resource "([^"]+)" in API group "([^"]+)"/,
    );
    if (!m) continue;
    const action: PrintedAction = { verb: m[1], resource: m[2], groupVersion: m[3] };
    let j = i + 1;
    const rn = lines[j]?.match(/^\[dryrun\] Resource name "([^"]*)", namespace "([^"]*)"/);
    if (rn) {
      action.name = rn[1];
      action.namespace = rn[2];
      j++;
    }
    if (lines[j] === "[dryrun] Attached object:") {
      const yaml: string[] = [];
      for (j++; j < lines.length && !endsAttachedObject(lines[j]); j++) {
        yaml.push(lines[j]);
      }
      action.object = parseKubeYamlOne(yaml.join("\n")) as Record<string, unknown>;
      const meta = action.object.metadata as { name?: string; namespace?: string } | undefined;
      action.name ??= meta?.name;
      action.namespace ??= meta?.namespace;
    }
    out.push(action);
    i = j - 1;
  }
  return out;
}

/** `"<VERB> <Kind> <namespace>/<name>"` summaries of the printed actions that carry objects. */
export function describeActions(stdout: string): string[] {
  return parseDryRunActions(stdout).filter((a) => a.object).map((a) =>
    `${a.verb} ${(a.object!.kind as string) ?? a.resource} ${a.namespace ? `${a.namespace}/` : ""}${
      a.name ?? ""
    }`
  );
}

/** An `upgrade apply --dry-run`'s stdout taken apart for comparison. */
export interface UpgradeDryRun {
  /** Every API action, reads included. */
  actions: PrintedAction[];
  /** `[dryrun] Would write file "<path>" with content:` → the content. */
  files: Map<string, string>;
  /** The addon objects printed instead of applied (`---`-separated YAML). */
  addonObjects: Record<string, unknown>[];
  /** Every other line (the log), in order. */
  log: string[];
}

/** Splits an upgrade dry run's output into API actions, printed files, addon objects and log. */
export function splitUpgradeDryRun(stdout: string): UpgradeDryRun {
  const actions = parseDryRunActions(stdout);
  const files = new Map<string, string>();
  const addonYaml: string[] = [];
  const log: string[] = [];
  const lines = stdout.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\[dryrun\] (Would perform action|Resource name )/.test(line)) continue;
    if (line === "[dryrun] Attached object:") {
      while (i + 1 < lines.length && !endsAttachedObject(lines[i + 1])) i++;
      continue;
    }
    const file = line.match(/^(.*)\[dryrun\] Would write file "([^"]+)" with content:$/);
    if (file) {
      if (file[1]) log.push(file[1]);
      const content: string[] = [];
      while (i + 1 < lines.length && !lines[i + 1].startsWith("[") && lines[i + 1] !== "---") {
        content.push(lines[++i]);
      }
      files.set(file[2], content.join("\n").replace(/\n+$/, ""));
      continue;
    }
    if (line === "---") {
      while (i + 1 < lines.length && !lines[i + 1].startsWith("[")) addonYaml.push(lines[++i]);
      addonYaml.push("---");
      continue;
    }
    if (line !== "") log.push(line);
  }
  const addonObjects = parseKubeYaml(addonYaml.join("\n")).map((d) => d.value).filter((v) =>
    v
  ) as Record<string, unknown>[];
  return { actions, files, addonObjects, log };
}

/**
 * An object as printed by upstream (Go zero values: `null`, empty structs) and by kubeadm-ts
 * compared alike: nulls and empty objects dropped. `edit(path, value)` may rewrite a leaf or
 * return `undefined` to drop it (what legitimately differs between two runs).
 */
export function dropEmptyFields(
  v: unknown,
  edit: (path: string, value: unknown) => unknown = (_, x) => x,
  path = "",
): unknown {
  if (Array.isArray(v)) return v.map((x, i) => dropEmptyFields(x, edit, `${path}[${i}]`));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const p = path ? `${path}.${k}` : k;
      if (x === null) continue;
      const y = edit(p, dropEmptyFields(x, edit, p));
      if (y === undefined) continue;
      if (y && typeof y === "object" && !Array.isArray(y) && Object.keys(y).length === 0) continue;
      out[k] = y;
    }
    return out;
  }
  return v;
}
