// End to end: token discovery refuses every way of faking or misusing the cluster's identity,
// against a real control plane (our own `kubeadm init` on a real node), with a clear error and
// NOTHING written on the joining node (a real node: our join runs inside it, no --rootfs). An attacker's TLS proxy (another CA) sits between the joining
// node and the real API server where a case needs one; tokens are created, expired and deleted
// through kubectl, and the real controller-manager's bootstrap signer and token cleaner react.
import { webCryptoPort } from "../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../support/platform.ts";
import assert from "node:assert/strict";
import {
  type ClusterNode,
  createClusterNode,
  initControlPlane,
  PREFLIGHT_IGNORED_WORKER,
  stopAll,
  trackWrites,
} from "../support/cluster.ts";
import { waitFor } from "../support/commands.ts";
import { opensslSpkiSha256 } from "../support/openssl.ts";
import { webRandom } from "../../adapters/web/random.ts";
import { encodeCertificatePEM } from "../../core/pki/cert.ts";
import { newCertAndKey, newCertificateAuthority } from "../support/test_pki.ts";
import { encodePrivateKeyPEM, generateKeyPair } from "../../core/pki/keys.ts";
import { computeDetachedSignature } from "../../core/discovery/jws.ts";
import { embedData } from "../../core/kubeconfig/kubeconfig.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const TOKEN = "abcdef.0123456789abcdef";

/** What the attacker's proxy does to the cluster-info ConfigMap it relays. */
type Tamper = (data: Record<string, string>) => Promise<void> | void;

interface Proxy {
  endpoint: string;
  /** The attacker's CA certificate (PEM). */
  caPem: string;
  tamper?: Tamper;
  close(): Promise<void>;
}

/**
 * A TLS-terminating proxy with ANOTHER CA on the host side of the victim's veth, relaying to
 * the real API server (verified against the real CA) and optionally tampering cluster-info.
 */
async function startAttackerProxy(
  listen: string,
  upstream: string,
  realCa: string,
): Promise<Proxy> {
  const caKey = await generateKeyPair("ECDSA-P256", webKeys);
  const now = new Date();
  const ca = await newCertificateAuthority(
    {
      commonName: "kubernetes",
      notBefore: new Date(now.getTime() - 3600_000),
      notAfter: new Date(now.getTime() + 86400_000),
    },
    caKey,
    webRandom,
    webCryptoPort,
  );
  const leaf = await newCertAndKey(
    ca.cert,
    caKey,
    {
      commonName: "kube-apiserver",
      ips: [listen],
      usages: ["serverAuth"],
    },
    "ECDSA-P256",
    webRandom,
    webCryptoPort,
  );
  const client = Deno.createHttpClient({ caCerts: [realCa] });
  const proxy: Proxy = {
    endpoint: "",
    caPem: encodeCertificatePEM(ca.cert),
    async close() {
      ac.abort();
      await server.finished;
      client.close();
    },
  };
  const ac = new AbortController();
  let resolvePort: (p: number) => void;
  const port = new Promise<number>((r) => (resolvePort = r));
  const server = Deno.serve({
    hostname: listen,
    port: 0,
    cert: encodeCertificatePEM(leaf.cert),
    key: await encodePrivateKeyPEM(leaf.key),
    signal: ac.signal,
    onListen: ({ port }) => resolvePort(port),
  }, async (req) => {
    const url = new URL(req.url);
    const res = await fetch(
      `https://${upstream}${url.pathname}${url.search}`,
      {
        method: req.method,
        headers: { accept: req.headers.get("accept") ?? "application/json" },
        client,
      } as RequestInit & { client: Deno.HttpClient },
    );
    const body = await res.text();
    if (proxy.tamper && url.pathname === "/api/v1/namespaces/kube-public/configmaps/cluster-info") {
      const cm = JSON.parse(body);
      await proxy.tamper(cm.data);
      return Response.json(cm, { status: res.status });
    }
    return new Response(body, { status: res.status, headers: res.headers });
  });
  proxy.endpoint = `${listen}:${await port}`;
  return proxy;
}

