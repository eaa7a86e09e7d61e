/**
 * The fuzzer's fixtures: a control plane planned by the library from a fixed seed (so its CA,
 * its pin and its token are the same in every run), served over HTTPS on 127.0.0.1 as `join`'s
 * discovery endpoint: `cluster-info` signed for the tokens the current case uses (so a join
 * either verifies or fails at once, never polls for minutes), every other request answered by
 * the plan's offline cluster (kubeadm-config, kubelet-config, the kubeadm-certs Secret).
 *
 * @module
 */
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConfigMap } from "kubernetes-types/core/v1.d.ts";
import { planControlPlane } from "../library/control_plane.ts";
import { offlineCluster } from "../adapters/offline/cluster.ts";
import { seededRandom } from "../adapters/offline/random.ts";
import { CLUSTER_INFO_CONFIGMAP, KUBE_PUBLIC } from "../core/cluster/cluster_info.ts";
import { signClusterInfo } from "../library/cluster_info.ts";
import { parseToken } from "../core/bootstraptoken/token.ts";
import { toKubeYaml } from "../core/yaml/kube_yaml.ts";

/** The stub control plane and its server. */
export interface Stub {
  /** `127.0.0.1:<port>`. */
  endpoint: string;
  /** The cluster's bootstrap token (secret). */
  token: string;
  /** `sha256:<hex>` of the cluster CA. */
  caCertHash: string;
  /** The certificate key of the `kubeadm-certs` Secret (secret). */
  certificateKey: string;
  /** The cluster CA (PEM). */
  caCert: string;
  /** Files of the planned control plane by node path (certificates, keys, kubeconfigs). */
  files: Map<string, string>;
  /**
   * The same files of another control plane (another seed, ECDSA-P384 keys): its certificates
   * are signed by other CAs and its keys are of another type, so one of them among {@link files}
   * is a mismatched pair or a certificate signed by another CA.
   */
  otherFiles: Map<string, string>;
  /**
   * `cluster-info` signed for the cluster's token, as a YAML file, with the endpoint written as
   * `$ENDPOINT` (the only part that changes from run to run).
   */
  clusterInfoYaml: string;
  /** Makes `cluster-info` carry signatures for exactly these tokens (the case's). */
  signFor(tokens: string[]): void;
  close(): Promise<void>;
}

const STUB_CONFIG = [
  "apiVersion: kubeadm.k8s.io/v1beta4",
  "kind: ClusterConfiguration",
  "encryptionAlgorithm: ECDSA-P256",
  "",
].join("\n");

function isClusterInfo(o: { kind?: string; metadata?: { namespace?: string; name?: string } }) {
  return o.kind === "ConfigMap" && o.metadata?.namespace === KUBE_PUBLIC &&
    o.metadata?.name === CLUSTER_INFO_CONFIGMAP;
}

async function body(req: IncomingMessage): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  for await (const c of req) chunks.push(c as Uint8Array<ArrayBuffer>);
  if (chunks.length === 0) return undefined;
  return new Uint8Array(await new Blob(chunks).arrayBuffer());
}

/** Plans the control plane (fixed seed) and starts its server. */
export async function startStub(): Promise<Stub> {
  // The plan's API server is the stub: its port is reserved first, then planned in.
  const reserved = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (reserved.addr as Deno.NetAddr).port;
  reserved.close();
  // Fixed within a year (certificates valid for the whole year), so cases reproduce.
  const clock = { now: () => new Date(Date.UTC(new Date().getUTCFullYear(), 0, 1)) };
  const plan = await planControlPlane({
    config:
      `${STUB_CONFIG}---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nlocalAPIEndpoint:\n  bindPort: ${port}\n`,
    uploadCerts: true,
    host: { hostname: "fuzz-cp", advertiseAddress: "127.0.0.1" },
    random: seededRandom("kubeadm-ts fuzz stub"),
    clock,
  });
  const files = new Map(plan.files.map((f) => [f.path, f.content]));
  const other = await planControlPlane({
    config: STUB_CONFIG.replace("ECDSA-P256", "ECDSA-P384"),
    host: { hostname: "fuzz-cp", advertiseAddress: "127.0.0.1" },
    random: seededRandom("kubeadm-ts fuzz stub, another cluster"),
    clock,
  });
  const unsigned = plan.objects.find(isClusterInfo) as ConfigMap;
  const cluster = offlineCluster(plan.objects);
  let clusterInfo = await signClusterInfo(unsigned, [plan.token]);
  const clusterInfoYaml = toKubeYaml(clusterInfo).replaceAll(`127.0.0.1:${port}`, "$ENDPOINT");
  let signing = Promise.resolve();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    await signing;
    const url = new URL(req.url ?? "/", "https://127.0.0.1");
    let response: Response;
    if (
      req.method === "GET" &&
      url.pathname === `/api/v1/namespaces/${KUBE_PUBLIC}/configmaps/${CLUSTER_INFO_CONFIGMAP}`
    ) {
      response = new Response(JSON.stringify(clusterInfo), {
        headers: { "Content-Type": "application/json" },
      });
    } else {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === "string") headers.set(k, v);
      }
      const b = await body(req);
      response = await cluster.transport(
        new Request(url, { method: req.method, headers, body: b as BodyInit | undefined }),
      );
    }
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(new Uint8Array(await response.arrayBuffer()));
  };
  const server = https.createServer({
    cert: files.get("/etc/kubernetes/pki/apiserver.crt"),
    key: files.get("/etc/kubernetes/pki/apiserver.key"),
  }, (req, res) => {
    handle(req, res).catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  return {
    endpoint: `127.0.0.1:${port}`,
    token: plan.token,
    caCertHash: plan.caCertHash,
    certificateKey: plan.certificateKey ?? "",
    caCert: files.get("/etc/kubernetes/pki/ca.crt") ?? "",
    files,
    otherFiles: new Map(other.files.map((f) => [f.path, f.content])),
    clusterInfoYaml,
    signFor(tokens) {
      const valid = tokens.filter((t) => {
        try {
          parseToken(t);
          return true;
        } catch {
          return false;
        }
      });
      signing = (async () => {
        clusterInfo = await signClusterInfo(unsigned, valid);
      })();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
