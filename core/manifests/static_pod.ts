/**
 * The common shape of kubeadm's static Pods: metadata, priority, host networking, seccomp,
 * resource requests, hostPath volumes and HTTP probes on the named `probe-port`.
 *
 * Values follow upstream `cmd/kubeadm/app/util/staticpod/utils.go` for v1.34: liveness
 * (delay 10s, timeout 15s, 8 failures, every 10s), readiness (timeout 15s, 3 failures, every
 * 1s) and startup (delay 10s, timeout 15s, every 10s, failures = ceil(health-check timeout /
 * 10s)); every container exposes `probe-port` and every probe refers to it by name.
 *
 * @module
 */
import type {
  Container,
  Pod,
  Probe,
  ResourceRequirements,
  Volume,
  VolumeMount,
} from "kubernetes-types/core/v1.d.ts";
import { DefaultTimeouts, PROBE_PORT_NAME } from "../constants.ts";

/** Priority value of the `system-node-critical` class. */
const SYSTEM_NODE_CRITICAL_PRIORITY = 2000001000;
/** Priority class of every kubeadm static Pod. */
const SYSTEM_NODE_CRITICAL = "system-node-critical";
/** Value of the `tier` label. */
const CONTROL_PLANE_TIER = "control-plane";

/** HTTP or HTTPS, as Kubernetes spells the probe scheme. */
export type ProbeScheme = "HTTP" | "HTTPS";

/** Where a probe connects: host ("" = pod IP), path and scheme; the port is `probe-port`. */
export interface ProbeTarget {
  host: string;
  path: string;
  scheme: ProbeScheme;
}

function httpProbe(
  target: ProbeTarget,
  initialDelaySeconds: number,
  timeoutSeconds: number,
  failureThreshold: number,
  periodSeconds: number,
): Probe {
  const probe: Probe = {
    failureThreshold,
    httpGet: {
      ...(target.host !== "" ? { host: target.host } : {}),
      path: target.path,
      port: PROBE_PORT_NAME,
      scheme: target.scheme,
    },
    periodSeconds,
    timeoutSeconds,
  };
  if (initialDelaySeconds !== 0) probe.initialDelaySeconds = initialDelaySeconds;
  return probe;
}

/** Liveness probe: 10s delay, 15s timeout, 8 failures, every 10s. */
export function livenessProbe(target: ProbeTarget): Probe {
  return httpProbe(target, 10, 15, 8, 10);
}

/** Readiness probe: no delay, 15s timeout, 3 failures, every second. */
export function readinessProbe(target: ProbeTarget): Probe {
  return httpProbe(target, 0, 15, 3, 1);
}

/**
 * Startup probe: 10s delay, 15s timeout, every 10s, with enough failures to cover the
 * control-plane health-check timeout (milliseconds; default 4m → 24).
 */
export function startupProbe(
  target: ProbeTarget,
  healthCheckTimeoutMs: number = DefaultTimeouts.controlPlaneComponentHealthCheck,
): Probe {
  const periodSeconds = 10;
  const failureThreshold = Math.ceil(healthCheckTimeoutMs / 1000 / periodSeconds);
  return httpProbe(target, periodSeconds, 15, failureThreshold, periodSeconds);
}

/**
 * The address a probe of a component bound to `addr` should use: unspecified addresses
 * (`0.0.0.0`, `::`) give "" so the kubelet probes the pod IP (upstream `getProbeAddress`).
 */
export function probeAddress(addr: string): string {
  return addr === "0.0.0.0" || addr === "::" ? "" : addr;
}

/** CPU (and optionally memory) requests, no limits. */
export function componentResources(cpu: string, memory?: string): ResourceRequirements {
  return { requests: memory === undefined ? { cpu } : { cpu, memory } };
}

