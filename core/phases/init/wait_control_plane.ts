/**
 * `kubeadm init phase wait-control-plane`: waits for the kubelet's health endpoint, then for
 * the control-plane components (upstream `WaitForKubelet` and, with the
 * `WaitForAllControlPlaneComponents` gate that 1.34 has on, `WaitForControlPlaneComponents`;
 * without it `WaitForAPI`).
 *
 * Endpoints: the kubelet at `http://<healthzBindAddress>:<healthzPort>/healthz` from the
 * KubeletConfiguration; kube-apiserver `/livez`, kube-controller-manager `/healthz` and
 * kube-scheduler `/livez` at the address and port their static Pod manifests pass
 * (`--advertise-address` / `--bind-address`, `--secure-port`), checked without verifying
 * their self-signed serving certificates, as upstream does. All pending endpoints are polled
 * every 500ms; every 10s a progress line names the ones still pending, and a timeout fails
 * naming each component that never became healthy with its last error.
 *
 * In dry-run the planned files are reported first (upstream prints them here) and nothing is
 * waited for: only upstream's `[dryrun] Would make sure the kubelet returns 'ok' ...` line.
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import { formatDuration, parseDuration } from "../../text/duration.ts";
import { Feature, featureEnabled } from "../../config/features.ts";
import {
  Component,
  CONTROLLER_MANAGER_PORT,
  KUBELET_HEALTHZ_PORT,
  SCHEDULER_PORT,
} from "../../constants.ts";
import { KubeadmError } from "../../errors.ts";
import { realSleep } from "../../kube/transport.ts";
import { joinHostPort } from "../../net/host_port.ts";
import { parseKubeYamlOne } from "../../yaml/kube_yaml.ts";
import type { InitData } from "./data.ts";

/** Delay between polls (upstream's `KubernetesAPICallRetryInterval`). */
export const HEALTH_POLL_INTERVAL_MS = 500;
/** How often a progress line names the endpoints still pending. */
export const HEALTH_PROGRESS_INTERVAL_MS = 10_000;
/** Upper bound of one probe request. */
export const HEALTH_PROBE_TIMEOUT_MS = 10_000;

/** One endpoint to wait for. */
export interface HealthTarget {
  /** `kubelet`, `kube-apiserver`, ... */
  name: string;
  url: string;
  /** Skip server certificate verification. */
  insecure: boolean;
}

/** The kubelet's health URL from the KubeletConfiguration. */
export function kubeletHealthURL(data: InitData): string {
  const kubelet = data.cfg.kubelet as { healthzBindAddress?: string; healthzPort?: number };
  const address = kubelet.healthzBindAddress || "127.0.0.1";
  const port = kubelet.healthzPort || KUBELET_HEALTHZ_PORT;
  return `http://${joinHostPort(address, port)}/healthz`;
}

/** `--name=value` flags of a static Pod manifest's first container, or `undefined`. */
async function manifestFlags(data: InitData, component: string): Promise<Map<string, string>> {
  const flags = new Map<string, string>();
  const path = `${data.manifestDir.replace(/\/+$/, "")}/${component}.yaml`;
  const bytes = await data.files.read(path);
  if (bytes === undefined) return flags;
  let pod: Pod;
  try {
    pod = parseKubeYamlOne(new TextDecoder().decode(bytes), path) as Pod;
  } catch {
    return flags;
  }
  const c = pod?.spec?.containers?.[0];
  for (const arg of [...(c?.command ?? []), ...(c?.args ?? [])]) {
    const m = /^--([^=]+)=(.*)$/.exec(arg);
    if (m) flags.set(m[1], m[2]);
  }
  return flags;
}

/** The three control-plane health endpoints, from the manifests where they set them. */
export async function controlPlaneHealthTargets(data: InitData): Promise<HealthTarget[]> {
  const local = data.cfg.init.localAPIEndpoint;
  const specs = [
    {
      name: Component.apiServer,
      addressFlag: "advertise-address",
      address: local.advertiseAddress,
      port: local.bindPort,
      path: "livez",
    },
    {
      name: Component.controllerManager,
      addressFlag: "bind-address",
      address: "127.0.0.1",
      port: CONTROLLER_MANAGER_PORT,
      path: "healthz",
    },
    {
      name: Component.scheduler,
      addressFlag: "bind-address",
      address: "127.0.0.1",
      port: SCHEDULER_PORT,
      path: "livez",
    },
  ];
  const out: HealthTarget[] = [];
  for (const s of specs) {
    const flags = await manifestFlags(data, s.name);
    const address = flags.get(s.addressFlag) || s.address;
    const port = flags.get("secure-port") || String(s.port);
    out.push({
      name: s.name,
      url: `https://${joinHostPort(address, port)}/${s.path}`,
      insecure: true,
    });
  }
  return out;
}

/** How one wait went. */
interface WaitOutcome {
  /** Targets that never became healthy. */
  pending: HealthTarget[];
  /** Last error per pending target. */
  errors: Map<string, string>;
  /** Total time waited. */
  elapsedMs: number;
}

