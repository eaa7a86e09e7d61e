/**
 * The kube-scheduler static Pod (upstream `getSchedulerCommand`, v1.34: `/livez` liveness and
 * startup probes, `/readyz` readiness probe).
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import type { Arg } from "../config/types.ts";
import { Component, KubeconfigFile, KUBERNETES_DIR, SCHEDULER_PORT } from "../constants.ts";
import { argumentsToCommand, getArgValue } from "./arguments.ts";
import { mergeEnvVars, proxyEnvVars } from "./env.ts";
import { kubernetesImage } from "./images.ts";
import { healthCheckTimeoutMs, type ManifestInput } from "./manifest_input.ts";
import {
  componentPod,
  componentResources,
  livenessProbe,
  probeAddress,
  type ProbeTarget,
  readinessProbe,
  startupProbe,
} from "./static_pod.ts";
import { controlPlaneMounts } from "./volumes.ts";

/** The kube-scheduler command: binary name followed by the merged, sorted flags. */
export function schedulerCommand(input: ManifestInput): string[] {
  const kubeconfig = `${KUBERNETES_DIR}/${KubeconfigFile.scheduler}`;
  const args: Arg[] = [
    { name: "bind-address", value: "127.0.0.1" },
    { name: "leader-elect", value: "true" },
    { name: "kubeconfig", value: kubeconfig },
    { name: "authentication-kubeconfig", value: kubeconfig },
    { name: "authorization-kubeconfig", value: kubeconfig },
  ];
  return [Component.scheduler, ...argumentsToCommand(args, input.cluster.scheduler?.extraArgs)];
}

/** The kube-scheduler static Pod. */
export function schedulerPod(input: ManifestInput): Pod {
  const { cluster } = input;
  const bindAddress = getArgValue(cluster.scheduler?.extraArgs, "bind-address");
  const host = bindAddress === undefined ? "127.0.0.1" : probeAddress(bindAddress);
  const probe = (path: string): ProbeTarget => ({ host, path, scheme: "HTTPS" });
  const mounts = controlPlaneMounts(Component.scheduler, cluster, input.existingDirs ?? new Set());
  return componentPod({
    name: Component.scheduler,
    image: kubernetesImage(Component.scheduler, cluster),
    command: schedulerCommand(input),
    probePort: SCHEDULER_PORT,
    livenessProbe: livenessProbe(probe("/livez")),
    readinessProbe: readinessProbe(probe("/readyz")),
    startupProbe: startupProbe(probe("/livez"), healthCheckTimeoutMs(input)),
    resources: componentResources("100m"),
    env: mergeEnvVars(proxyEnvVars(input.proxyEnv ?? {}), cluster.scheduler?.extraEnvs),
    volumes: mounts.volumes(),
    volumeMounts: mounts.volumeMounts(),
  });
}
