/**
 * What the CA rotation's real-node tests read: which CAs a file or kubeconfig trusts (as
 * fingerprints, in order), a node's files as the node sees them, a Pod's API access with the
 * service-account files the kubelet keeps in its projected volume, and a request an aggregating
 * proxy makes (front-proxy client certificate and request headers).
 *
 * @module
 */
import assert from "node:assert/strict";
import { parseCertificatesPEM } from "../../core/pki/cert.ts";
import { parseKubeconfig } from "../../core/kubeconfig/kubeconfig.ts";
import { kubeconfigTrust } from "../../core/certs/ca_rotation.ts";
import { type ClusterNode, kubectlJson } from "./cluster.ts";
import { waitFor } from "./commands.ts";

/** The certificates of a PEM bundle, each by the last 32 bytes of its DER (its signature). */
export const fingerprints = (pem: string): string[] =>
  parseCertificatesPEM(pem).map((c) => Array.from(c.der.slice(-32)).join("."));

/** The CA bundle of a kubeconfig's text (its current context's cluster, else its only one). */
export const trustOf = (text: string): string[] =>
  fingerprints(kubeconfigTrust(parseKubeconfig(text, "kubeconfig", { clientcmd: true })) ?? "");

/** The CA bundle a kubeconfig file of a node (`/etc/kubernetes/<file>`) trusts. */
export async function fileTrust(node: ClusterNode, file: string): Promise<string[]> {
  return trustOf(await Deno.readTextFile(node.path(`/etc/kubernetes/${file}`)));
}

/**
 * A file as the node sees it (read inside it: the kubelet links its client certificate with an
 * absolute path of the node's).
 */
export async function nodeFile(node: ClusterNode, path: string): Promise<string> {
  const r = await node.exec(["cat", path]);
  assert.equal(r.code, 0, `${path} on ${node.name}: ${r.stderr}`);
  return r.stdout;
}

/** The CAs of a key of `kube-system/extension-apiserver-authentication`, as fingerprints. */
export async function publishedAuthentication(cp: ClusterNode, key: string): Promise<string[]> {
  const cm = await kubectlJson(cp, [
    "-n",
    "kube-system",
    "get",
    "cm",
    "extension-apiserver-authentication",
  ]) as { data: Record<string, string> };
  return fingerprints(cm.data[key] ?? "");
}

/** A Pod's service-account files: its token and the CA bundle it verifies the API server with. */
export interface PodCredentials {
  token: string;
  ca: string;
}

/**
 * The service-account token and ca.crt of a Pod (by UID) on `node`, as the kubelet keeps them in
 * its projected volume (a tmpfs mounted in the node's mount namespace: read there).
 */
export async function podCredentials(node: ClusterNode, uid: string): Promise<PodCredentials> {
  const dir = `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~projected`;
  const read = async (name: string) => {
    const r = await node.exec(["sh", "-c", `cat ${dir}/kube-api-access-*/${name}`]);
    if (r.code !== 0) throw new Error(`${name} of Pod ${uid} on ${node.name}: ${r.stderr}`);
    return r.stdout;
  };
  return { ca: await read("ca.crt"), token: (await read("token")).trim() };
}

/** Where {@link podApiAccess} finds its Pod and what it asks. */
export interface PodApiAccessOptions {
  /** The Pod's namespace and label selector (default: kube-system's kube-proxy). */
  namespace?: string;
  selector?: string;
  /** The API servers asked (default: `apiNode`'s). */
  servers?: string[];
}

/**
 * What a Pod sees: the service-account files of a running Pod on `node` (`options` says which)
 * used to GET /api from each API server; "ok", else what failed.
 */
export async function podApiAccess(
  apiNode: ClusterNode,
  node: ClusterNode,
  options: PodApiAccessOptions = {},
): Promise<string> {
  const pods = await kubectlJson(apiNode, [
    "-n",
    options.namespace ?? "kube-system",
    "get",
    "pods",
    "-l",
    options.selector ?? "k8s-app=kube-proxy",
    "--field-selector",
    `spec.nodeName=${node.name},status.phase=Running`,
  ]) as { items: { metadata: { uid: string; name: string } }[] };
  const pod = pods.items[0];
  if (!pod) return `no running Pod of ${options.selector ?? "kube-proxy"}`;
  const { ca, token } = await podCredentials(node, pod.metadata.uid);
  const client = Deno.createHttpClient({ caCerts: [ca], poolMaxIdlePerHost: 0 });
  try {
    for (const server of options.servers ?? [`https://${apiNode.ip}:6443`]) {
      try {
        const res = await fetch(
          `${server}/api`,
          {
            client,
            headers: { Authorization: `Bearer ${token}` },
            signal: AbortSignal.timeout(5_000),
          } as RequestInit & { client: Deno.HttpClient },
        );
        await res.body?.cancel();
        if (!res.ok) return `${pod.metadata.name} → ${server}: HTTP ${res.status}`;
      } catch (e) {
        return `${pod.metadata.name} → ${server}: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
    return "ok";
  } finally {
    client.close();
  }
}

/**
 * Waits until a Pod's service-account files reach the API servers (the kubelet refreshes a
 * projected volume within about a minute of its ConfigMap's change).
 */
export async function assertPodAccess(
  apiNode: ClusterNode,
  node: ClusterNode,
  when: string,
  options: PodApiAccessOptions = {},
): Promise<void> {
  let last = "";
  await waitFor(
    `a Pod's service-account files reaching the API server ${when}`,
    async () => (last = await podApiAccess(apiNode, node, options)) === "ok",
    120_000,
  ).catch((e) => assert.fail(`${e}: ${last}`));
}

/**
 * What an aggregating proxy does: a request to the API server authenticated by a front-proxy
 * client certificate and the `X-Remote-User`/`X-Remote-Group` headers (kube-apiserver's own
 * request-header authenticator trusts `--requestheader-client-ca-file`). Returns the status.
 */
export async function proxiedRequest(cp: ClusterNode, client: { crt: string; key: string }) {
  const http = Deno.createHttpClient({
    caCerts: [await Deno.readTextFile(cp.path("/etc/kubernetes/pki/ca.crt"))],
    cert: client.crt,
    key: client.key,
    poolMaxIdlePerHost: 0,
  });
  try {
    const res = await fetch(
      `https://${cp.ip}:6443/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication`,
      {
        client: http,
        headers: { "X-Remote-User": "aggregated-probe", "X-Remote-Group": "system:masters" },
        signal: AbortSignal.timeout(10_000),
      } as RequestInit & { client: Deno.HttpClient },
    );
    await res.body?.cancel();
    return res.status;
  } finally {
    http.close();
  }
}
