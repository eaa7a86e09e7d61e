/**
 * The kube-controller-manager static Pod (upstream `getControllerManagerCommand`, v1.37).
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import type { Arg } from "../config/types.ts";
import {
  Component,
  CONTROLLER_MANAGER_PORT,
  KubeconfigFile,
  KUBERNETES_DIR,
} from "../constants.ts";
import { argumentsToCommand, getArgValue, setArgValue } from "./arguments.ts";
import { mergeEnvVars, proxyEnvVars } from "./env.ts";
import { kubernetesImage } from "./images.ts";
import { healthCheckTimeoutMs, type ManifestInput } from "./manifest_input.ts";
import {
  componentPod,
  componentResources,
  livenessProbe,
  probeAddress,
  type ProbeTarget,
  startupProbe,
} from "./static_pod.ts";
import { controlPlaneMounts } from "./volumes.ts";

/** The kube-controller-manager command: binary name followed by the merged, sorted flags. */
export function controllerManagerCommand(input: ManifestInput): string[] {
  const { cluster } = input;
  const { certificatesDir } = cluster;
  const kubeconfig = `${KUBERNETES_DIR}/${KubeconfigFile.controllerManager}`;
  const ca = `${certificatesDir}/ca.crt`;
  let args: Arg[] = [
    { name: "bind-address", value: "127.0.0.1" },
    { name: "leader-elect", value: "true" },
    { name: "kubeconfig", value: kubeconfig },
    { name: "authentication-kubeconfig", value: kubeconfig },
    { name: "authorization-kubeconfig", value: kubeconfig },
    { name: "client-ca-file", value: ca },
    { name: "requestheader-client-ca-file", value: `${certificatesDir}/front-proxy-ca.crt` },
    { name: "root-ca-file", value: ca },
    { name: "service-account-private-key-file", value: `${certificatesDir}/sa.key` },
    { name: "cluster-signing-cert-file", value: ca },
    { name: "cluster-signing-key-file", value: `${certificatesDir}/ca.key` },
    { name: "use-service-account-credentials", value: "true" },
    { name: "controllers", value: "*,bootstrapsigner,tokencleaner" },
  ];
  // Without ca.key the csrsigning controller must not start: pass empty signing files.
  if (input.externalCA) {
    args = setArgValue(args, "cluster-signing-key-file", "");
    args = setArgValue(args, "cluster-signing-cert-file", "");
  }
  const podSubnet = cluster.networking.podSubnet ?? "";
  if (podSubnet !== "") {
    args = setArgValue(args, "allocate-node-cidrs", "true");
    args = setArgValue(args, "cluster-cidr", podSubnet);
    if (cluster.networking.serviceSubnet) {
      args = setArgValue(args, "service-cluster-ip-range", cluster.networking.serviceSubnet);
    }
  }
  if (cluster.clusterName) args = setArgValue(args, "cluster-name", cluster.clusterName);
  return [
    Component.controllerManager,
    ...argumentsToCommand(args, cluster.controllerManager?.extraArgs),
  ];
}

/** The kube-controller-manager static Pod. */
export function controllerManagerPod(input: ManifestInput): Pod {
  const { cluster } = input;
  const bindAddress = getArgValue(cluster.controllerManager?.extraArgs, "bind-address");
  const host = bindAddress === undefined ? "127.0.0.1" : probeAddress(bindAddress);
  const probe: ProbeTarget = { host, path: "/healthz", scheme: "HTTPS" };
  const mounts = controlPlaneMounts(
    Component.controllerManager,
    cluster,
    input.existingDirs ?? new Set(),
  );
  return componentPod({
    name: Component.controllerManager,
    image: kubernetesImage(Component.controllerManager, cluster),
    command: controllerManagerCommand(input),
    probePort: CONTROLLER_MANAGER_PORT,
    livenessProbe: livenessProbe(probe),
    startupProbe: startupProbe(probe, healthCheckTimeoutMs(input)),
    resources: componentResources("200m"),
    env: mergeEnvVars(proxyEnvVars(input.proxyEnv ?? {}), cluster.controllerManager?.extraEnvs),
    volumes: mounts.volumes(),
    volumeMounts: mounts.volumeMounts(),
  });
}