interface WaitOptions {
  timeoutMs: number;
  /** Log prefix of the progress lines. */
  prefix: string;
  /** Describes a failed probe for the final error. */
  describe: (t: HealthTarget, failure: { status: number } | { error: string }) => string;
  /** Called once per target when it first answers 200, in completion order. */
  onHealthy: (t: HealthTarget, elapsedMs: number) => void;
  /** Human name of a pending target in progress lines. */
  label?: (t: HealthTarget) => string;
}

/** Polls all pending targets together until each answered 200 or the timeout passes. */
async function waitForTargets(
  data: InitData,
  targets: readonly HealthTarget[],
  o: WaitOptions,
): Promise<WaitOutcome> {
  const health = data.node?.health;
  if (!health) {
    throw new KubeadmError("wait-control-plane needs a health probe, but none is configured", {
      hint: "run it through the kubeadm command line",
    });
  }
  const sleep = data.sleep ?? realSleep;
  const start = data.clock.now().getTime();
  const deadline = start + o.timeoutMs;
  const errors = new Map<string, string>();
  let pending = [...targets];
  let nextProgress = start + HEALTH_PROGRESS_INTERVAL_MS;
  for (;;) {
    const remaining = Math.max(1, deadline - data.clock.now().getTime());
    const healthy = new Set<HealthTarget>();
    await Promise.all(pending.map(async (t) => {
      let r: { status: number } | { error: string };
      try {
        r = await health.get(t.url, {
          insecureSkipTLSVerify: t.insecure,
          timeoutMs: Math.min(HEALTH_PROBE_TIMEOUT_MS, remaining),
        });
      } catch (e) {
        r = { error: e instanceof Error ? e.message : String(e) };
      }
      if ("status" in r && r.status === 200) {
        healthy.add(t);
        errors.delete(t.name);
        o.onHealthy(t, data.clock.now().getTime() - start);
      } else {
        errors.set(t.name, o.describe(t, r));
      }
    }));
    pending = pending.filter((t) => !healthy.has(t));
    const now = data.clock.now().getTime();
    if (pending.length === 0) return { pending, errors, elapsedMs: now - start };
    if (now + HEALTH_POLL_INTERVAL_MS > deadline) {
      return { pending, errors, elapsedMs: now - start };
    }
    if (now >= nextProgress) {
      const names = pending.map((t) => o.label?.(t) ?? t.name).join(", ");
      const elapsed = formatDuration(Math.floor((now - start) / 1000) * 1000);
      data.out.info(`${o.prefix} Still waiting for ${names} (${elapsed} elapsed)`);
      while (nextProgress <= now) nextProgress += HEALTH_PROGRESS_INTERVAL_MS;
    }
    await sleep(HEALTH_POLL_INTERVAL_MS);
  }
}

/** Upstream's troubleshooting text printed when the control plane does not come up. */
export function troubleshootingMessage(error: string, criSocket: string): string[] {
  return [
    "",
    "Unfortunately, an error has occurred, likely caused by:",
    ...error.split("\n").map((l) => `\t${l}`),
    "",
    "This error is likely caused by:",
    "\t- The kubelet is not running",
    "\t- The kubelet is unhealthy due to a misconfiguration of the node in some way (required cgroups disabled)",
    "",
    "If you are on a systemd-powered system, you can try to troubleshoot the error with the following commands:",
    "\t- 'systemctl status kubelet'",
    "\t- 'journalctl -xeu kubelet'",
    "",
    "Additionally, a control plane component may have crashed or exited when started by the container runtime.",
    "To troubleshoot, list all containers using your preferred container runtimes CLI.",
    "Here is one example how you may list all running Kubernetes containers by using crictl:",
    `\t- 'crictl --runtime-endpoint ${criSocket} ps -a | grep kube | grep -v pause'`,
    "\tOnce you have found the failing container, you can inspect its logs with:",
    `\t- 'crictl --runtime-endpoint ${criSocket} logs CONTAINERID'`,
    "",
  ];
}

function fail(data: InitData, details: string[], message: string, hint: string): never {
  const text = details.length === 1 ? details[0] : `[${details.join(", ")}]`;
  for (const line of troubleshootingMessage(text, data.cfg.init.nodeRegistration.criSocket)) {
    data.out.info(line);
  }
  throw new KubeadmError(`couldn't initialize a Kubernetes cluster: ${message}`, {
    hint: `${hint}; last errors: ${details.join("; ")}`,
  });
}

function timeoutOf(value: string | undefined, fallbackMs: number): number {
  try {
    return value ? parseDuration(value) : fallbackMs;
  } catch {
    return fallbackMs;
  }
}

