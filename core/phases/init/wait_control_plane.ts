/**
 * `kubeadm init phase wait-control-plane`: waits for the kubelet's health endpoint, then for
 * every control-plane component (upstream `WaitForKubelet` and `WaitForControlPlaneComponents`;
 * the `WaitForAllControlPlaneComponents` gate and its API-server-only wait are gone in v1.37).
 *
 * Endpoints: the kubelet at `http://<healthzBindAddress>:<healthzPort>/healthz` from the
 * KubeletConfiguration; kube-apiserver `/livez`, kube-controller-manager `/healthz` and
 * kube-scheduler `/livez` at the address and port their static Pod manifests pass
 * (`--advertise-address` / `--bind-address`, `--secure-port`), checked without verifying
 * their self-signed serving certificates, as upstream does. All pending endpoints are polled
 * every 100ms (upstream: 500ms); every 10s a progress line names the ones still pending, and a
 * timeout fails naming each component that never became healthy with its last error.
 *
 * In dry-run the planned files are reported first (upstream prints them here) and nothing is
 * waited for: only upstream's `[dryrun] Would make sure the kubelet returns 'ok' ...` line.
 *
 * @module
 */
import { formatDuration, parseDuration } from "../../text/duration.ts";
import {
  controlPlaneHealthTargets,
  type HealthTarget,
  type HealthWaitContext,
  KUBELET_HEALTHZ_OFF,
  kubeletHealthzURL,
  readControlPlanePods,
  troubleshootingLines,
  waitForControlPlaneComponents,
  waitForKubelet,
} from "../../controlplane/health.ts";
import { KubeadmError } from "../../errors.ts";
import type { InitData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** The three control-plane health endpoints, from the manifests where they set them. */
async function healthTargets(data: InitData): Promise<HealthTarget[]> {
  const pods = await readControlPlanePods(data.files, data.manifestDir, false);
  return controlPlaneHealthTargets(pods, data.cfg.init.localAPIEndpoint);
}

function waitContext(data: InitData): HealthWaitContext {
  const health = data.node?.health;
  if (!health) {
    throw new KubeadmError("wait-control-plane needs a health probe, but none is configured", {
      hint: "run it through the kubeadm command line",
    });
  }
  return { health, clock: data.clock, sleep: data.sleep, out: data.out };
}

function fail(data: InitData, details: string[], message: string, hint: string): never {
  const text = details.length === 1 ? details[0] : `[${details.join(", ")}]`;
  for (const line of troubleshootingLines(text, data.cfg.init.nodeRegistration.criSocket)) {
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
async function waitForKubeletHealthy(data: InitData): Promise<void> {
  const url = kubeletHealthzURL(data.cfg.kubelet);
  if (url === undefined) {
    data.out.info(KUBELET_HEALTHZ_OFF);
    return;
  }
  const timeoutMs = timeoutOf(data.cfg.init.timeouts.kubeletHealthCheck, 4 * 60_000);
  const outcome = await waitForKubelet(waitContext(data), url, timeoutMs);
  if (outcome.pending.length === 0) return;
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
  const targets = await healthTargets(data);
  const outcome = await waitForControlPlaneComponents(waitContext(data), targets, timeoutMs);
  if (outcome.pending.length === 0) return;
  const names = outcome.pending.map((t) => t.name);
  fail(
    data,
    outcome.pending.map((t) => outcome.errors.get(t.name) ?? `${t.name} did not answer`),
    `control plane component${names.length > 1 ? "s" : ""} ${names.join(", ")} did not become ` +
      `healthy within ${formatDuration(timeoutMs)}`,
    "inspect the failing component's container logs",
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
  if (data.dryRun) {
    // Upstream's dry-run waiter: one line for the kubelet; the component wait is silent.
    const url = kubeletHealthzURL(data.cfg.kubelet);
    data.out.info(
      url === undefined
        ? KUBELET_HEALTHZ_OFF
        : `[dryrun] Would make sure the kubelet returns 'ok' at ${url}`,
    );
    return;
  }
  await waitForKubeletHealthy(data);
  await waitForComponents(data);
}

/** `init phase wait-control-plane`. */
export const waitControlPlanePhase: Phase<InitData> = {
  name: "wait-control-plane",
  short: "Wait for the control plane to start",
  run: runWaitControlPlane,
};
