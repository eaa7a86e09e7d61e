/**
 * The local etcd static Pod (upstream `phases/etcd/local.go`, v1.37).
 *
 * Every etcd gets `--feature-gates=InitialCorruptCheck=true` and
 * `--watch-progress-notify-interval=5s` (kubeadm v1.37 dropped the `experimental-` flags it
 * passed to etcd older than 3.6, whatever `etcd.local.imageTag` says).
 * Probes go to the first `listen-metrics-urls` URL (default `http://127.0.0.1:2381`).
 *
 * @module
 */
import type { Pod, Volume, VolumeMount } from "kubernetes-types/core/v1.d.ts";
import type { Arg } from "../config/types.ts";
import {
  Component,
  DEFAULT_ETCD_DATA_DIR,
  ETCD_CLIENT_PORT,
  ETCD_ENDPOINT_ANNOTATION,
  ETCD_METRICS_PORT,
  ETCD_PEER_PORT,
} from "../constants.ts";
import { isIPv6 } from "../net/ip.ts";
import { joinHostPort, parsePort } from "../net/host_port.ts";
import { argumentsToCommand, getArgValue, setArgValue } from "./arguments.ts";
import { mergeEnvVars } from "./env.ts";
import { etcdImage } from "./images.ts";
import { healthCheckTimeoutMs, type ManifestInput } from "./manifest_input.ts";
import {
  componentPod,
  componentResources,
  livenessProbe,
  type ProbeScheme,
  type ProbeTarget,
  readinessProbe,
  startupProbe,
} from "./static_pod.ts";

/** An existing etcd member (name and peer URL), for a joining member's `initial-cluster`. */
export interface InitialClusterMember {
  name: string;
  peerURL: string;
}

/** `https://<advertiseAddress>:2379`. */
export function etcdClientURL(advertiseAddress: string): string {
  return `https://${joinHostPort(advertiseAddress, ETCD_CLIENT_PORT)}`;
}

/** `https://<advertiseAddress>:2380`. */
export function etcdPeerURL(advertiseAddress: string): string {
  return `https://${joinHostPort(advertiseAddress, ETCD_PEER_PORT)}`;
}

