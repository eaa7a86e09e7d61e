/**
 * The health of a control-plane node, as `init` and a control-plane `join` (and later
 * `upgrade`) wait for it: the endpoints of the kubelet and of the control-plane components
 * (taken from the components' static Pod manifests where they set them), and upstream's help
 * screens printed when they do not come up.
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import {
  Component,
  CONTROLLER_MANAGER_PORT,
  KUBELET_HEALTHZ_PORT,
  SCHEDULER_PORT,
} from "../constants.ts";
import type { KubeletConfiguration, ResolvedAPIEndpoint } from "../config/types.ts";
import type { HealthProbe, HealthResult } from "../ports/http.ts";
import type { Clock, Sleep } from "../ports/clock.ts";
import type { FileReader } from "../ports/files.ts";
import type { Printer } from "../ports/printer.ts";
import { utf8 } from "../text/utf8.ts";
import { formatDuration } from "../text/duration.ts";
import { KubeadmError } from "../errors.ts";
import { staticPodManifestPath } from "../manifests/manifest_file.ts";
import { joinHostPort } from "../net/host_port.ts";
import { parseKubeYamlOne } from "../yaml/kube_yaml.ts";

/** One endpoint to wait for. */
export interface HealthTarget {
  /** `kubelet`, `kube-apiserver`, ... */
  name: string;
  url: string;
  /** Skip server certificate verification (the components serve self-signed certificates). */
  insecure: boolean;
}

/** The control-plane components whose health is checked, in upstream's order. */
const COMPONENTS = [Component.apiServer, Component.controllerManager, Component.scheduler];

/** What is printed instead of waiting when the kubelet's health endpoint is off. */
export const KUBELET_HEALTHZ_OFF =
  "[kubelet-check] Skipping the kubelet health check because the healthz port is set to 0";

/**
 * The kubelet's health URL from its configuration (`healthzBindAddress`, `healthzPort`), or
 * `undefined` when the port is 0 (the health endpoint is off).
 */
export function kubeletHealthzURL(kubelet: KubeletConfiguration): string | undefined {
  const port = kubelet.healthzPort === undefined || kubelet.healthzPort === null
    ? KUBELET_HEALTHZ_PORT
    : Number(kubelet.healthzPort);
  if (port === 0) return undefined;
  const address = typeof kubelet.healthzBindAddress === "string" && kubelet.healthzBindAddress
    ? kubelet.healthzBindAddress
    : "127.0.0.1";
  return `http://${joinHostPort(address, port)}/healthz`;
}

/**
 * Reads the control-plane components' static Pods from the manifest directory. `strict`
 * fails on a missing or unparseable manifest; otherwise that component is left out (its
 * endpoint then takes the defaults).
 */
export async function readControlPlanePods(
  files: FileReader,
  manifestDir: string,
  strict: boolean,
): Promise<Partial<Record<string, Pod>>> {
  const pods: Partial<Record<string, Pod>> = {};
  for (const name of COMPONENTS) {
    const path = staticPodManifestPath(manifestDir, name);
    const bytes = await files.read(path);
    if (bytes === undefined) {
      if (strict) throw new KubeadmError(`open ${path}: no such file or directory`);
      continue;
    }
    try {
      pods[name] = parseKubeYamlOne(utf8(bytes), path) as Pod;
    } catch (e) {
      if (strict) throw e;
    }
  }
  return pods;
}

/** `--name=value` flags of a static Pod's first container. */
function podFlags(pod: Pod | undefined): Map<string, string> {
  const flags = new Map<string, string>();
  const c = pod?.spec?.containers?.[0];
  for (const arg of [...(c?.command ?? []), ...(c?.args ?? [])]) {
    const m = /^--([^=]+)=(.*)$/.exec(String(arg));
    if (m) flags.set(m[1], m[2]);
  }
  return flags;
}

/**
 * The health endpoints of the three components: kube-apiserver `/livez` at
 * `--advertise-address` (else this node's advertise address) and `--secure-port` (else its
 * bind port), kube-controller-manager `/healthz` and kube-scheduler `/livez` at
 * `--bind-address` (else 127.0.0.1) and `--secure-port` (else their default ports).
 */
export function controlPlaneHealthTargets(
  pods: Partial<Record<string, Pod>>,
  local: ResolvedAPIEndpoint,
): HealthTarget[] {
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
  return specs.map((s) => {
    const flags = podFlags(pods[s.name]);
    const address = flags.get(s.addressFlag) || s.address;
    const port = flags.get("secure-port") || String(s.port);
    return {
      name: s.name,
      url: `https://${joinHostPort(address, port)}/${s.path}`,
      insecure: true,
    };
  });
}