/** Waits for the kubelet; throws after `timeouts.kubeletHealthCheck`. */
async function waitForKubelet(data: InitData): Promise<void> {
  const url = kubeletHealthURL(data);
  const timeoutMs = timeoutOf(data.cfg.init.timeouts.kubeletHealthCheck, 4 * 60_000);
  data.out.info(
    `[kubelet-check] Waiting for a healthy kubelet at ${url}. This can take up to ${
      formatDuration(timeoutMs)
    }`,
  );
  const outcome = await waitForTargets(data, [{ name: "kubelet", url, insecure: false }], {
    timeoutMs,
    prefix: "[kubelet-check]",
    label: () => "the kubelet",
    describe: (_t, r) =>
      `The HTTP call equal to 'curl -sSL ${url}' returned ${
        "status" in r ? `status code: ${r.status}` : `error: ${r.error}`
      }`,
    onHealthy: (_t, ms) =>
      data.out.info(`[kubelet-check] The kubelet is healthy after ${formatDuration(ms)}`),
  });
  if (outcome.pending.length === 0) return;
  data.out.info(
    `[kubelet-check] The kubelet is not healthy after ${formatDuration(outcome.elapsedMs)}`,
  );
  fail(
    data,
    [...outcome.errors.values()],
    `the kubelet did not become healthy at ${url} within ${formatDuration(timeoutMs)}`,
    "make sure the kubelet is running ('systemctl status kubelet', 'journalctl -xeu kubelet')",
  );
}

/** Waits for every control-plane component; throws naming the ones that stayed unhealthy. */
async function waitForComponents(data: InitData): Promise<void> {
  const timeoutMs = timeoutOf(data.cfg.init.timeouts.controlPlaneComponentHealthCheck, 4 * 60_000);
  const targets = await controlPlaneHealthTargets(data);
  data.out.info(
    `[control-plane-check] Waiting for healthy control plane components. This can take up to ${
      formatDuration(timeoutMs)
    }`,
  );
  for (const t of targets) data.out.info(`[control-plane-check] Checking ${t.name} at ${t.url}`);
  const outcome = await waitForTargets(data, targets, {
    timeoutMs,
    prefix: "[control-plane-check]",
    describe: (t, r) =>
      "status" in r
        ? `${t.name} check failed at ${t.url} with status: ${r.status}`
        : `${t.name} check failed at ${t.url}: ${r.error}`,
    onHealthy: (t, ms) =>
      data.out.info(`[control-plane-check] ${t.name} is healthy after ${formatDuration(ms)}`),
  });
  if (outcome.pending.length === 0) return;
  for (const t of outcome.pending) {
    data.out.info(
      `[control-plane-check] ${t.name} is not healthy after ${formatDuration(outcome.elapsedMs)}`,
    );
  }
  const names = outcome.pending.map((t) => t.name);
  fail(
    data,
    outcome.pending.map((t) => outcome.errors.get(t.name) ?? `${t.name} did not answer`),
    `control plane component${names.length > 1 ? "s" : ""} ${names.join(", ")} did not become ` +
      `healthy within ${formatDuration(timeoutMs)}`,
    "inspect the failing component's container logs",
  );
}

/** Waits for the API server only (`WaitForAllControlPlaneComponents` off). */
async function waitForAPI(data: InitData): Promise<void> {
  const timeoutMs = timeoutOf(data.cfg.init.timeouts.controlPlaneComponentHealthCheck, 4 * 60_000);
  const [api] = await controlPlaneHealthTargets(data);
  const target = { ...api, url: api.url.replace(/\/livez$/, "/healthz") };
  data.out.info(
    `[api-check] Waiting for a healthy API server. This can take up to ${
      formatDuration(timeoutMs)
    }`,
  );
  const outcome = await waitForTargets(data, [target], {
    timeoutMs,
    prefix: "[api-check]",
    label: () => "the API server",
    describe: (t, r) =>
      "status" in r
        ? `${t.name} check failed at ${t.url} with status: ${r.status}`
        : `${t.name} check failed at ${t.url}: ${r.error}`,
    onHealthy: (_t, ms) =>
      data.out.info(`[api-check] The API server is healthy after ${formatDuration(ms)}`),
  });
  if (outcome.pending.length === 0) return;
  data.out.info(
    `[api-check] The API server is not healthy after ${formatDuration(outcome.elapsedMs)}`,
  );
  fail(
    data,
    [...outcome.errors.values()],
    `the API server did not become healthy at ${target.url} within ${formatDuration(timeoutMs)}`,
    "inspect the kube-apiserver container logs",
  );
}

/** Runs the phase. */
export async function runWaitControlPlane(data: InitData): Promise<void> {
  if (data.dryRun) await data.reportDryRunFiles?.();
  data.out.info(
    `[wait-control-plane] Waiting for the kubelet to boot up the control plane as static Pods from directory ${
      JSON.stringify(data.manifestDir)
    }`,
  );
  const allComponents = featureEnabled(
    data.cfg.cluster.featureGates,
    Feature.WaitForAllControlPlaneComponents,
  );
  if (data.dryRun) {
    // Upstream's dry-run waiter: one line for the kubelet; the component wait is silent.
    data.out.info(`[dryrun] Would make sure the kubelet returns 'ok' at ${kubeletHealthURL(data)}`);
    if (!allComponents) {
      data.out.info("[dryrun] Would wait for the API Server's /healthz endpoint to return 'ok'");
    }
    return;
  }
  await waitForKubelet(data);
  if (allComponents) await waitForComponents(data);
  else await waitForAPI(data);
}
