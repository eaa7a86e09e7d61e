/**
 * Conversion of `kubeadm.k8s.io/v1beta3` documents to `kubeadm.k8s.io/v1beta4`.
 *
 * The differences (upstream `v1beta3/conversion.go` and the migrate mutators): `extraArgs`
 * and `kubeletExtraArgs` maps become `{name, value}` lists sorted by name then value;
 * `apiServer.timeoutForControlPlane` moves to the InitConfiguration's
 * `timeouts.controlPlaneComponentHealthCheck`; `discovery.timeout` moves to the
 * JoinConfiguration's `timeouts.discovery`. Fields new in v1beta4 are left for defaulting.
 *
 * @module
 */
import type { Arg } from "./types.ts";
import { KUBEADM_API_VERSION } from "./types.ts";

type Doc = Record<string, unknown>;

/** `{flag: value}` → `[{name, value}]`, sorted by name then value. */
export function argsFromMap(map: Record<string, unknown>): Arg[] {
  return Object.entries(map)
    .map(([name, value]) => ({ name, value: value === null ? "" : String(value) }))
    .sort((a, b) =>
      a.name < b.name
        ? -1
        : a.name > b.name
        ? 1
        : a.value < b.value
        ? -1
        : a.value > b.value
        ? 1
        : 0
    );
}

function isObject(v: unknown): v is Doc {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function convertArgsAt(parent: unknown, key: string): void {
  if (!isObject(parent)) return;
  const v = parent[key];
  if (isObject(v)) parent[key] = argsFromMap(v);
}

/** Result of converting a v1beta3 ClusterConfiguration. */
export interface ConvertedCluster {
  cluster: Doc;
  /** The removed `apiServer.timeoutForControlPlane`, if it was set. */
  timeoutForControlPlane?: string;
}

/** Converts a v1beta3 ClusterConfiguration to v1beta4 (input not modified). */
export function convertClusterConfiguration(doc: Doc): ConvertedCluster {
  const cluster = structuredClone(doc);
  cluster.apiVersion = KUBEADM_API_VERSION;
  let timeoutForControlPlane: string | undefined;
  for (const component of ["apiServer", "controllerManager", "scheduler"]) {
    convertArgsAt(cluster[component], "extraArgs");
  }
  if (isObject(cluster.etcd)) convertArgsAt(cluster.etcd.local, "extraArgs");
  if (isObject(cluster.apiServer) && "timeoutForControlPlane" in cluster.apiServer) {
    const t = cluster.apiServer.timeoutForControlPlane;
    if (typeof t === "string") timeoutForControlPlane = t;
    delete cluster.apiServer.timeoutForControlPlane;
  }
  return { cluster, timeoutForControlPlane };
}

/**
 * Converts a v1beta3 InitConfiguration to v1beta4 (input not modified). Pass the removed
 * `timeoutForControlPlane` of the ClusterConfiguration to carry it over.
 */
export function convertInitConfiguration(doc: Doc, timeoutForControlPlane?: string): Doc {
  const init = structuredClone(doc);
  init.apiVersion = KUBEADM_API_VERSION;
  convertArgsAt(init.nodeRegistration, "kubeletExtraArgs");
  if (timeoutForControlPlane !== undefined) {
    const timeouts = isObject(init.timeouts) ? init.timeouts : {};
    timeouts.controlPlaneComponentHealthCheck = timeoutForControlPlane;
    init.timeouts = timeouts;
  }
  return init;
}

/** Converts a v1beta3 JoinConfiguration to v1beta4 (input not modified). */
export function convertJoinConfiguration(doc: Doc): Doc {
  const join = structuredClone(doc);
  join.apiVersion = KUBEADM_API_VERSION;
  convertArgsAt(join.nodeRegistration, "kubeletExtraArgs");
  if (isObject(join.discovery) && "timeout" in join.discovery) {
    const t = join.discovery.timeout;
    delete join.discovery.timeout;
    if (typeof t === "string") {
      const timeouts = isObject(join.timeouts) ? join.timeouts : {};
      timeouts.discovery = t;
      join.timeouts = timeouts;
    }
  }
  return join;
}