/** Host, port and scheme the etcd probes use (upstream `GetEtcdProbeEndpoint`). */
export function etcdProbeEndpoint(
  extraArgs: readonly Arg[] | undefined,
  ipv6: boolean,
): { host: string; port: number; scheme: ProbeScheme } {
  const localhost = ipv6 ? "::1" : "127.0.0.1";
  const fallback = { host: localhost, port: ETCD_METRICS_PORT, scheme: "HTTP" as ProbeScheme };
  const urls = getArgValue(extraArgs, "listen-metrics-urls");
  if (urls === undefined) return fallback;
  const first = urls.split(",")[0];
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(\/\/([^/?#]*))?/.exec(first);
  if (!m) return fallback;
  const scheme: ProbeScheme = m[1] === "https" ? "HTTPS" : "HTTP";
  let authority = m[3] ?? "";
  authority = authority.slice(authority.lastIndexOf("@") + 1);
  let host = authority;
  let portText = "";
  const colon = authority.lastIndexOf(":");
  if (colon >= 0 && /^:\d*$/.test(authority.slice(colon))) {
    host = authority.slice(0, colon);
    portText = authority.slice(colon + 1);
  }
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  let port = ETCD_METRICS_PORT;
  if (portText !== "") {
    try {
      port = parsePort(portText);
    } catch {
      // keep the default port, as upstream does
    }
  }
  return { host: host === "" ? localhost : host, port, scheme };
}

/**
 * The etcd command: `etcd` followed by the merged, sorted flags. `initialCluster` lists the
 * existing members when joining; empty for `init`.
 */
export function etcdCommand(
  input: ManifestInput,
  initialCluster: readonly InitialClusterMember[] = [],
): string[] {
  const { cluster, localAPIEndpoint, nodeName } = input;
  const { certificatesDir } = cluster;
  const advertise = localAPIEndpoint.advertiseAddress;
  const localhost = isIPv6(advertise) ? "::1" : "127.0.0.1";
  const dataDir = cluster.etcd?.local?.dataDir || DEFAULT_ETCD_DATA_DIR;
  let args: Arg[] = [
    { name: "name", value: nodeName },
    {
      name: "listen-client-urls",
      value: `${etcdClientURL(localhost)},${etcdClientURL(advertise)}`,
    },
    { name: "advertise-client-urls", value: etcdClientURL(advertise) },
    { name: "listen-peer-urls", value: etcdPeerURL(advertise) },
    { name: "initial-advertise-peer-urls", value: etcdPeerURL(advertise) },
    { name: "data-dir", value: dataDir },
    { name: "cert-file", value: `${certificatesDir}/etcd/server.crt` },
    { name: "key-file", value: `${certificatesDir}/etcd/server.key` },
    { name: "trusted-ca-file", value: `${certificatesDir}/etcd/ca.crt` },
    { name: "client-cert-auth", value: "true" },
    { name: "peer-cert-file", value: `${certificatesDir}/etcd/peer.crt` },
    { name: "peer-key-file", value: `${certificatesDir}/etcd/peer.key` },
    { name: "peer-trusted-ca-file", value: `${certificatesDir}/etcd/ca.crt` },
    { name: "peer-client-cert-auth", value: "true" },
    { name: "snapshot-count", value: "10000" },
    {
      name: "listen-metrics-urls",
      value: `http://${joinHostPort(localhost, ETCD_METRICS_PORT)}`,
    },
  ];
  args.push(
    { name: "feature-gates", value: "InitialCorruptCheck=true" },
    { name: "watch-progress-notify-interval", value: "5s" },
  );
  if (initialCluster.length === 0) {
    args = setArgValue(args, "initial-cluster", `${nodeName}=${etcdPeerURL(advertise)}`);
  } else {
    args = setArgValue(
      args,
      "initial-cluster",
      initialCluster.map((m) => `${m.name}=${m.peerURL}`).join(","),
    );
    args = setArgValue(args, "initial-cluster-state", "existing");
  }
  return [Component.etcd, ...argumentsToCommand(args, cluster.etcd?.local?.extraArgs)];
}

/** Name of the etcd data volume. */
const ETCD_DATA_VOLUME = "etcd-data";
/** Name of the etcd certificates volume. */
const ETCD_CERTS_VOLUME = "etcd-certs";

/** The local etcd static Pod. */
export function etcdPod(
  input: ManifestInput,
  initialCluster: readonly InitialClusterMember[] = [],
): Pod {
  const { cluster, localAPIEndpoint } = input;
  const dataDir = cluster.etcd?.local?.dataDir || DEFAULT_ETCD_DATA_DIR;
  const etcdCertificatesDir = `${cluster.certificatesDir}/etcd`;
  const endpoint = etcdProbeEndpoint(
    cluster.etcd?.local?.extraArgs,
    isIPv6(localAPIEndpoint.advertiseAddress),
  );
  const probe = (path: string): ProbeTarget => ({
    host: endpoint.host,
    path,
    scheme: endpoint.scheme,
  });
  // Volumes come out sorted by name (a map upstream); the mounts keep their fixed order.
  const volumes: Volume[] = [
    {
      hostPath: { path: etcdCertificatesDir, type: "DirectoryOrCreate" },
      name: ETCD_CERTS_VOLUME,
    },
    { hostPath: { path: dataDir, type: "DirectoryOrCreate" }, name: ETCD_DATA_VOLUME },
  ];
  const volumeMounts: VolumeMount[] = [
    { mountPath: dataDir, name: ETCD_DATA_VOLUME },
    { mountPath: etcdCertificatesDir, name: ETCD_CERTS_VOLUME },
  ];
  return componentPod({
    name: Component.etcd,
    image: etcdImage(cluster, input.log),
    command: etcdCommand(input, initialCluster),
    probePort: endpoint.port,
    livenessProbe: livenessProbe(probe("/livez")),
    readinessProbe: readinessProbe(probe("/readyz")),
    startupProbe: startupProbe(probe("/readyz"), healthCheckTimeoutMs(input)),
    resources: componentResources("100m", "100Mi"),
    env: mergeEnvVars(cluster.etcd?.local?.extraEnvs),
    volumes,
    volumeMounts,
    annotations: { [ETCD_ENDPOINT_ANNOTATION]: etcdClientURL(localAPIEndpoint.advertiseAddress) },
  });
}
