/**
 * `kubeadm join phase wait-control-plane` (upstream `waitcontrolplane.go` and
 * `WaitForControlPlaneComponents`): for a control-plane join, poll every 500 ms, up to
 * `timeouts.controlPlaneComponentHealthCheck`, the kube-apiserver's `/livez` (through
 * `admin.conf` pointed at this node's own API server), the kube-controller-manager's
 * `/healthz` and the kube-scheduler's `/livez` (plain HTTPS, not verified), at the addresses
 * and ports their manifests give.
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import {
  Component,
  CONTROLLER_MANAGER_PORT,
  KubeconfigFile,
  SCHEDULER_PORT,
} from "../../constants.ts";
import { formatDuration, parseDuration } from "../../text/duration.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import { utf8 } from "../../host/ports.ts";
import { API_CALL_RETRY_INTERVAL_MS, poll } from "../../kube/retry.ts";
import { parseKubeconfig } from "../../kubeconfig/kubeconfig.ts";
import { staticPodManifestPath } from "../../manifests/manifest_file.ts";
import { joinHostPort } from "../../net/host_port.ts";
import { localAPIEndpointURL } from "../../net/endpoint.ts";
import { parseKubeYamlOne } from "../../yaml/kube_yaml.ts";
import type { JoinData } from "./data.ts";

/** Upstream's help text when a control-plane component does not come up. */
export function controlPlaneFailMessage(criSocket: string): string[] {
  return [
    "A control plane component may have crashed or exited when started by the container runtime.",
    "To troubleshoot, list all containers using your preferred container runtimes CLI.",
    "Here is one example how you may list all running Kubernetes containers by using crictl:",
    `\t- 'crictl --runtime-endpoint ${criSocket} ps -a | grep kube | grep -v pause'`,
    "\tOnce you have found the failing container, you can inspect its logs with:",
    `\t- 'crictl --runtime-endpoint ${criSocket} logs CONTAINERID'`,
    "",
  ];
}

/** One component to probe. */
export interface ComponentProbe {
  name: string;
  /** `host:port`. */
  addressPort: string;
  /** `livez` or `healthz`. */
  endpoint: string;
}

function argsOf(pod: Pod | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const c = pod?.spec?.containers?.[0];
  for (const a of [...(c?.command ?? []), ...(c?.args ?? [])]) {
    const m = /^--([^=]+)=(.*)$/.exec(a);
    if (m) out.set(m[1], m[2]);
  }
  return out;
}

/** The probes of the three components from their manifests (upstream defaults otherwise). */
export function controlPlaneProbes(
  pods: Partial<Record<string, Pod>>,
  apiServerAddress: string,
  apiServerPort: number,
): ComponentProbe[] {
  const api = argsOf(pods[Component.apiServer]);
  const kcm = argsOf(pods[Component.controllerManager]);
  const sched = argsOf(pods[Component.scheduler]);
  return [
    {
      name: Component.apiServer,
      addressPort: joinHostPort(
        api.get("advertise-address") || apiServerAddress,
        api.get("secure-port") || apiServerPort,
      ),
      endpoint: "livez",
    },
    {
      name: Component.controllerManager,
      addressPort: joinHostPort(
        kcm.get("bind-address") || "127.0.0.1",
        kcm.get("secure-port") || CONTROLLER_MANAGER_PORT,
      ),
      endpoint: "healthz",
    },
    {
      name: Component.scheduler,
      addressPort: joinHostPort(
        sched.get("bind-address") || "127.0.0.1",
        sched.get("secure-port") || SCHEDULER_PORT,
      ),
      endpoint: "livez",
    },
  ];
}

async function probeStatus(d: JoinData, url: string): Promise<number> {
  const r = await d.node.health.get(url, { insecureSkipTLSVerify: true, timeoutMs: 10_000 });
  if ("error" in r) throw new KubeadmError(r.error);
  return r.status;
}

/** Runs the phase; a no-op for worker joins and in dry-run. */
export async function runJoinWaitControlPlane(d: JoinData): Promise<void> {
  const cp = d.cfg.controlPlane;
  if (!cp || d.dryRun) return;
  const adminPath = `${d.kubeconfigDir}/${KubeconfigFile.admin}`;
  const raw = await d.files.read(adminPath);
  if (raw === undefined) throw new KubeadmError(`open ${adminPath}: no such file or directory`);
  const admin = parseKubeconfig(utf8(raw), adminPath);
  const local = localAPIEndpointURL(cp.localAPIEndpoint);
  for (const c of admin.clusters) c.cluster = { ...c.cluster, server: local };
  const client = await d.clientFor(admin);

  const pods: Record<string, Pod> = {};
  for (const name of [Component.apiServer, Component.controllerManager, Component.scheduler]) {
    const path = staticPodManifestPath(d.manifestDir, name);
    const text = await d.files.read(path);
    if (text === undefined) throw new KubeadmError(`open ${path}: no such file or directory`);
    pods[name] = parseKubeYamlOne(utf8(text), path) as Pod;
  }
  const timeoutMs = parseDuration(d.cfg.timeouts.controlPlaneComponentHealthCheck);
  d.out.info(
    `[control-plane-check] Waiting for healthy control plane components. This can take up to ${
      formatDuration(timeoutMs)
    }`,
  );
  const probes = controlPlaneProbes(
    pods,
    cp.localAPIEndpoint.advertiseAddress,
    cp.localAPIEndpoint.bindPort,
  );
  const start = d.clock.now().getTime();
  const results = await Promise.all(probes.map(async (p) => {
    const url = `https://${p.addressPort}/${p.endpoint}`;
    d.out.info(`[control-plane-check] Checking ${p.name} at ${url}`);
    try {
      await poll<true>(async () => {
        let status: number;
        try {
          status = p.name === Component.apiServer
            ? (await client.getRaw(`/${p.endpoint}`)).status
            : await probeStatus(d, url);
        } catch (e) {
          return {
            done: false,
            error: new KubeadmError(`${p.name} check failed at ${url}: ${errorMessage(e)}`),
          };
        }
        if (status !== 200) {
          return {
            done: false,
            error: new KubeadmError(`${p.name} check failed at ${url} with status: ${status}`),
          };
        }
        return { done: true, value: true };
      }, { clock: d.clock, sleep: d.sleep, intervalMs: API_CALL_RETRY_INTERVAL_MS, timeoutMs });
      const took = formatDuration(d.clock.now().getTime() - start);
      d.out.info(`[control-plane-check] ${p.name} is healthy after ${took}`);
      return undefined;
    } catch (e) {
      const took = formatDuration(d.clock.now().getTime() - start);
      d.out.info(`[control-plane-check] ${p.name} is not healthy after ${took}`);
      return errorMessage(e);
    }
  }));
  const errors = results.filter((r): r is string => r !== undefined);
  if (errors.length > 0) {
    for (const line of controlPlaneFailMessage(d.cfg.nodeRegistration.criSocket)) {
      d.out.info(line);
    }
    throw new KubeadmError(
      `failed while waiting for the control plane to start: ${
        errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`
      }`,
    );
  }
}
