/**
 * The `kubeadm:cluster-admins` ClusterRoleBinding that gives admin.conf's group its power, and
 * upstream's bootstrap of it (`phases/kubeconfig.EnsureAdminClusterRoleBinding`): admin.conf's
 * user is in group `kubeadm:cluster-admins`, which has no rights until this binding exists, so
 * kubeadm first tries with admin.conf (works when the binding already exists) and on Forbidden
 * creates it with super-admin.conf (`system:masters`), then continues with admin.conf.
 *
 * Each of the two steps polls every 500ms for `timeouts.kubernetesAPICall`, as upstream does;
 * every attempt is a single request (the client's own retries are off inside the poll, so the
 * step cannot outlast the timeout). Unlike upstream, a TLS failure (the server's certificate
 * not signed by the kubeconfig's CA, a name mismatch, a rejected client certificate) ends the
 * step at once: no retry can cure it.
 *
 * @module
 */
import type { ClusterRoleBinding } from "kubernetes-types/rbac/v1.d.ts";
import { Identity, KubeconfigFile } from "../constants.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { KubeClient } from "../kube/client.ts";
import { API_CALL_RETRY_INTERVAL_MS, poll } from "../kube/retry.ts";
import { isAlreadyExists, isForbidden, isUnrecoverableTransportError } from "../kube/status.ts";
import { clusterRoleBinding, groupSubject } from "./rbac.ts";

/** The built-in ClusterRole bound to the group. */
const CLUSTER_ADMIN_ROLE = "cluster-admin";

/** ClusterRoleBinding `kubeadm:cluster-admins` → ClusterRole `cluster-admin`, same-named Group. */
export function clusterAdminsBinding(): ClusterRoleBinding {
  return clusterRoleBinding(Identity.clusterAdminsGroup, CLUSTER_ADMIN_ROLE, [
    groupSubject(Identity.clusterAdminsGroup),
  ]);
}

/** Timing of {@link ensureClusterAdminsBinding}. */
export interface ClusterAdminsOptions {
  /** Delay between attempts (default 500ms). */
  intervalMs?: number;
  /** Bound of each of the two phases (default: the admin client's retry timeout). */
  timeoutMs?: number;
}

/**
 * Makes sure the `kubeadm:cluster-admins` binding exists and returns the client to use from
 * now on (always `admin`). `superAdmin` is the super-admin.conf client, if that file exists.
 */
export async function ensureClusterAdminsBinding(
  admin: KubeClient,
  superAdmin: KubeClient | undefined,
  options: ClusterAdminsOptions = {},
): Promise<KubeClient> {
  const timing = {
    ...admin.timing,
    intervalMs: options.intervalMs ?? API_CALL_RETRY_INTERVAL_MS,
    timeoutMs: options.timeoutMs ?? admin.retry.timeoutMs,
  };
  const binding = clusterAdminsBinding();
  const once = { timeoutMs: 0 };
  const adminOnce = admin.withRetry(once);
  const viaAdmin = await poll<"exists" | "forbidden">(async (window) => {
    try {
      await adminOnce.create(binding, window.limits());
      return { done: true, value: "exists" };
    } catch (e) {
      if (isForbidden(e)) return { done: true, value: "forbidden" };
      if (isAlreadyExists(e)) return { done: true, value: "exists" };
      if (isUnrecoverableTransportError(e)) throw e;
      return { done: false, error: e };
    }
  }, timing);
  if (viaAdmin === "exists") return admin;

  if (!superAdmin) {
    throw new KubeadmError(
      `the ClusterRoleBinding for the ${Identity.clusterAdminsGroup} Group is missing but there is no ${KubeconfigFile.superAdmin} to create it`,
      {
        hint: `restore /etc/kubernetes/${KubeconfigFile.superAdmin} or create the binding by hand`,
      },
    );
  }
  const superAdminOnce = superAdmin.withRetry(once);
  try {
    await poll<true>(async (window) => {
      try {
        await superAdminOnce.create(binding, window.limits());
        return { done: true, value: true };
      } catch (e) {
        if (isAlreadyExists(e)) return { done: true, value: true };
        if (isUnrecoverableTransportError(e)) throw e;
        return { done: false, error: e };
      }
    }, timing);
  } catch (e) {
    throw new KubeadmError(
      `unable to create the ${Identity.clusterAdminsGroup} ClusterRoleBinding by using ${KubeconfigFile.superAdmin}: ${
        errorMessage(e)
      }`,
      { cause: e, hint: e instanceof KubeadmError ? e.hint : undefined },
    );
  }
  return admin;
}