/** One hostPath volume together with its mount in the component's container. */
export interface HostPathMount {
  name: string;
  hostPath: string;
  mountPath: string;
  readOnly: boolean;
  /** hostPath `type`; `""` is written as `type: ""` (as upstream does for user volumes). */
  pathType?: string;
}

/** The Volume of a {@link HostPathMount}. */
function hostPathVolume(m: HostPathMount): Volume {
  return {
    hostPath: {
      path: m.hostPath,
      ...(m.pathType !== undefined ? { type: m.pathType } : {}),
    },
    name: m.name,
  };
}

/** The VolumeMount of a {@link HostPathMount}. */
function hostPathVolumeMount(m: HostPathMount): VolumeMount {
  return {
    mountPath: m.mountPath,
    name: m.name,
    ...(m.readOnly ? { readOnly: true } : {}),
  };
}

function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Mounts keyed by name: a later mount with an existing name replaces it (user `extraVolumes`
 * replace defaults); volumes and mounts come out sorted by name.
 */
export class HostPathMounts {
  readonly #byName = new Map<string, HostPathMount>();

  /** Adds or replaces the mount called `m.name`. */
  add(m: HostPathMount): this {
    this.#byName.set(m.name, { ...m });
    return this;
  }

  /** All mounts sorted by name. */
  sortedMounts(): HostPathMount[] {
    return [...this.#byName.values()].sort(byName);
  }

  /** The Pod volumes, sorted by name. */
  volumes(): Volume[] {
    return this.sortedMounts().map(hostPathVolume);
  }

  /** The container volume mounts, sorted by name. */
  volumeMounts(): VolumeMount[] {
    return this.sortedMounts().map(hostPathVolumeMount);
  }
}

/** What {@link componentPod} assembles into a Pod. */
export interface ComponentPodSpec {
  /** Component name: Pod name, container name and `component` label. */
  name: string;
  image: string;
  command: string[];
  /** Container port the probes use (`probe-port`). */
  probePort: number;
  livenessProbe: Probe;
  readinessProbe?: Probe;
  startupProbe: Probe;
  resources: ResourceRequirements;
  env: Container["env"];
  /** Pod volumes, in the order they are written. */
  volumes: readonly Volume[];
  /** Container volume mounts, in the order they are written. */
  volumeMounts: readonly VolumeMount[];
  annotations?: Record<string, string>;
}

/**
 * A kubeadm static Pod: one container named like the Pod in `kube-system`, host networking,
 * `system-node-critical`, RuntimeDefault seccomp, `probe-port`, and an empty `status`
 * (upstream writes `status: {}`).
 */
export function componentPod(spec: ComponentPodSpec): Pod {
  const container: Container = {
    command: spec.command,
    ...(spec.env && spec.env.length > 0 ? { env: spec.env } : {}),
    image: spec.image,
    imagePullPolicy: "IfNotPresent",
    livenessProbe: spec.livenessProbe,
    name: spec.name,
    ports: [{ containerPort: spec.probePort, name: PROBE_PORT_NAME, protocol: "TCP" }],
    ...(spec.readinessProbe ? { readinessProbe: spec.readinessProbe } : {}),
    resources: spec.resources,
    startupProbe: spec.startupProbe,
    ...(spec.volumeMounts.length > 0 ? { volumeMounts: [...spec.volumeMounts] } : {}),
  };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      ...(spec.annotations && Object.keys(spec.annotations).length > 0
        ? { annotations: { ...spec.annotations } }
        : {}),
      labels: { component: spec.name, tier: CONTROL_PLANE_TIER },
      name: spec.name,
      namespace: "kube-system",
    },
    spec: {
      containers: [container],
      hostNetwork: true,
      priority: SYSTEM_NODE_CRITICAL_PRIORITY,
      priorityClassName: SYSTEM_NODE_CRITICAL,
      securityContext: { seccompProfile: { type: "RuntimeDefault" } },
      ...(spec.volumes.length > 0 ? { volumes: [...spec.volumes] } : {}),
    },
    status: {},
  };
}