/** Upstream's help lines when the kubelet is not running or not healthy. */
export function kubeletHelpLines(): string[] {
  return [
    "\t- The kubelet is not running",
    "\t- The kubelet is unhealthy due to a misconfiguration of the node in some way (required cgroups disabled)",
    "",
    "If you are on a systemd-powered system, you can try to troubleshoot the error with the following commands:",
    "\t- 'systemctl status kubelet'",
    "\t- 'journalctl -xeu kubelet'",
    "",
  ];
}

/**
 * Upstream's help lines when a control-plane component does not come up: how to find and
 * read its container with crictl. `lead` is the first sentence.
 */
export function controlPlaneHelpLines(
  criSocket: string,
  lead =
    "A control plane component may have crashed or exited when started by the container runtime.",
): string[] {
  return [
    lead,
    "To troubleshoot, list all containers using your preferred container runtimes CLI.",
    "Here is one example how you may list all running Kubernetes containers by using crictl:",
    `\t- 'crictl --runtime-endpoint ${criSocket} ps -a | grep kube | grep -v pause'`,
    "\tOnce you have found the failing container, you can inspect its logs with:",
    `\t- 'crictl --runtime-endpoint ${criSocket} logs CONTAINERID'`,
    "",
  ];
}

/**
 * Upstream init's troubleshooting text when the control plane does not come up: the error,
 * then the kubelet's and the components' help lines.
 */
export function troubleshootingLines(error: string, criSocket: string): string[] {
  return [
    "",
    "Unfortunately, an error has occurred, likely caused by:",
    ...error.split("\n").map((l) => `\t${l}`),
    "",
    "This error is likely caused by:",
    ...kubeletHelpLines(),
    ...controlPlaneHelpLines(
      criSocket,
      "Additionally, a control plane component may have crashed or exited when started by the container runtime.",
    ),
  ];
}

/**
 * Delay between polls: upstream polls every 500ms (`KubernetesAPICallRetryInterval`), which
 * adds 250ms on average to each of the two waits of every `init` and `join`; a refused
 * connection or an early answer costs the components next to nothing, so 100ms.
 */
const HEALTH_POLL_INTERVAL_MS = 100;
/** How often a progress line names the endpoints still pending. */
const HEALTH_PROGRESS_INTERVAL_MS = 10_000;
/** Upper bound of one probe request. */
const HEALTH_PROBE_TIMEOUT_MS = 10_000;

/** What waiting for health endpoints needs. */
export interface HealthWaitContext {
  health: HealthProbe;
  clock: Clock;
  sleep: Sleep;
  out: Printer;
}

/** How one wait went. */
export interface WaitOutcome {
  /** Targets that never became healthy. */
  pending: HealthTarget[];
  /** Last error per pending target. */
  errors: Map<string, string>;
  /** Total time waited. */
  elapsedMs: number;
}

/** Options of {@link waitForHealthy}. */
interface WaitOptions {
  timeoutMs: number;
  /** Log prefix of the progress lines. */
  prefix: string;
  /** Describes a failed probe for the final error. */
  describe: (t: HealthTarget, failure: HealthResult) => string;
  /** Called once per target when it first answers 200, in completion order. */
  onHealthy: (t: HealthTarget, elapsedMs: number) => void;
  /** Human name of a pending target in progress lines. */
  label?: (t: HealthTarget) => string;
}

/**
 * Polls all pending targets together (every 100ms) until each answered 200 or the timeout
 * passes; every 10s a progress line names the ones still pending. The probe's kept
 * connections are closed when the wait ends.
 */
async function waitForHealthy(
  ctx: HealthWaitContext,
  targets: readonly HealthTarget[],
  o: WaitOptions,
): Promise<WaitOutcome> {
  try {
    return await pollHealthy(ctx, targets, o);
  } finally {
    await ctx.health.close?.();
  }
}

