/**
 * The API resources kubeadm touches: kind → API group/version, plural and scope, and the REST
 * paths built from them (`/api/v1/namespaces/kube-system/configmaps/kubeadm-config`).
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";

/** One API resource. */
export interface ResourceInfo {
  /** Object kind, e.g. `ConfigMap`. */
  kind: string;
  /** `v1` for the core group, otherwise `group/version`. */
  apiVersion: string;
  /** Lowercase plural used in paths, e.g. `configmaps`. */
  plural: string;
  /** Whether objects live in a namespace. */
  namespaced: boolean;
}

const RBAC = "rbac.authorization.k8s.io/v1";

/** Every resource the client knows, in no particular order. */
export const RESOURCES: readonly ResourceInfo[] = [
  { kind: "ConfigMap", apiVersion: "v1", plural: "configmaps", namespaced: true },
  { kind: "Secret", apiVersion: "v1", plural: "secrets", namespaced: true },
  { kind: "ServiceAccount", apiVersion: "v1", plural: "serviceaccounts", namespaced: true },
  { kind: "Service", apiVersion: "v1", plural: "services", namespaced: true },
  { kind: "Pod", apiVersion: "v1", plural: "pods", namespaced: true },
  { kind: "Node", apiVersion: "v1", plural: "nodes", namespaced: false },
  { kind: "Namespace", apiVersion: "v1", plural: "namespaces", namespaced: false },
  { kind: "Role", apiVersion: RBAC, plural: "roles", namespaced: true },
  { kind: "RoleBinding", apiVersion: RBAC, plural: "rolebindings", namespaced: true },
  { kind: "ClusterRole", apiVersion: RBAC, plural: "clusterroles", namespaced: false },
  {
    kind: "ClusterRoleBinding",
    apiVersion: RBAC,
    plural: "clusterrolebindings",
    namespaced: false,
  },
  { kind: "Deployment", apiVersion: "apps/v1", plural: "deployments", namespaced: true },
  { kind: "DaemonSet", apiVersion: "apps/v1", plural: "daemonsets", namespaced: true },
  { kind: "Job", apiVersion: "batch/v1", plural: "jobs", namespaced: true },
  { kind: "Lease", apiVersion: "coordination.k8s.io/v1", plural: "leases", namespaced: true },
  {
    kind: "CertificateSigningRequest",
    apiVersion: "certificates.k8s.io/v1",
    plural: "certificatesigningrequests",
    namespaced: false,
  },
];

/** Looks up a resource by kind (and, when given, API version). */
export function resourceFor(kind: string, apiVersion?: string): ResourceInfo {
  const info = RESOURCES.find((r) =>
    r.kind === kind && (apiVersion === undefined || r.apiVersion === apiVersion)
  );
  if (!info) {
    throw new KubeadmError(
      `unsupported API resource ${apiVersion ? `${apiVersion} ` : ""}${kind}`,
      { hint: "add the resource to core/kube/resources.ts" },
    );
  }
  return info;
}

function groupPrefix(apiVersion: string): string {
  return apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/**
 * The REST path of a collection (`name` omitted) or of one object. Namespaced resources need a
 * namespace; for cluster-scoped ones it is ignored.
 */
export function resourcePath(info: ResourceInfo, namespace?: string, name?: string): string {
  let path = groupPrefix(info.apiVersion);
  if (info.namespaced) {
    if (!namespace) {
      throw new KubeadmError(`a namespace is required for ${info.kind} objects`);
    }
    path += `/namespaces/${encodeURIComponent(namespace)}`;
  }
  path += `/${info.plural}`;
  if (name !== undefined) {
    if (name === "") throw new KubeadmError(`an object name is required for ${info.kind}`);
    path += `/${encodeURIComponent(name)}`;
  }
  return path;
}

/** A REST path taken apart. */
export interface ParsedResourcePath {
  info: ResourceInfo;
  namespace?: string;
  /** Absent for collection paths. */
  name?: string;
  /** e.g. `status` or `approval`. */
  subresource?: string;
}

/** Parses a REST path built by {@link resourcePath}; `undefined` for unknown resources. */
export function parseResourcePath(path: string): ParsedResourcePath | undefined {
  const parts = path.split("?")[0].split("/").filter((p) => p !== "").map(decodeURIComponent);
  let apiVersion: string;
  let rest: string[];
  if (parts[0] === "api" && parts.length >= 2) {
    apiVersion = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 3) {
    apiVersion = `${parts[1]}/${parts[2]}`;
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const info = RESOURCES.find((r) => r.apiVersion === apiVersion && r.plural === rest[0]);
  if (!info || rest.length > 3) return undefined;
  if (info.namespaced !== (namespace !== undefined)) return undefined;
  return { info, namespace, name: rest[1], subresource: rest[2] };
}

/** `ConfigMap kube-system/kubeadm-config` or `Node node1`: how messages name an object. */
export function describeObject(kind: string, namespace?: string, name?: string): string {
  if (name === undefined) return namespace ? `${kind} in namespace ${namespace}` : kind;
  return namespace ? `${kind} ${namespace}/${name}` : `${kind} ${name}`;
}
