/**
 * What a CA rotation (`ca_rotation.ts`) changes and reads in the cluster: the trust published
 * in `kube-public/cluster-info` (what joining nodes and the `node` phase take), the
 * `kube-root-ca.crt` ConfigMaps the controller-manager publishes from `--root-ca-file` (what
 * every Pod's service-account volume holds), the restart of kubeadm's in-cluster clients onto
 * it, the Nodes' rotation annotations, and the `kubeadm-certs` Secret that holds the old CA.
 *
 * @module
 */
import type { ConfigMap, Node } from "kubernetes-types/core/v1.d.ts";
import { KubeadmError } from "../errors.ts";
import type { KubeClient } from "../kube/client.ts";
import { poll } from "../kube/retry.ts";
import { isNotFound } from "../kube/status.ts";
import { type Certificate, encodeCertificatePEM, parseCertificatesPEM } from "../pki/cert.ts";
import { formatDuration } from "../text/duration.ts";
import { parseKubeconfig } from "../kubeconfig/kubeconfig.ts";
import { kubeconfigTrust, kubeconfigWithTrust } from "./ca_rotation.ts";

const CLUSTER_INFO = { kind: "ConfigMap", namespace: "kube-public", name: "cluster-info" };

/** The CA bundle cluster-info publishes. Throws when it holds none. */
export async function clusterInfoTrust(client: KubeClient): Promise<Certificate[]> {
  const cm = await client.get<ConfigMap>(CLUSTER_INFO);
  const text = cm.data?.kubeconfig ?? "";
  const pem = kubeconfigTrust(parseKubeconfig(text, "cluster-info", { clientcmd: true }));
  if (!pem) {
    throw new KubeadmError("the cluster-info ConfigMap holds no certificate-authority-data", {
      field: "kube-public/cluster-info",
    });
  }
  return parseCertificatesPEM(pem);
}

/** Sets the CA bundle of cluster-info (the bootstrap signer signs it again). */
export async function publishClusterInfoTrust(
  client: KubeClient,
  bundle: readonly Certificate[],
): Promise<boolean> {
  const cm = await client.get<ConfigMap>(CLUSTER_INFO);
  const next = kubeconfigWithTrust(cm.data?.kubeconfig ?? "", bundle, "cluster-info");
  if (next === undefined) return false;
  await client.update<ConfigMap>({ ...cm, data: { ...cm.data, kubeconfig: next } });
  return true;
}

function sameBundle(pem: string | undefined, bundle: readonly Certificate[]): boolean {
  if (!pem) return false;
  try {
    return encodeCertificatePEM(parseCertificatesPEM(pem)) === encodeCertificatePEM([...bundle]);
  } catch {
    return false;
  }
}

/**
 * Waits until the controller-manager published `bundle` as `kube-system/kube-root-ca.crt` (every
 * namespace gets the same; Pods' service-account volumes follow it).
 */
export async function waitForRootCA(
  client: KubeClient,
  bundle: readonly Certificate[],
  timeoutMs: number,
): Promise<void> {
  await poll<true>(async (window) => {
    const cm = await client.withRetry({ timeoutMs: 0 }).tryGet<ConfigMap>(
      { kind: "ConfigMap", namespace: "kube-system", name: "kube-root-ca.crt" },
      window.limits(),
    ).catch(() => undefined);
    return sameBundle(cm?.data?.["ca.crt"], bundle) ? { done: true, value: true } : { done: false };
  }, {
    ...client.timing,
    intervalMs: 1_000,
    timeoutMs,
    timeoutError: () =>
      new KubeadmError(
        `kube-controller-manager did not publish the new trust in kube-root-ca.crt within ${
          formatDuration(timeoutMs)
        }`,
        { hint: "check that it runs with --root-ca-file pointing at ca.crt" },
      ),
  });
}

/** kubeadm's in-cluster clients, restarted onto a new `kube-root-ca.crt`. */
const IN_CLUSTER_CLIENTS = [
  { kind: "DaemonSet", name: "kube-proxy" },
  { kind: "Deployment", name: "coredns" },
] as const;

/**
 * Restarts kube-proxy and CoreDNS (as `kubectl rollout restart` does) so they read the
 * service-account CA again; returns the ones restarted (an absent addon is skipped).
 */
export async function restartInClusterClients(client: KubeClient, now: Date): Promise<string[]> {
  const restarted: string[] = [];
  for (const { kind, name } of IN_CLUSTER_CLIENTS) {
    try {
      await client.patch({ kind, namespace: "kube-system", name }, {
        spec: {
          template: {
            metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": now.toISOString() } },
          },
        },
      }, "strategic");
      restarted.push(`${kind} ${name}`);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  return restarted;
}

/** Sets annotations on a Node (a kubelet may set its own Node's). */
export async function annotateNode(
  client: KubeClient,
  nodeName: string,
  annotations: Record<string, string>,
): Promise<void> {
  await client.patch({ kind: "Node", name: nodeName }, { metadata: { annotations } }, "merge");
}

/** The label of control-plane Nodes, as a selector. */
export const CONTROL_PLANE_SELECTOR = "node-role.kubernetes.io/control-plane=";

/** The names of the Nodes (of `labelSelector`, default all) whose annotations fail `ok`, sorted. */
export async function nodesNotYet(
  client: KubeClient,
  ok: (annotations: Record<string, string>) => boolean,
  labelSelector?: string,
): Promise<string[]> {
  const nodes = await client.list<Node>("Node", { labelSelector });
  return nodes.filter((n) => !ok(n.metadata?.annotations ?? {}))
    .map((n) => n.metadata?.name ?? "").sort();
}

/** Deletes `kube-system/kubeadm-certs` (it holds the old CA); true when there was one. */
export async function deleteUploadedCerts(client: KubeClient): Promise<boolean> {
  try {
    await client.delete({ kind: "Secret", namespace: "kube-system", name: "kubeadm-certs" });
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}
