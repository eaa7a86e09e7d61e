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
import { parseKubeYamlOne } from "../../core/yaml/kube_yaml.ts";

/** One printed action. */
export interface PrintedAction {
  verb: string;
  resource: string;
  groupVersion: string;
  name?: string;
  namespace?: string;
  object?: Record<string, unknown>;
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
      for (j++; j < lines.length && lines[j] !== "" && !lines[j].startsWith("["); j++) {
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
