/**
 * The kubelet service through the host's init system, as upstream's `TryStopKubelet` /
 * `TryStartKubelet` (`systemctl daemon-reload` + `systemctl stop|restart kubelet`, or OpenRC's
 * `rc-service`). Nothing here is fatal: without a supported init system or a kubelet unit, or
 * when the command fails, a warning says the kubelet must be (re)started by the user — a node
 * prepared under `--rootfs` usually has its kubelet run by something else (tests use a
 * stand-in that watches the manifests directory), so init carries on and waits for it.
 *
 * @module
 */
import type { Printer } from "../../core/host/ports.ts";
import type { KubeletService } from "../../core/phases/init/data.ts";
import { errorMessage } from "../../core/errors.ts";
import { exitStatus, lookPath, runCommand } from "./exec.ts";

/** Options of {@link createKubeletService}. */
export interface KubeletServiceOptions {
  /** Where warnings go. */
  out: Printer;
  /**
   * `--rootfs`: when set (and not `/`), the host's kubelet service belongs to another root,
   * so it is left alone and the user is told to run the node's kubelet.
   */
  rootfs?: string;
}

type Manager = "systemd" | "openrc";

async function detect(): Promise<Manager | undefined> {
  if (await lookPath("systemctl")) return "systemd";
  if (await lookPath("openrc")) return "openrc";
  return undefined;
}

async function unitExists(manager: Manager): Promise<boolean> {
  try {
    if (manager === "systemd") {
      const r = await runCommand("systemctl", ["cat", "kubelet.service"], { timeoutMs: 10_000 });
      return r.code === 0;
    }
    const r = await runCommand("rc-service", ["kubelet", "status"], { timeoutMs: 10_000 });
    return !(r.stdout + r.stderr).includes("does not exist");
  } catch {
    return false;
  }
}

async function run(command: string, args: string[]): Promise<void> {
  const r = await runCommand(command, args, { timeoutMs: 60_000 });
  if (r.code !== 0) {
    const detail = (r.stderr || r.stdout).trim();
    throw new Error(`${command} ${args.join(" ")}: ${exitStatus(r)}${detail ? `: ${detail}` : ""}`);
  }
}

/** The kubelet service of this host (see the module documentation). */
export function createKubeletService(options: KubeletServiceOptions): KubeletService {
  const { out } = options;
  const foreignRoot = options.rootfs !== undefined && options.rootfs.replace(/\/+$/, "") !== "";
  let state: Promise<Manager | undefined> | undefined;
  const resolve = (what: string): Promise<Manager | undefined> => {
    state ??= (async () => {
      if (foreignRoot) {
        out.warn(
          `[kubelet-start] WARNING: the node's root is ${options.rootfs}; kubeadm does not manage the host's kubelet service for it. Make sure a kubelet for this node is running (it must watch ${options.rootfs}/etc/kubernetes/manifests)`,
        );
        return undefined;
      }
      const manager = await detect();
      if (!manager) {
        out.warn(
          `[kubelet-start] No supported init system detected, won't make sure the kubelet ${what}. Please ensure the kubelet is running.`,
        );
        return undefined;
      }
      if (!await unitExists(manager)) {
        out.warn(
          `[kubelet-start] Couldn't detect a kubelet service, can't make sure the kubelet ${what}. Please ensure the kubelet is started manually.`,
        );
        return undefined;
      }
      return manager;
    })();
    return state;
  };

  return {
    async stop() {
      const manager = await resolve("is not running while its configuration is written");
      if (!manager) return;
      try {
        if (manager === "systemd") {
          await run("systemctl", ["daemon-reload"]);
          await run("systemctl", ["stop", "kubelet"]);
        } else {
          await run("rc-service", ["kubelet", "stop"]);
        }
      } catch (e) {
        out.warn(
          `[kubelet-start] WARNING: unable to stop the kubelet service momentarily: [${
            errorMessage(e)
          }]`,
        );
      }
    },
    async restart() {
      const manager = await resolve("is running properly");
      if (!manager) return;
      try {
        if (manager === "systemd") {
          await run("systemctl", ["daemon-reload"]);
          await run("systemctl", ["restart", "kubelet"]);
        } else {
          await run("rc-service", ["kubelet", "restart"]);
        }
      } catch (e) {
        out.warn(
          `[kubelet-start] WARNING: unable to start the kubelet service: [${errorMessage(e)}]`,
        );
        out.warn("[kubelet-start] Please ensure kubelet is reloaded and running manually.");
      }
    },
  };
}
