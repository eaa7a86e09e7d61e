/**
 * The kubelet service, as upstream's `TryStopKubelet` / `TryStartKubelet`: through the node's
 * service manager, and never fatal. Without a supported init system or a kubelet unit, or when
 * the command fails, a warning says the kubelet must be (re)started by the user. A node
 * prepared under `--rootfs` for another machine is not this machine's: its kubelet is left to
 * whatever runs it, and the workflow carries on and waits for it.
 *
 * @module
 */
import { errorMessage, KubeadmError } from "../errors.ts";
import type { KubeletConfiguration } from "../config/types.ts";
import { kubeletHealthzURL } from "../controlplane/health.ts";
import { poll, type Timing } from "../kube/retry.ts";
import type { NodeHost } from "../ports/node.ts";
import type { Printer } from "../ports/printer.ts";
import type { InitSystem } from "../ports/services.ts";
import { formatDuration } from "../text/duration.ts";

/** What a workflow does with the kubelet service. */
export interface KubeletControl {
  /** Stops it before its files change. */
  stop(): Promise<void>;
  /** (Re)starts it. */
  restart(): Promise<void>;
}

const KUBELET = "kubelet";

const controls = new WeakMap<object, KubeletControl>();

/**
 * The kubelet control of a node (one per node: the warnings about its service manager are
 * printed once per run).
 */
export function kubeletControl(
  node: Pick<NodeHost, "machine" | "foreignRoot">,
  out: Printer,
): KubeletControl {
  let control = controls.get(node);
  if (!control) controls.set(node, control = newKubeletControl(node, out));
  return control;
}

function newKubeletControl(
  node: Pick<NodeHost, "machine" | "foreignRoot">,
  out: Printer,
): KubeletControl {
  let manager: Promise<InitSystem | undefined> | undefined;
  const resolve = (what: string) =>
    manager ??= (async () => {
      if (node.foreignRoot !== undefined) {
        out.warn(
          `[kubelet-start] WARNING: the node's root is ${node.foreignRoot}; kubeadm does not manage the host's kubelet service for it. Make sure a kubelet for this node is running (it must watch ${node.foreignRoot}/etc/kubernetes/manifests)`,
        );
        return undefined;
      }
      const init = await node.machine.initSystem();
      if (!init) {
        out.warn(
          `[kubelet-start] No supported init system detected, won't make sure the kubelet ${what}. Please ensure the kubelet is running.`,
        );
        return undefined;
      }
      if (!await init.serviceInstalled(KUBELET).catch(() => false)) {
        out.warn(
          `[kubelet-start] Couldn't detect a kubelet service, can't make sure the kubelet ${what}. Please ensure the kubelet is started manually.`,
        );
        return undefined;
      }
      return init;
    })();
  return {
    async stop() {
      const init = await resolve("is not running while its configuration is written");
      try {
        await init?.serviceStop(KUBELET);
      } catch (e) {
        out.warn(
          `[kubelet-start] WARNING: unable to stop the kubelet service momentarily: [${
            errorMessage(e)
          }]`,
        );
      }
    },
    async restart() {
      const init = await resolve("is running properly");
      try {
        await init?.serviceRestart(KUBELET);
      } catch (e) {
        out.warn(
          `[kubelet-start] WARNING: unable to start the kubelet service: [${errorMessage(e)}]`,
        );
        out.warn("[kubelet-start] Please ensure kubelet is reloaded and running manually.");
      }
    },
  };
}

/** What {@link restartKubeletAndWait} needs. */
export interface KubeletRestart {
  node: Pick<NodeHost, "machine" | "health">;
  /** The kubelet's configuration: where its health endpoint is. */
  kubelet: KubeletConfiguration;
  timing: Timing;
  /** How long the kubelet may take to answer healthy again. */
  timeoutMs: number;
}

/**
 * Restarts the kubelet (after its credentials changed) and waits for its health endpoint to
 * answer 200; fails when there is no service manager or it does not come back in time.
 */
export async function restartKubeletAndWait(r: KubeletRestart): Promise<void> {
  const init = await r.node.machine.initSystem();
  if (!init) {
    throw new KubeadmError("no service manager to restart the kubelet with", {
      hint: "restart the kubelet by hand, then run again",
    });
  }
  await init.serviceRestart(KUBELET);
  const url = kubeletHealthzURL(r.kubelet);
  if (!url) return;
  let last = "";
  try {
    await poll<true>(async () => {
      const res = await r.node.health.get(url, { timeoutMs: 5_000 });
      if ("status" in res && res.status === 200) return { done: true, value: true };
      last = "status" in res ? `HTTP ${res.status}` : res.error;
      return { done: false };
    }, {
      ...r.timing,
      intervalMs: 1_000,
      timeoutMs: r.timeoutMs,
      timeoutError: () =>
        new KubeadmError(
          `the kubelet did not become healthy within ${formatDuration(r.timeoutMs)}: ${last}`,
        ),
    });
  } finally {
    await r.node.health.close?.();
  }
}
