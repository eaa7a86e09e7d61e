/**
 * Finding the stacked etcd cluster from the API server (upstream `etcdutil.NewFromCluster`):
 * the `kubeadm.kubernetes.io/etcd.advertise-client-urls` annotation of every etcd mirror Pod
 * (`component=etcd,tier=control-plane` in `kube-system`) gives a first endpoint list, retried
 * until every etcd Pod has the annotation; the member list then gives the authoritative
 * client URLs ("sync"). Each step logs upstream's lines (`-v=1` the endpoints found, `-v=3`/`-v=4`
 * the Pods it waits for).
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import { DefaultTimeouts, ETCD_ENDPOINT_ANNOTATION } from "../constants.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { KubeClient } from "../kube/client.ts";
import { API_CALL_RETRY_INTERVAL_MS, poll } from "../kube/retry.ts";
import type { EtcdClient } from "../ports/etcd.ts";
import type { LogFn } from "../ports/printer.ts";
import type { EtcdTiming } from "./timing.ts";

/** Label selector of the etcd static Pods. */
const ETCD_POD_SELECTOR = "component=etcd,tier=control-plane";

/** This module's name in verbose log lines. */
const LOG_SOURCE = "endpoints.ts";

/** The annotated client URLs of etcd Pods, and how many etcd Pods there are. */
export function etcdEndpointsFromPods(
  pods: readonly Pod[],
  log?: LogFn,
): { endpoints: string[]; total: number } {
  const endpoints: string[] = [];
  for (const pod of pods) {
    const name = JSON.stringify(pod.metadata?.name ?? "");
    if (!pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")) {
      log?.(3, LOG_SOURCE, `etcd pod ${name} is not ready`);
    }
    const url = pod.metadata?.annotations?.[ETCD_ENDPOINT_ANNOTATION];
    if (url === undefined) {
      log?.(
        3,
        LOG_SOURCE,
        `etcd Pod ${name} is missing the ${
          JSON.stringify(ETCD_ENDPOINT_ANNOTATION)
        } annotation; cannot infer etcd advertise client URL using the Pod annotation`,
      );
    }
    if (url) endpoints.push(url);
  }
  return { endpoints, total: pods.length };
}

/**
 * Lists the etcd Pods until each carries the annotation (retried every 500 ms up to
 * `timeouts.kubernetesAPICall`); throws `could not retrieve the list of etcd endpoints`.
 */
export async function etcdEndpointsFromCluster(
  client: KubeClient,
  timeoutMs: number = DefaultTimeouts.kubernetesAPICall,
  log?: LogFn,
): Promise<string[]> {
  let found: string[];
  try {
    const once = client.withRetry({ timeoutMs: 0 });
    found = await poll<string[]>(async (window) => {
      log?.(
        3,
        LOG_SOURCE,
        `retrieving etcd endpoints from ${
          JSON.stringify(ETCD_ENDPOINT_ANNOTATION)
        } annotation in etcd Pods`,
      );
      let pods: Pod[];
      try {
        pods = await once.list<Pod>("Pod", {
          namespace: "kube-system",
          labelSelector: ETCD_POD_SELECTOR,
        }, window.limits());
      } catch (e) {
        return { done: false, error: e };
      }
      const { endpoints, total } = etcdEndpointsFromPods(pods, log);
      if (endpoints.length === 0 || endpoints.length !== total) {
        log?.(
          4,
          LOG_SOURCE,
          `found a total of ${total} etcd pods and the following endpoints: [${
            endpoints.join(" ")
          }]; retrying`,
        );
        return {
          done: false,
          error: new KubeadmError(
            `found a total of ${total} etcd pods and the following endpoints: [${
              endpoints.join(" ")
            }]`,
          ),
        };
      }
      return { done: true, value: endpoints };
    }, { ...client.timing, intervalMs: API_CALL_RETRY_INTERVAL_MS, timeoutMs });
  } catch (e) {
    throw new KubeadmError(`could not retrieve the list of etcd endpoints: ${errorMessage(e)}`, {
      cause: e,
      hint: "the etcd static Pods must be mirrored into the API server (the kubelet does this)",
    });
  }
  log?.(1, LOG_SOURCE, `etcd endpoints read from pods: ${found.join(",")}`);
  return found;
}

/**
 * Connects to the given endpoints and replaces them with the client URLs every member
 * advertises (upstream `Sync`, as `NewFromCluster` calls it), retried until the etcd API
 * timeout.
 */
export async function syncEtcdClient(
  connect: (endpoints: readonly string[]) => EtcdClient,
  endpoints: readonly string[],
  t: EtcdTiming,
  log?: LogFn,
): Promise<EtcdClient> {
  const first = connect(endpoints);
  const urls = await poll<string[]>(async (window) => {
    try {
      const members = await first.listMembers(window.limits());
      return { done: true, value: members.flatMap((m) => m.clientURLs) };
    } catch (e) {
      log?.(5, LOG_SOURCE, `Failed to sync etcd endpoints: ${errorMessage(e)}`);
      return { done: false, error: e };
    }
  }, t).catch((e) => {
    throw new KubeadmError(`error syncing endpoints with etcd: ${errorMessage(e)}`, { cause: e });
  });
  const synced = urls.length > 0 ? connect([...new Set(urls)]) : first;
  log?.(1, LOG_SOURCE, `etcd endpoints read from etcd: ${synced.endpoints.join(",")}`);
  log?.(1, LOG_SOURCE, `update etcd endpoints: ${synced.endpoints.join(",")}`);
  return synced;
}