/** A bootstrap token Secret (as `kubeadm token create` makes it). */
function tokenSecret(id: string, secret: string, expiration?: Date) {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Secret",
    type: "bootstrap.kubernetes.io/token",
    metadata: { name: `bootstrap-token-${id}`, namespace: "kube-system" },
    stringData: {
      "token-id": id,
      "token-secret": secret,
      "usage-bootstrap-signing": "true",
      "usage-bootstrap-authentication": "true",
      "auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token",
      ...(expiration ? { expiration: expiration.toISOString().replace(/\.\d+Z$/, "Z") } : {}),
    },
  });
}

Deno.test({
  name: "discovery attacks are refused with a clear error and nothing is written",
  ...e2e,
  async fn(t) {
    const nodes: ClusterNode[] = [];
    let proxy: Proxy | undefined;
    try {
      const cp = await createClusterNode("cp1");
      nodes.push(cp);
      await initControlPlane(cp);
      const endpoint = `${cp.ip}:6443`;
      const realCa = await Deno.readTextFile(cp.path("/etc/kubernetes/pki/ca.crt"));
      const pin = `sha256:${await opensslSpkiSha256(realCa)}`;
      const signature = (id: string) => async () => {
        const r = await cp.kubectl([
          "-n",
          "kube-public",
          "get",
          "cm",
          "cluster-info",
          "-o",
          "json",
        ]);
        return r.code === 0 && Boolean(JSON.parse(r.stdout).data?.[`jws-kubeconfig-${id}`]);
      };
      await waitFor("the signature of token abcdef", signature("abcdef"), 90_000);

      const victim = await createClusterNode("victim", { linkTo: [cp], role: "worker" });
      nodes.push(victim);
      proxy = await startAttackerProxy(victim.hostAddress, endpoint, realCa);

      /** Joins with a JoinConfiguration (10s discovery timeout); returns the result. */
      const join = async (
        name: string,
        discovery: { endpoint: string; token: string; hashes?: string[]; unsafe?: boolean },
      ) => {
        // In the node's TMPDIR: the node sees it, and it is not one of the node's files.
        const cfgFile = await Deno.makeTempFile({
          dir: `${victim.machine.dir}/tmp`,
          prefix: `kts-${name}-`,
          suffix: ".yaml",
        });
        try {
          await Deno.writeTextFile(
            cfgFile,
            `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "${discovery.endpoint}"
    token: "${discovery.token}"
${discovery.hashes ? `    caCertHashes: [${discovery.hashes.map((h) => `"${h}"`).join(", ")}]` : ""}
${discovery.unsafe ? "    unsafeSkipCAVerification: true" : ""}
nodeRegistration:
  name: victim
  ignorePreflightErrors: [${PREFLIGHT_IGNORED_WORKER}]
timeouts:
  discovery: 10s
`,
          );
          const started = Date.now();
          const { result: r, written } = await trackWrites(
            victim,
            () => victim.kubeadm(["join", "--config", cfgFile]),
          );
          assert.equal(victim.machine.services.isActive("kubelet"), false);
          return { ...r, written, seconds: (Date.now() - started) / 1000 };
        } finally {
          await Deno.remove(cfgFile).catch(() => {});
        }
      };

      const refused = (
        r: { code: number; stdout: string; stderr: string; written: string[] },
        pattern: RegExp,
      ) => {
        if (Deno.env.get("KTS_E2E_VERBOSE")) console.log(r.stderr);
        assert.notEqual(r.code, 0, `expected a refusal:\n${r.stdout}\n${r.stderr}`);
        assert.match(r.stderr, pattern, `stderr:\n${r.stderr}`);
        assert.deepEqual(r.written, [], "something was written on the joining node");
        assert.doesNotMatch(r.stdout + r.stderr, /0123456789abcdef/, "the token secret leaked");
      };

      await t.step("a server presenting a different CA (pinned re-fetch fails)", async () => {
        proxy!.tamper = undefined;
        const r = await join("other-ca", {
          endpoint: proxy!.endpoint,
          token: TOKEN,
          hashes: [pin],
        });
        refused(
          r,
          /error execution phase preflight: couldn't validate the identity of the API Server: failed to request the cluster-info ConfigMap: .*(certificate|unknown authority)/,
        );
      });

      await t.step("cluster-info whose kubeconfig was altered", async () => {
        proxy!.tamper = (data) => {
          data.kubeconfig = data.kubeconfig.replace(
            /certificate-authority-data: \S+/,
            `certificate-authority-data: ${embedData(proxy!.caPem)}`,
          ).replace(/server: \S+/, `server: https://${proxy!.endpoint}`);
        };
        const r = await join("tampered", {
          endpoint: proxy!.endpoint,
          token: TOKEN,
          hashes: [pin],
        });
        refused(
          r,
          /couldn't validate the identity of the API Server: failed to verify JWS signature of received cluster info object, can't trust this API Server/,
        );
      });

      await t.step("a signature made with another token", async () => {
        proxy!.tamper = async (data) => {
          data.kubeconfig = data.kubeconfig.replace(
            /server: \S+/,
            `server: https://${proxy!.endpoint}`,
          );
          data["jws-kubeconfig-abcdef"] = await computeDetachedSignature(
            data.kubeconfig,
            "abcdef",
            "attackerssecret0",
            webCryptoPort,
          );
        };
        const r = await join("resigned", {
          endpoint: proxy!.endpoint,
          token: TOKEN,
          unsafe: true,
        });
        refused(r, /failed to verify JWS signature of received cluster info object/);
      });

      await t.step("a missing signature", async () => {
        proxy!.tamper = (data) => {
          delete data["jws-kubeconfig-abcdef"];
        };
        const r = await join("unsigned", {
          endpoint: proxy!.endpoint,
          token: TOKEN,
          hashes: [pin],
        });
        refused(
          r,
          /could not find a JWS signature in the cluster-info ConfigMap for token ID "abcdef"/,
        );
        // It polled (every 5s) instead of giving up at the first answer.
        assert.ok(r.seconds >= 5, `gave up after ${r.seconds}s without polling`);
      });

      await t.step("a wrong CA hash", async () => {
        const wrong = `sha256:${"0".repeat(64)}`;
        const r = await join("wrong-hash", { endpoint, token: TOKEN, hashes: [wrong] });
        refused(
          r,
          /cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "sha256:[0-9a-f]{64}" are pinned/,
        );
      });

      await t.step("an expired token (signature removed by the token cleaner)", async () => {
        const apply = await runStdin(
          cp,
          tokenSecret("exp123", "0123456789abcdef", new Date(Date.now() + 15_000)),
        );
        assert.equal(apply.code, 0, apply.stderr);
        await waitFor("the signature of token exp123", signature("exp123"), 60_000);
        await waitFor(
          "the expired token's signature to go",
          async () => !(await signature("exp123")()),
          90_000,
        );
        const r = await join("expired", {
          endpoint,
          token: "exp123.0123456789abcdef",
          hashes: [pin],
        });
        refused(
          r,
          /could not find a JWS signature in the cluster-info ConfigMap for token ID "exp123"/,
        );
      });

      await t.step("a deleted token", async () => {
        const apply = await runStdin(cp, tokenSecret("del456", "0123456789abcdef"));
        assert.equal(apply.code, 0, apply.stderr);
        await waitFor("the signature of token del456", signature("del456"), 60_000);
        const del = await cp.kubectl([
          "-n",
          "kube-system",
          "delete",
          "secret",
          "bootstrap-token-del456",
        ]);
        assert.equal(del.code, 0, del.stderr);
        await waitFor(
          "the deleted token's signature to go",
          async () => !(await signature("del456")()),
          60_000,
        );
        const r = await join("deleted", {
          endpoint,
          token: "del456.0123456789abcdef",
          hashes: [pin],
        });
        refused(
          r,
          /could not find a JWS signature in the cluster-info ConfigMap for token ID "del456"/,
        );
      });

      await t.step("an invalid token format", async () => {
        const r = await join("bad-format", {
          endpoint,
          token: "ABCDEF.0123456789abcdef",
          hashes: [pin],
        });
        refused(
          r,
          /discovery\.bootstrapToken\.token: Invalid value: .*the bootstrap token is invalid/,
        );
        assert.equal(r.code, 3);
      });
    } finally {
      await proxy?.close();
      await stopAll(nodes);
    }
  },
});

async function runStdin(node: ClusterNode, input: string) {
  return await node.exec([
    `${node.binDir}/kubectl`,
    "--kubeconfig",
    "/etc/kubernetes/admin.conf",
    "apply",
    "-f",
    "-",
  ], { stdin: input });
}
