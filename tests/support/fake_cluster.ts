/**
 * The fake API server ({@link FakeKubeApi}) served over mutual TLS, and a kubeconfig with
 * embedded credentials for it: what CLI tests run `kubeadm` commands against.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConfigMap } from "kubernetes-types/core/v1.d.ts";
import { FakeKubeApi } from "./fake_kube_api.ts";
import {
  makeTlsFixtures,
  startHttpsServer,
  type TestHttpsServer,
  type TlsFixtures,
} from "./tls_fixtures.ts";

let fixtures: Promise<TlsFixtures> | undefined;

/** The TLS material of the fake cluster (made once per test process). */
export function fakeClusterTls(): Promise<TlsFixtures> {
  return fixtures ??= makeTlsFixtures();
}

const b64 = (s: string) => btoa(s);

/** Serves a FakeKubeApi over HTTPS (client certificate required). */
async function serve(api: FakeKubeApi): Promise<TestHttpsServer> {
  return await startHttpsServer(await fakeClusterTls(), { requireClientCert: true }, (req, res) => {
    void bridge(api, req, res);
  });
}

async function bridge(api: FakeKubeApi, req: IncomingMessage, res: ServerResponse) {
  const chunks: Uint8Array[] = [];
  for await (const c of req) chunks.push(c as Uint8Array);
  const body = chunks.length ? new TextDecoder().decode(concat(chunks)) : undefined;
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  const response = await api.transport(
    new Request(`https://127.0.0.1${req.url}`, { method: req.method, headers, body }),
  );
  res.writeHead(response.status, { "Content-Type": "application/json" });
  res.end(await response.text());
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

/** An admin kubeconfig for the fake cluster at `server`. */
export async function fakeClusterKubeconfig(server: string): Promise<string> {
  const tls = await fakeClusterTls();
  return `apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: ${b64(tls.caCert)}
    server: ${server}
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: kubernetes-admin
  name: kubernetes-admin@kubernetes
current-context: kubernetes-admin@kubernetes
users:
- name: kubernetes-admin
  user:
    client-certificate-data: ${b64(tls.clientCert)}
    client-key-data: ${b64(tls.clientKey)}
`;
}

/** Stores a `kube-system` ConfigMap. */
export function putConfigMap(api: FakeKubeApi, name: string, data: Record<string, string>): void {
  api.put(
    <ConfigMap> {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace: "kube-system" },
      data,
    },
  );
}

/**
 * Stores what `kubeadm init` uploads for the cluster's configuration: the `kubeadm-config`
 * ConfigMap holding `clusterConfiguration` (YAML) and a default `kubelet-config`.
 */
export function putClusterConfiguration(api: FakeKubeApi, clusterConfiguration: string): void {
  putConfigMap(api, "kubeadm-config", { ClusterConfiguration: clusterConfiguration });
  putConfigMap(api, "kubelet-config", {
    kubelet: "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n",
  });
}

/** A running fake cluster: the API, its server, the kubeconfig path `kc` in a temp `dir`. */
export interface FakeCluster {
  api: FakeKubeApi;
  server: TestHttpsServer;
  kc: string;
  dir: string;
}

/** Runs `fn` against a fresh fake cluster, then stops it and removes its temp dir. */
export async function withFakeCluster(
  fn: (ctx: FakeCluster) => Promise<void>,
  api: FakeKubeApi = new FakeKubeApi(),
): Promise<void> {
  const server = await serve(api);
  const dir = await Deno.makeTempDir({ prefix: "kts-cluster-" });
  const kc = `${dir}/admin.conf`;
  await Deno.writeTextFile(kc, await fakeClusterKubeconfig(server.url));
  try {
    await fn({ api, server, kc, dir });
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}
