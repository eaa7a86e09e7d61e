/**
 * Patching this node's Node object the way upstream's `apiclient.PatchNode` does: poll until
 * the Node exists and carries the `kubernetes.io/hostname` label (the kubelet registers it
 * asynchronously), apply a mutation to a copy, and send the difference as a strategic merge
 * patch. Conflicts and transient errors are retried until the API-call timeout.
 *
 * @module
 */
import type { Node } from "kubernetes-types/core/v1.d.ts";
import { KubeadmError } from "../errors.ts";
import type { KubeClient } from "../kube/client.ts";
import { createMergePatch } from "../patches/merge_patch.ts";
import { API_CALL_RETRY_INTERVAL_MS, poll } from "../kube/retry.ts";
import { isConflict, isForbidden, isTransient, isUnauthorized } from "../kube/status.ts";

/** The label the kubelet sets on its Node once registered. */
const HOSTNAME_LABEL = "kubernetes.io/hostname";

/** Timing of {@link patchNode}. */
export interface NodePatchOptions {
  /** Longest delay between attempts (default 500ms; the first ones are shorter). */
  intervalMs?: number;
  /** Overall bound (default: the client's retry timeout, i.e. `timeouts.kubernetesAPICall`). */
  timeoutMs?: number;
}

/**
 * Patches Node `nodeName` with whatever `mutate` changes on a copy of it. Returns the patched
 * Node. The patch only carries the changed fields.
 */
export async function patchNode(
  client: KubeClient,
  nodeName: string,
  mutate: (node: Node) => void,
  options: NodePatchOptions = {},
): Promise<Node> {
  return await poll<Node>(async (window) => {
    let node: Node;
    try {
      node = await client.get<Node>({ kind: "Node", name: nodeName }, window.limits());
    } catch (e) {
      if (isForbidden(e) || isUnauthorized(e)) throw e;
      return { done: false, error: e };
    }
    if (node.metadata?.labels?.[HOSTNAME_LABEL] === undefined) return { done: false };
    const changed = structuredClone(node);
    mutate(changed);
    const patch = createMergePatch(node, changed);
    try {
      const patched = await client.patch<Node>(
        { kind: "Node", name: nodeName },
        patch,
        "strategic",
        window.limits(),
      );
      return { done: true, value: patched };
    } catch (e) {
      if (isConflict(e) || isTransient(e)) return { done: false, error: e };
      throw e;
    }
  }, {
    ...client.timing,
    intervalMs: options.intervalMs ?? API_CALL_RETRY_INTERVAL_MS,
    // The kubelet registers its Node moments after the API server answers: poll from 50ms up.
    firstIntervalMs: Math.min(50, options.intervalMs ?? API_CALL_RETRY_INTERVAL_MS),
    timeoutMs: options.timeoutMs ?? client.retry.timeoutMs,
    timeoutError: () =>
      new KubeadmError(
        `timed out waiting for the Node ${JSON.stringify(nodeName)} to be registered with the ${
          JSON.stringify(HOSTNAME_LABEL)
        } label`,
        { hint: "check that the kubelet is running and can reach the API server" },
      ),
  });
}
