/**
 * The kube-apiserver static Pod (upstream `getAPIServerCommand` and its Pod spec, v1.34).
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import type { Arg } from "../config/types.ts";
import { API_SERVER_ENDPOINT_ANNOTATION, Component, ETCD_CLIENT_PORT } from "../constants.ts";
import { isIPv6 } from "../net/ip.ts";
import { joinHostPort } from "../net/host_port.ts";
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
  readinessProbe,
  startupProbe,
} from "./static_pod.ts";
import { controlPlaneMounts } from "./volumes.ts";

/** kube-apiserver `authorization-mode` values kubeadm accepts. */
const AUTHORIZATION_MODES: readonly string[] = [
  "Node",
  "RBAC",
  "Webhook",
  "ABAC",
  "AlwaysAllow",
  "AlwaysDeny",
];

/** The default `authorization-mode`. */
const DEFAULT_AUTHORIZATION_MODE = "Node,RBAC";

/**
 * kubeadm's choice of `authorization-mode` from the user's value: unknown modes are dropped
 * (with a warning), empty items skipped (v1.37), a list that differs from `Node,RBAC` is warned
 * about, and an empty result falls back to `Node,RBAC` (upstream `getAuthzModes`).
 */
export function authorizationModes(
  requested: string | undefined,
  warn: (message: string) => void = () => {},
): string {
  if (requested) {
    const modes: string[] = [];
    for (const mode of requested.split(",")) {
      if (mode === "") continue;
      if (AUTHORIZATION_MODES.includes(mode)) modes.push(mode);
      else warn(`ignoring unknown kube-apiserver authorization-mode ${JSON.stringify(mode)}`);
    }
    if (modes.length > 0) {
      const chosen = modes.join(",");
      if (chosen !== DEFAULT_AUTHORIZATION_MODE) {
        warn(
          `the default kube-apiserver authorization-mode is ${
            JSON.stringify(DEFAULT_AUTHORIZATION_MODE)
          }; using ${JSON.stringify(chosen)}`,
        );
      }
      return chosen;
    }
  }
  return DEFAULT_AUTHORIZATION_MODE;
}

/** The kube-apiserver command: `kube-apiserver` followed by the merged, sorted flags. */
export function apiServerCommand(input: ManifestInput): string[] {
  const { cluster, localAPIEndpoint } = input;
  const { certificatesDir } = cluster;
  let args: Arg[] = [
    { name: "advertise-address", value: localAPIEndpoint.advertiseAddress },
    { name: "enable-admission-plugins", value: "NodeRestriction" },
    { name: "service-cluster-ip-range", value: cluster.networking.serviceSubnet },
    { name: "service-account-key-file", value: `${certificatesDir}/sa.pub` },
    { name: "service-account-signing-key-file", value: `${certificatesDir}/sa.key` },
    {
      name: "service-account-issuer",
      value: `https://kubernetes.default.svc.${cluster.networking.dnsDomain}`,
    },
    { name: "client-ca-file", value: `${certificatesDir}/ca.crt` },
    { name: "tls-cert-file", value: `${certificatesDir}/apiserver.crt` },
    { name: "tls-private-key-file", value: `${certificatesDir}/apiserver.key` },
    {
      name: "kubelet-client-certificate",
      value: `${certificatesDir}/apiserver-kubelet-client.crt`,
    },
    { name: "kubelet-client-key", value: `${certificatesDir}/apiserver-kubelet-client.key` },
    { name: "enable-bootstrap-token-auth", value: "true" },
    { name: "secure-port", value: String(localAPIEndpoint.bindPort) },
    { name: "allow-privileged", value: "true" },
    { name: "kubelet-preferred-address-types", value: "InternalIP,ExternalIP,Hostname" },
    { name: "requestheader-username-headers", value: "X-Remote-User" },
    { name: "requestheader-group-headers", value: "X-Remote-Group" },
    { name: "requestheader-extra-headers-prefix", value: "X-Remote-Extra-" },
    { name: "requestheader-client-ca-file", value: `${certificatesDir}/front-proxy-ca.crt` },
    { name: "requestheader-allowed-names", value: "front-proxy-client" },
    { name: "proxy-client-cert-file", value: `${certificatesDir}/front-proxy-client.crt` },
    { name: "proxy-client-key-file", value: `${certificatesDir}/front-proxy-client.key` },
  ];

  const external = cluster.etcd?.external;
  if (external) {
    args = setArgValue(args, "etcd-servers", external.endpoints.join(","));
    if (external.caFile) args = setArgValue(args, "etcd-cafile", external.caFile);
    if (external.certFile && external.keyFile) {
      args = setArgValue(args, "etcd-certfile", external.certFile);
      args = setArgValue(args, "etcd-keyfile", external.keyFile);
    }
  } else {
    const localhost = isIPv6(localAPIEndpoint.advertiseAddress) ? "::1" : "127.0.0.1";
    args = setArgValue(
      args,
      "etcd-servers",
      `https://${joinHostPort(localhost, ETCD_CLIENT_PORT)}`,
    );
    args = setArgValue(args, "etcd-cafile", `${certificatesDir}/etcd/ca.crt`);
    args = setArgValue(args, "etcd-certfile", `${certificatesDir}/apiserver-etcd-client.crt`);
    args = setArgValue(args, "etcd-keyfile", `${certificatesDir}/apiserver-etcd-client.key`);
    const advertised = getArgValue(cluster.etcd?.local?.extraArgs, "advertise-client-urls");
    if (advertised !== undefined) args = setArgValue(args, "etcd-servers", advertised);
  }

  const extraArgs = cluster.apiServer?.extraArgs ?? [];
  if (getArgValue(extraArgs, "authorization-config") === undefined) {
    args = setArgValue(
      args,
      "authorization-mode",
      authorizationModes(getArgValue(extraArgs, "authorization-mode"), input.warn),
    );
  }
  return [Component.apiServer, ...argumentsToCommand(args, extraArgs)];
}

/** The kube-apiserver static Pod. */
export function apiServerPod(input: ManifestInput): Pod {
  const { cluster, localAPIEndpoint } = input;
  const host = localAPIEndpoint.advertiseAddress !== ""
    ? probeAddress(localAPIEndpoint.advertiseAddress)
    : "127.0.0.1";
  const probe = (path: string): ProbeTarget => ({ host, path, scheme: "HTTPS" });
  const mounts = controlPlaneMounts(Component.apiServer, cluster, input.existingDirs ?? new Set());
  return componentPod({
    name: Component.apiServer,
    image: kubernetesImage(Component.apiServer, cluster),
    command: apiServerCommand(input),
    probePort: localAPIEndpoint.bindPort,
    livenessProbe: livenessProbe(probe("/livez")),
    readinessProbe: readinessProbe(probe("/readyz")),
    startupProbe: startupProbe(probe("/livez"), healthCheckTimeoutMs(input)),
    resources: componentResources("250m"),
    env: mergeEnvVars(proxyEnvVars(input.proxyEnv ?? {}), cluster.apiServer?.extraEnvs),
    volumes: mounts.volumes(),
    volumeMounts: mounts.volumeMounts(),
    annotations: {
      [API_SERVER_ENDPOINT_ANNOTATION]: joinHostPort(
        localAPIEndpoint.advertiseAddress,
        localAPIEndpoint.bindPort,
      ),
    },
  });
}
