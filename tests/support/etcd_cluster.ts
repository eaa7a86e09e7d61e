/**
 * A real multi-member etcd cluster on loopback, with TLS everywhere (client and peer
 * certificate authentication), for tests of etcd member handling. Certificates come from the
 * `openssl` CLI; the binary from `scripts/k8s-bins` (see {@link k8sBinDir}).
 *
 * @module
 */
import { k8sBinDir } from "./k8s_bins.ts";
import { runTool } from "./openssl.ts";

/** PEM files of the test PKI. */
export interface EtcdPki {
  dir: string;
  caCrt: string;
  /** Server and peer certificate (127.0.0.1, localhost), also usable as a client. */
  nodeCrt: string;
  nodeKey: string;
  /** A client certificate (CN kube-apiserver-etcd-client). */
  clientCrt: string;
  clientKey: string;
}

/** One running member. */
export interface EtcdMemberProcess {
  name: string;
  clientURL: string;
  peerURL: string;
  dataDir: string;
  process: Deno.ChildProcess;
}

/** A running cluster. */
export interface EtcdCluster {
  pki: EtcdPki;
  members: EtcdMemberProcess[];
  /** `name=peerURL,...` as given to `--initial-cluster`. */
  initialCluster: string;
  /** Stops every member and removes the temp directory. */
  stop(): Promise<void>;
}

async function ssl(args: string[]): Promise<void> {
  const r = await runTool("openssl", args);
  if (r.code !== 0) throw new Error(`openssl ${args.join(" ")}: ${r.stderr}`);
}

/** Makes a CA, a server/peer certificate and a client certificate with openssl. */
export async function makeEtcdPki(dir: string): Promise<EtcdPki> {
  const p = (f: string) => `${dir}/${f}`;
  await ssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", p("ca.key")]);
  await ssl([
    "req",
    "-x509",
    "-new",
    "-key",
    p("ca.key"),
    "-subj",
    "/CN=etcd-ca",
    "-days",
    "2",
    "-out",
    p("ca.crt"),
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign,digitalSignature",
  ]);
  const leaf = async (name: string, cn: string, ext: string) => {
    await ssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", p(`${name}.key`)]);
    await ssl([
      "req",
      "-new",
      "-key",
      p(`${name}.key`),
      "-subj",
      `/CN=${cn}`,
      "-out",
      p(`${name}.csr`),
    ]);
    await Deno.writeTextFile(p(`${name}.ext`), ext);
    await ssl([
      "x509",
      "-req",
      "-in",
      p(`${name}.csr`),
      "-CA",
      p("ca.crt"),
      "-CAkey",
      p("ca.key"),
      "-CAcreateserial",
      "-days",
      "2",
      "-out",
      p(`${name}.crt`),
      "-extfile",
      p(`${name}.ext`),
    ]);
  };
  await leaf(
    "node",
    "etcd-node",
    "keyUsage=critical,digitalSignature,keyEncipherment\n" +
      "extendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n",
  );
  await leaf(
    "client",
    "kube-apiserver-etcd-client",
    "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n",
  );
  return {
    dir,
    caCrt: p("ca.crt"),
    nodeCrt: p("node.crt"),
    nodeKey: p("node.key"),
    clientCrt: p("client.crt"),
    clientKey: p("client.key"),
  };
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function waitHealthy(m: EtcdMemberProcess, pki: EtcdPki, deadline: number): Promise<void> {
  const client = Deno.createHttpClient({
    caCerts: [await Deno.readTextFile(pki.caCrt)],
    cert: await Deno.readTextFile(pki.clientCrt),
    key: await Deno.readTextFile(pki.clientKey),
  });
  try {
    let last = "";
    while (Date.now() < deadline) {
      try {
        const init = { client, signal: AbortSignal.timeout(2000) };
        const res = await fetch(
          `${m.clientURL}/health`,
          init as RequestInit & { client: Deno.HttpClient },
        );
        const body = await res.text();
        if (res.ok && body.includes('"health":"true"')) return;
        last = body;
      } catch (e) {
        last = String(e);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`etcd member ${m.name} did not become healthy: ${last}`);
  } finally {
    client.close();
  }
}

/** Starts an `n`-member cluster in a new temp directory and waits until every member is healthy. */
export async function startEtcdCluster(n = 2): Promise<EtcdCluster> {
  const etcd = `${await k8sBinDir()}/etcd`;
  const dir = await Deno.makeTempDir({ prefix: "kubeadm-ts-etcd-" });
  const pki = await makeEtcdPki(dir);
  const specs = Array.from({ length: n }, (_, i) => ({
    name: `m${i + 1}`,
    clientURL: `https://127.0.0.1:${freePort()}`,
    peerURL: `https://127.0.0.1:${freePort()}`,
    dataDir: `${dir}/data-m${i + 1}`,
  }));
  const initialCluster = specs.map((s) => `${s.name}=${s.peerURL}`).join(",");
  const members: EtcdMemberProcess[] = specs.map((s) => ({
    ...s,
    process: new Deno.Command(etcd, {
      args: [
        `--name=${s.name}`,
        `--data-dir=${s.dataDir}`,
        `--listen-client-urls=${s.clientURL}`,
        `--advertise-client-urls=${s.clientURL}`,
        `--listen-peer-urls=${s.peerURL}`,
        `--initial-advertise-peer-urls=${s.peerURL}`,
        `--initial-cluster=${initialCluster}`,
        "--initial-cluster-state=new",
        "--initial-cluster-token=kubeadm-ts-test",
        `--cert-file=${pki.nodeCrt}`,
        `--key-file=${pki.nodeKey}`,
        `--trusted-ca-file=${pki.caCrt}`,
        "--client-cert-auth=true",
        `--peer-cert-file=${pki.nodeCrt}`,
        `--peer-key-file=${pki.nodeKey}`,
        `--peer-trusted-ca-file=${pki.caCrt}`,
        "--peer-client-cert-auth=true",
        "--log-level=error",
      ],
      stdout: "null",
      stderr: "null",
    }).spawn(),
  }));
  const stop = async () => {
    for (const m of members) {
      try {
        m.process.kill("SIGKILL");
      } catch {
        // already gone
      }
      await m.process.status;
    }
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    const deadline = Date.now() + 60_000;
    for (const m of members) await waitHealthy(m, pki, deadline);
  } catch (e) {
    await stop();
    throw e;
  }
  return { pki, members, initialCluster, stop };
}
