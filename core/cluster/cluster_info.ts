/**
 * The public `kube-public/cluster-info` ConfigMap that joining nodes discover the cluster
 * from, and the anonymous-read RBAC around it (upstream `phases/bootstraptoken/clusterinfo`).
 *
 * The `kubeconfig` value is a kubeconfig holding only admin.conf's current cluster under the
 * empty name, serialized as client-go 1.34's `clientcmd.Write` does (sorted keys, `contexts:
 * null`, `current-context: ""`, `users: null`, no `preferences`). Its exact bytes matter: the
 * bootstrap signer signs them.
 *
 * @module
 */
import type { Hashing } from "../ports/crypto.ts";
import type { ConfigMap } from "kubernetes-types/core/v1.d.ts";
import type { Role, RoleBinding } from "kubernetes-types/rbac/v1.d.ts";
import { type KubeClient, settledInOrder } from "../kube/client.ts";
import type { LogFn } from "../ports/printer.ts";
import {
  createBasicKubeconfig,
  emptyKubeconfig,
  type Kubeconfig,
  type KubeconfigCluster,
  resolveContext,
  serializeKubeconfig,
} from "../kubeconfig/kubeconfig.ts";
import { base64Decode, base64Encode } from "../text/base64.ts";
import { DEFAULT_CLUSTER_NAME } from "../constants.ts";
import { KubeadmError } from "../errors.ts";
import { parseToken } from "../bootstraptoken/token.ts";
import { signatureKey } from "../discovery/cluster_info.ts";
import { computeDetachedSignature } from "../discovery/jws.ts";
import { getOneObjectRole, roleBinding, userSubject } from "./rbac.ts";

/** `kube-public`. */
export const KUBE_PUBLIC = "kube-public";
/** The ConfigMap name. */
export const CLUSTER_INFO_CONFIGMAP = "cluster-info";
/** Its kubeconfig data key. */
const CLUSTER_INFO_KUBECONFIG_KEY = "kubeconfig";
/** Role and RoleBinding granting anonymous read of cluster-info. */
const BOOTSTRAP_SIGNER_CLUSTERINFO_ROLE = "kubeadm:bootstrap-signer-clusterinfo";
/** The anonymous user. */
const ANONYMOUS_USER = "system:anonymous";

/** The fields of a kubeconfig cluster entry client-go keeps (`omitempty` ones only when set). */
const CLUSTER_FIELDS = [
  "server",
  "tls-server-name",
  "insecure-skip-tls-verify",
  "certificate-authority",
  "certificate-authority-data",
  "proxy-url",
  "disable-compression",
  "extensions",
] as const;

/** The cluster entry as client-go would re-serialize it (known fields, empty ones omitted). */
function normalizedCluster(cluster: KubeconfigCluster): Record<string, unknown> {
  const out: Record<string, unknown> = { server: cluster.server ?? "" };
  for (const field of CLUSTER_FIELDS) {
    const v = cluster[field];
    if (field === "server" || v === undefined || v === null || v === "" || v === false) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[field] = field === "certificate-authority-data" ? base64Encode(base64Decode(String(v))) : v;
  }
  return out;
}

/** The cluster-info kubeconfig text built from admin.conf's current cluster. */
export function clusterInfoKubeconfig(admin: Kubeconfig): string {
  const cluster = normalizedCluster(resolveContext(admin).cluster) as KubeconfigCluster;
  return serializeKubeconfig(
    { ...emptyKubeconfig(), clusters: [{ name: "", cluster }] },
    { nullEmptyLists: true },
  );
}

/** ConfigMap `kube-public/cluster-info`. */
function clusterInfoConfigMap(admin: Kubeconfig): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: CLUSTER_INFO_CONFIGMAP, namespace: KUBE_PUBLIC },
    data: { [CLUSTER_INFO_KUBECONFIG_KEY]: clusterInfoKubeconfig(admin) },
  };
}

/** Role `kube-public/kubeadm:bootstrap-signer-clusterinfo`: get configmap `cluster-info`. */
function clusterInfoRole(): Role {
  return getOneObjectRole(
    KUBE_PUBLIC,
    BOOTSTRAP_SIGNER_CLUSTERINFO_ROLE,
    "configmaps",
    CLUSTER_INFO_CONFIGMAP,
  );
}

/** Its RoleBinding to User `system:anonymous`. */
function clusterInfoRoleBinding(): RoleBinding {
  return roleBinding(KUBE_PUBLIC, BOOTSTRAP_SIGNER_CLUSTERINFO_ROLE, [
    userSubject(ANONYMOUS_USER),
  ]);
}

/** Creates or updates the cluster-info ConfigMap and, at once, its Role and RoleBinding. */
export async function applyClusterInfo(
  client: KubeClient,
  admin: Kubeconfig,
  log?: LogFn,
): Promise<void> {
  const say = (m: string) => log?.(1, "cluster_info.ts", m);
  say("[bootstrap-token] copying the cluster from admin.conf to the bootstrap kubeconfig");
  const configMap = clusterInfoConfigMap(admin);
  say("[bootstrap-token] creating/updating ConfigMap in kube-public namespace");
  await settledInOrder([client.createOrUpdate(configMap), applyClusterInfoRBAC(client, log)]);
}

/** Creates or updates the Role and RoleBinding that expose cluster-info anonymously. */
export async function applyClusterInfoRBAC(client: KubeClient, log?: LogFn): Promise<void> {
  log?.(
    1,
    "cluster_info.ts",
    "creating the RBAC rules for exposing the cluster-info ConfigMap in the kube-public namespace",
  );
  await client.createOrUpdateAll([clusterInfoRole(), clusterInfoRoleBinding()]);
}

/**
 * The `cluster-info` ConfigMap kubeadm publishes for an API server URL and its CA bundle (PEM),
 * unsigned: the bootstrap signer adds a signature per token ({@link signClusterInfo}).
 */
export function clusterInfoFor(server: string, caPem: string): ConfigMap {
  return clusterInfoConfigMap(createBasicKubeconfig(server, DEFAULT_CLUSTER_NAME, "admin", caPem));
}

/**
 * `cluster-info` signed as the bootstrap signer (kube-controller-manager) signs it: one
 * `jws-kubeconfig-<id>` entry per token, over the `kubeconfig` value. Existing entries stay.
 */
export async function signClusterInfo(
  clusterInfo: ConfigMap,
  tokens: readonly string[],
  crypto: Hashing,
): Promise<ConfigMap> {
  const kubeconfig = clusterInfo.data?.[CLUSTER_INFO_KUBECONFIG_KEY];
  if (kubeconfig === undefined) {
    throw new KubeadmError(`the ${CLUSTER_INFO_CONFIGMAP} ConfigMap has no kubeconfig`, {
      field: `data.${CLUSTER_INFO_KUBECONFIG_KEY}`,
    });
  }
  const data = { ...clusterInfo.data };
  for (const token of tokens) {
    const { id, secret } = parseToken(token);
    data[signatureKey(id)] ??= await computeDetachedSignature(kubeconfig, id, secret, crypto);
  }
  return { ...clusterInfo, data };
}
