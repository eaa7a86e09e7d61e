/**
 * When a control plane's components restarted, as seen in the log of the unit that restarted
 * them (`certs renew … --restart`, the scheduled renewal): the `[restart] Restarting <c>` and
 * `[restart] <c> is back` lines, timed as they appear.
 *
 * @module
 */
import type { ClusterNode } from "./cluster.ts";

/** The components a renewal restarts, in kubeadm's order (etcd last). */
export const RESTARTED = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd"];

/** A component's restart as seen from outside: when it began and ended (epoch ms). */
export interface RestartWindow {
  component: string;
  start: number;
  end: number;
}

/**
 * Runs `f` while watching a unit's log on `node`, and returns when each component's `[restart]`
 * lines (`Restarting X`, `X is back`) first appeared.
 */
export async function watchRestarts<T>(
  node: ClusterNode,
  unit: string,
  f: () => Promise<T>,
): Promise<{ result: T; windows: RestartWindow[] }> {
  const offset = (await node.machine.log(unit)).length;
  const seen = new Map<string, number>();
  let done = false;
  const watch = (async () => {
    while (!done) {
      const text = (await node.machine.log(unit)).slice(offset);
      for (const m of text.matchAll(/\[restart\] (Restarting \S+|\S+ is back)/g)) {
        if (!seen.has(m[1])) seen.set(m[1], Date.now());
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  let result: T;
  try {
    result = await f();
  } finally {
    done = true;
    await watch;
  }
  const windows = RESTARTED.filter((c) => seen.has(`Restarting ${c}`)).map((c) => ({
    component: c,
    start: seen.get(`Restarting ${c}`)!,
    end: seen.get(`${c} is back`) ?? Date.now(),
  }));
  return { result, windows };
}