async function pollHealthy(
  ctx: HealthWaitContext,
  targets: readonly HealthTarget[],
  o: WaitOptions,
): Promise<WaitOutcome> {
  const start = ctx.clock.now().getTime();
  const deadline = start + o.timeoutMs;
  const errors = new Map<string, string>();
  let pending = [...targets];
  let nextProgress = start + HEALTH_PROGRESS_INTERVAL_MS;
  for (;;) {
    const remaining = Math.max(1, deadline - ctx.clock.now().getTime());
    const healthy = new Set<HealthTarget>();
    await Promise.all(pending.map(async (t) => {
      let r: HealthResult;
      try {
        r = await ctx.health.get(t.url, {
          insecureSkipTLSVerify: t.insecure,
          timeoutMs: Math.min(HEALTH_PROBE_TIMEOUT_MS, remaining),
        });
      } catch (e) {
        r = { error: e instanceof Error ? e.message : String(e) };
      }
      if ("status" in r && r.status === 200) {
        healthy.add(t);
        errors.delete(t.name);
        o.onHealthy(t, ctx.clock.now().getTime() - start);
      } else {
        errors.set(t.name, o.describe(t, r));
      }
    }));
    pending = pending.filter((t) => !healthy.has(t));
    const now = ctx.clock.now().getTime();
    if (pending.length === 0) return { pending, errors, elapsedMs: now - start };
    if (now + HEALTH_POLL_INTERVAL_MS > deadline) {
      return { pending, errors, elapsedMs: now - start };
    }
    if (now >= nextProgress) {
      const names = pending.map((t) => o.label?.(t) ?? t.name).join(", ");
      const elapsed = formatDuration(Math.floor((now - start) / 1000) * 1000);
      ctx.out.info(`${o.prefix} Still waiting for ${names} (${elapsed} elapsed)`);
      while (nextProgress <= now) nextProgress += HEALTH_PROGRESS_INTERVAL_MS;
    }
    await ctx.sleep(HEALTH_POLL_INTERVAL_MS);
  }
}

/**
 * Waits for the kubelet's health endpoint (upstream `WaitForKubelet`), printing upstream's
 * `[kubelet-check]` lines; the outcome says whether it became healthy in time.
 */
export async function waitForKubelet(
  ctx: HealthWaitContext,
  url: string,
  timeoutMs: number,
): Promise<WaitOutcome> {
  ctx.out.info(
    `[kubelet-check] Waiting for a healthy kubelet at ${url}. This can take up to ${
      formatDuration(timeoutMs)
    }`,
  );
  const outcome = await waitForHealthy(ctx, [{ name: "kubelet", url, insecure: false }], {
    timeoutMs,
    prefix: "[kubelet-check]",
    label: () => "the kubelet",
    describe: (_t, r) =>
      `The HTTP call equal to 'curl -sSL ${url}' returned ${
        "status" in r ? `status code: ${r.status}` : `error: ${r.error}`
      }`,
    onHealthy: (_t, ms) =>
      ctx.out.info(`[kubelet-check] The kubelet is healthy after ${formatDuration(ms)}`),
  });
  if (outcome.pending.length > 0) {
    ctx.out.info(
      `[kubelet-check] The kubelet is not healthy after ${formatDuration(outcome.elapsedMs)}`,
    );
  }
  return outcome;
}

/** Describes a failed component probe: `<name> check failed at <url>[ with status: N|: error]`. */
function describeComponentFailure(t: HealthTarget, r: HealthResult): string {
  return "status" in r
    ? `${t.name} check failed at ${t.url} with status: ${r.status}`
    : `${t.name} check failed at ${t.url}: ${r.error}`;
}

/**
 * Waits for the control-plane components (upstream `WaitForControlPlaneComponents`), printing
 * upstream's `[control-plane-check]` lines.
 */
export async function waitForControlPlaneComponents(
  ctx: HealthWaitContext,
  targets: readonly HealthTarget[],
  timeoutMs: number,
): Promise<WaitOutcome> {
  ctx.out.info(
    `[control-plane-check] Waiting for healthy control plane components. This can take up to ${
      formatDuration(timeoutMs)
    }`,
  );
  for (const t of targets) ctx.out.info(`[control-plane-check] Checking ${t.name} at ${t.url}`);
  const outcome = await waitForHealthy(ctx, targets, {
    timeoutMs,
    prefix: "[control-plane-check]",
    describe: describeComponentFailure,
    onHealthy: (t, ms) =>
      ctx.out.info(`[control-plane-check] ${t.name} is healthy after ${formatDuration(ms)}`),
  });
  for (const t of outcome.pending) {
    ctx.out.info(
      `[control-plane-check] ${t.name} is not healthy after ${formatDuration(outcome.elapsedMs)}`,
    );
  }
  return outcome;
}
