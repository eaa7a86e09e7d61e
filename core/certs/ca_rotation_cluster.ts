/**
 * What a CA rotation (`ca_rotation.ts`) changes and reads in the cluster: the trust published
 * in `kube-public/cluster-info` (what joining nodes and the `node` phase take), the
 * `kube-root-ca.crt` ConfigMaps the controller-manager publishes from `--root-ca-file` (what
 * every Pod's service-account volume holds), the restart of kubeadm's in-cluster clients onto
 * it, the CAs the API server publishes in `extension-apiserver-authentication` (what aggregated
 * API servers verify with), the Nodes' rotation annotations, and the `kubeadm-certs` Secret that
 * holds the old CAs.
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
import { type Kubeconfig, parseKubeconfig } from "../kubeconfig/kubeconfig.ts";
import type { ConnectionParams, TransportLimits } from "../ports/transport.ts";
import { kubeconfigTrust, kubeconfigWithTrust, trustedCluster } from "./ca_rotation.ts";

/** An anonymous connection: a server and exactly the CA bundle it is verified against. */
export type AnonymousConnection =
  & Required<Pick<ConnectionParams, "server" | "caPem">>
  & Pick<ConnectionParams, "tlsServerName">;

const CLUSTER_INFO = { kind: "ConfigMap", namespace: "kube-public", name: "cluster-info" };

/**
 * Where a node reads cluster-info anonymously (kubeadm's RBAC lets only unauthenticated users
 * read it; the node authorizer refuses a kubelet): the server of its kubelet.conf, verified
 * against exactly the CAs this node already trusts, kubelet.conf's and `ca.crt`'s, without
 * credentials. Through the stages, kubelet.conf alone holds the API server's signing CA when
 * the phases ran in order (`node` after `trust` gives it both CAs before `reissue`, which waits
 * for it, re-issues the serving certificate); `ca.crt` (on a control plane, set by each stage
 * before its API server restarts) keeps a kubelet.conf left behind verifying.
 */
export function clusterInfoConnection(
  kubeletConf: Kubeconfig,
  caCrt: readonly Certificate[],
  source: string,
): AnonymousConnection {
  const cluster = trustedCluster(kubeletConf);
  if (!cluster?.server) {
    throw new KubeadmError(`${source} names no cluster server to read cluster-info from`, {
      field: source,
    });
  }
  const pem = kubeconfigTrust(kubeletConf);
  const trusted = new Map<string, Certificate>();
  for (const ca of [...(pem ? parseCertificatesPEM(pem) : []), ...caCrt]) {
    trusted.set(encodeCertificatePEM([ca]), ca);
  }
  if (trusted.size === 0) {
    throw new KubeadmError(`${source} holds no certificate-authority-data and ca.crt is missing`, {
      field: source,
      hint: "the node must trust its cluster's CA to read cluster-info",
    });
  }
  const connection: AnonymousConnection = {
    server: cluster.server,
    caPem: encodeCertificatePEM([...trusted.values()]),
  };
  if (cluster["tls-server-name"]) connection.tlsServerName = cluster["tls-server-name"];
  return connection;
}

/**
 * The CA bundle cluster-info publishes, read by an anonymous client (see
 * {@link clusterInfoConnection}) within `limits` (one deadline, a size cap). Throws when it
 * holds none.
 */
export async function clusterInfoTrust(
  client: KubeClient,
  limits?: TransportLimits,
): Promise<Certificate[]> {
  const cm = await client.get<ConfigMap>(CLUSTER_INFO, limits);
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

/** A ConfigMap key in which a component of the cluster publishes a CA bundle it reads. */
export interface PublishedTrust {
  namespace: string;
  name: string;
  key: string;
  /** Who publishes it, from which file (for the timeout's message). */
  publisher: string;
}

/** `kube-system/kube-root-ca.crt` (every namespace gets the same; Pods' service-account volumes follow it). */
export const ROOT_CA_TRUST: PublishedTrust = {
  namespace: "kube-system",
  name: "kube-root-ca.crt",
  key: "ca.crt",
  publisher: "kube-controller-manager (from --root-ca-file)",
};

/**
 * A key of `kube-system/extension-apiserver-authentication`, where the API server publishes the
 * CAs aggregated API servers verify with (`client-ca-file`, `requestheader-client-ca-file`). Its
 * controller adds the CAs of its files to those the ConfigMap holds and never removes one: a
 * rotation's end sets the key itself ({@link setPublishedTrust}).
 */
export function authenticationTrust(key: string): PublishedTrust {
  return {
    namespace: "kube-system",
    name: "extension-apiserver-authentication",
    key,
    publisher: `kube-apiserver (from --${key})`,
  };
}

function publishedBundle(cm: ConfigMap | undefined, key: string): string[] {
  try {
    return parseCertificatesPEM(cm?.data?.[key] ?? "").map((c) => encodeCertificatePEM(c));
  } catch {
    return [];
  }
}

/**
 * Waits until `where` holds `bundle`: exactly (in order), or `including` it (other CAs may
 * stay). Throws naming the ConfigMap after `timeoutMs`.
 */
export async function waitForPublishedTrust(
  client: KubeClient,
  where: PublishedTrust,
  bundle: readonly Certificate[],
  timeoutMs: number,
  match: "exactly" | "including" = "exactly",
): Promise<void> {
  const wanted = bundle.map((c) => encodeCertificatePEM(c));
  await poll<true>(async (window) => {
    const cm = await client.withRetry({ timeoutMs: 0 }).tryGet<ConfigMap>(
      { kind: "ConfigMap", namespace: where.namespace, name: where.name },
      window.limits(),
    ).catch(() => undefined);
    const has = publishedBundle(cm, where.key);
    const done = match === "exactly"
      ? has.join() === wanted.join()
      : wanted.every((c) => has.includes(c));
    return done ? { done: true, value: true } : { done: false };
  }, {
    ...client.timing,
    intervalMs: 1_000,
    timeoutMs,
    timeoutError: () =>
      new KubeadmError(
        `${where.publisher} did not publish the new trust in ${where.namespace}/${where.name} (${where.key}) within ${
          formatDuration(timeoutMs)
        }`,
        {
          field: `${where.namespace}/${where.name}`,
          hint: "check that it runs and reads the file",
        },
      ),
  });
}

/**
 * Sets `where` to exactly `bundle` (the old CA out); false when it already held it or the
 * ConfigMap is absent (its publisher creates it from its files, which hold `bundle`).
 */
export async function setPublishedTrust(
  client: KubeClient,
  where: PublishedTrust,
  bundle: readonly Certificate[],
): Promise<boolean> {
  const cm = await client.tryGet<ConfigMap>(
    { kind: "ConfigMap", namespace: where.namespace, name: where.name },
  );
  const wanted = bundle.map((c) => encodeCertificatePEM(c));
  if (!cm || publishedBundle(cm, where.key).join() === wanted.join()) return false;
  await client.update<ConfigMap>({ ...cm, data: { ...cm.data, [where.key]: wanted.join("") } });
  return true;
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

/** Deletes `kube-system/kubeadm-certs` (it holds the old CAs); true when there was one. */
export async function deleteUploadedCerts(client: KubeClient): Promise<boolean> {
  try {
    await client.delete({ kind: "Secret", namespace: "kube-system", name: "kubeadm-certs" });
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}
