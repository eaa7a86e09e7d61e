/**
 * The `mark-control-plane` phase: label this Node as a control-plane node and set its taints
 * (upstream `phases/markcontrolplane`). Labels `node-role.kubernetes.io/control-plane` and
 * `node.kubernetes.io/exclude-from-external-load-balancers` get the empty value; the taints are
 * the configured ones followed by any taints the Node already had that are not among them.
 *
 * @module
 */
import type { Node, Taint } from "kubernetes-types/core/v1.d.ts";
import { CONTROL_PLANE_LABEL, EXCLUDE_LB_LABEL } from "../constants.ts";
import type { Printer } from "../ports/printer.ts";
import type { KubeClient } from "../kube/client.ts";
import { type NodePatchOptions, patchNode } from "./node_patch.ts";

/** Labels added to control-plane nodes, in upstream's order. */
const CONTROL_PLANE_LABELS: readonly string[] = [CONTROL_PLANE_LABEL, EXCLUDE_LB_LABEL];

/** A taint as `key=value:Effect` (Go's `Taint.ToString`). */
export function formatTaint(t: Taint): string {
  if (!t.effect) return t.value ? `${t.key}=${t.value}:` : t.key;
  return t.value ? `${t.key}=${t.value}:${t.effect}` : `${t.key}:${t.effect}`;
}

function sameTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && (a.value ?? "") === (b.value ?? "") && a.effect === b.effect &&
    a.timeAdded === b.timeAdded;
}

/** Applies the control-plane labels and taints to a Node object (in place). */
export function markControlPlaneNode(node: Node, taints: readonly Taint[]): void {
  const labels = { ...node.metadata?.labels };
  for (const l of CONTROL_PLANE_LABELS) labels[l] = "";
  node.metadata = { ...node.metadata, labels };
  const merged = taints.map((t) => ({ ...t }));
  for (const existing of node.spec?.taints ?? []) {
    if (!merged.some((t) => sameTaint(t, existing))) merged.push(existing);
  }
  node.spec = { ...node.spec, taints: merged };
}

/** The phase's log lines for a node and its configured taints. */
function markControlPlaneMessages(nodeName: string, taints: readonly Taint[]): string[] {
  const lines = [
    `[mark-control-plane] Marking the node ${nodeName} as control-plane by adding the labels: [${
      CONTROL_PLANE_LABELS.join(" ")
    }]`,
  ];
  if (taints.length > 0) {
    lines.push(
      `[mark-control-plane] Marking the node ${nodeName} as control-plane by adding the taints [${
        taints.map(formatTaint).join(" ")
      }]`,
    );
  }
  return lines;
}

/** Prints the phase's lines and patches the Node. */
export async function markControlPlane(
  client: KubeClient,
  nodeName: string,
  taints: readonly Taint[],
  out: Printer,
  options: NodePatchOptions = {},
): Promise<Node> {
  for (const line of markControlPlaneMessages(nodeName, taints)) out.info(line);
  return await patchNode(client, nodeName, (n) => markControlPlaneNode(n, taints), options);
}
