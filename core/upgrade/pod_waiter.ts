/**
 * Waiting for static Pods through the API server while their manifests change (the parts of
 * upstream's `apiclient.KubeWaiter` the upgrade uses). A static Pod's mirror Pod
 * `kube-system/<component>-<node>` carries the kubelet's `kubernetes.io/config.hash` of the
 * manifest it runs: a new hash means the kubelet picked the new manifest up. Every wait polls
 * every 500 ms up to one timeout (`timeouts.upgradeManifests`, 5 minutes by default).
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { Printer } from "../ports/printer.ts";
import type { KubeClient } from "../kube/client.ts";
import { API_CALL_RETRY_INTERVAL_MS, poll, type PollWindow } from "../kube/retry.ts";
import { formatDuration } from "../text/duration.ts";

/** The mirror Pod annotation holding the hash of the manifest the kubelet runs. */
export const CONFIG_HASH_ANNOTATION = "kubernetes.io/config.hash";

/** Waits on static Pods (upstream `Waiter`, the upgrade's part). */
export interface StaticPodWaiter {
  /** The timeout of each wait. */
  readonly timeoutMs: number;
  /** Waits until the mirror Pod of each component can be read; returns their hashes. */
  staticPodHashes(nodeName: string, components: readonly string[]): Promise<Record<string, string>>;
  /** Waits until the mirror Pod of a component can be read; returns its hash. */
  staticPodHash(nodeName: string, component: string): Promise<string>;
  /** Waits until the mirror Pod's hash differs from `previous`. */
  staticPodHashChange(nodeName: string, component: string, previous: string): Promise<void>;
  /** Waits until there is at least one Pod with the label and every one is Running. */
  podsWithLabel(selector: string): Promise<void>;
}

async function mirrorPodHash(
  client: KubeClient,
  nodeName: string,
  component: string,
  window: PollWindow,
): Promise<string> {
  try {
    const pod = await client.get<Pod>({
      kind: "Pod",
      namespace: "kube-system",
      name: `${component}-${nodeName}`,
    }, window.limits());
    return pod.metadata?.annotations?.[CONFIG_HASH_ANNOTATION] ?? "";
  } catch (e) {
    throw new KubeadmError(
      `failed to obtain static Pod hash for component ${component} on Node ${nodeName}: ${
        errorMessage(e)
      }`,
      { cause: e },
    );
  }
}

/** A waiter over the API server (upstream `NewKubeWaiter`). */
export function kubeWaiter(client: KubeClient, timeoutMs: number, out: Printer): StaticPodWaiter {
  // One attempt per poll: the poll is the retry.
  const once = client.withRetry({ timeoutMs: 0 });
  const timing = { ...once.timing, intervalMs: API_CALL_RETRY_INTERVAL_MS, timeoutMs };
  const hash = (nodeName: string, component: string) =>
    poll<string>(async (window) => {
      try {
        return { done: true, value: await mirrorPodHash(once, nodeName, component, window) };
      } catch (e) {
        return { done: false, error: e };
      }
    }, timing);
  return {
    timeoutMs,
    async staticPodHashes(nodeName, components) {
      const out: Record<string, string> = {};
      for (const c of components) out[c] = await hash(nodeName, c);
      return out;
    },
    staticPodHash: hash,
    async staticPodHashChange(nodeName, component, previous) {
      let lastError: unknown;
      try {
        await poll<true>(async (window) => {
          try {
            const h = await mirrorPodHash(once, nodeName, component, window);
            lastError = undefined;
            return h === previous ? { done: false } : { done: true, value: true };
          } catch (e) {
            lastError = e;
            return { done: false, error: e };
          }
        }, timing);
      } catch (e) {
        // Upstream reports the last read error when the last read failed (as the poll does:
        // cut at the wait's end or not), else the timeout.
        if (lastError !== undefined) throw e;
        throw new KubeadmError(
          `static Pod hash for component ${component} on Node ${nodeName} did not change after ${
            formatDuration(timeoutMs)
          }: context deadline exceeded`,
        );
      }
    },
    async podsWithLabel(selector) {
      let lastCount = -1;
      await poll<true>(async (window) => {
        let pods: Pod[];
        try {
          pods = await once.list<Pod>(
            "Pod",
            { namespace: "kube-system", labelSelector: selector },
            window.limits(),
          );
        } catch (e) {
          out.info(
            `[apiclient] Error getting Pods with label selector ${JSON.stringify(selector)} [${
              errorMessage(e)
            }]`,
          );
          return { done: false };
        }
        if (pods.length !== lastCount) {
          out.info(`[apiclient] Found ${pods.length} Pods for label selector ${selector}`);
          lastCount = pods.length;
        }
        if (pods.length === 0 || pods.some((p) => p.status?.phase !== "Running")) {
          return { done: false };
        }
        return { done: true, value: true };
      }, {
        ...timing,
        timeoutError: () =>
          new KubeadmError(
            `timed out after ${
              formatDuration(timeoutMs)
            } waiting for the Pods with label ${selector} to be Running: context deadline exceeded`,
          ),
      });
    },
  };
}
