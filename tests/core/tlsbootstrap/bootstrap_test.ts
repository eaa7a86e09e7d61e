// The kubelet's TLS bootstrap over the core ports, against the in-memory API server with a fake
// "controller-manager" that approves and signs CSRs like csrapprover + csrsigner.
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../../support/platform.ts";
import assert from "node:assert/strict";
import { KubeClient, type KubeObject } from "../../../core/kube/client.ts";
import { webRandom } from "../../../adapters/web/random.ts";
import {
  createSignedCert,
  encodeCertificatePEM,
  parseCertificatesPEM,
} from "../../../core/pki/cert.ts";
import { newCertificateAuthority } from "../../support/test_pki.ts";
import { parseCSR } from "../../../core/pki/csr.ts";
import { generateKeyPair } from "../../../core/pki/keys.ts";
import { decodePem } from "../../../core/pki/pem.ts";
import { base64Decode, base64Encode } from "../../../core/text/base64.ts";
import {
  createKubeconfigWithToken,
  serializeKubeconfig,
} from "../../../core/kubeconfig/kubeconfig.ts";
import { parseKubeYamlOne } from "../../../core/yaml/kube_yaml.ts";
import {
  type CertificateSigningRequest,
  requestNodeClientCertificate,
} from "../../../core/tlsbootstrap/request.ts";
import { KUBELET_CLIENT_PEM, KUBELET_CONF } from "../../../core/tlsbootstrap/kubelet_conf.ts";
import { kubeletCsrName } from "../../../core/tlsbootstrap/csr_name.ts";
import { runKubeletTlsBootstrap } from "../../../core/tlsbootstrap/bootstrap.ts";
import { FakeKubeApi } from "../../support/fake_kube_api.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { MemoryFileSystem } from "../../support/memory_fs.ts";
import { failedWait, silentApiClient } from "../../support/silent_peer.ts";

const CSR_PATH = "/apis/certificates.k8s.io/v1/certificatesigningrequests";

async function clusterCA() {
  const key = await generateKeyPair("ECDSA-P256", webKeys);
  const now = new Date();
  return await newCertificateAuthority(
    {
      commonName: "kubernetes",
      notBefore: new Date(now.getTime() - 60_000),
      notAfter: new Date(now.getTime() + 86400_000),
    },
    key,
    webRandom,
    webCryptoPort,
  );
}

/** Approves (or denies) and signs every CSR on its second read, like the real controllers. */
function controller(
  api: FakeKubeApi,
  ca: Awaited<ReturnType<typeof clusterCA>>,
  verdict: "approve" | "deny" = "approve",
) {
  let reads = 0;
  api.onRequest = async (r, a) => {
    if (r.method !== "GET" || !r.path.startsWith(`${CSR_PATH}/`)) return;
    if (++reads < 2) return;
    const name = r.path.split("/").pop()!;
    const csr = a.get<CertificateSigningRequest & KubeObject>(
      "CertificateSigningRequest",
      undefined,
      name,
    );
    if (!csr || csr.status?.conditions?.length) return;
    if (verdict === "deny") {
      a.put({
        ...csr,
        status: {
          conditions: [{ type: "Denied", status: "True", reason: "Nope", message: "not you" }],
        },
      } as KubeObject);
      return;
    }
    const req = parseCSR(new TextDecoder().decode(base64Decode(csr.spec.request)));
    const cert = await createSignedCert(
      {
        commonName: req.subject.commonName ?? "",
        organization: req.subject.organization,
        usages: ["clientAuth"],
      },
      req.spki,
      ca.cert,
      ca.key,
      webRandom,
      webCryptoPort,
    );
    a.put({
      ...csr,
      status: {
        conditions: [{ type: "Approved", status: "True", reason: "AutoApproved" }],
        certificate: base64Encode(new TextEncoder().encode(encodeCertificatePEM(cert))),
      },
    } as KubeObject);
  };
}

/** The key a kubelet certifies (it makes an ECDSA P-256 key). */
function kubeletKey() {
  return generateKeyPair({ type: "ECDSA", namedCurve: "P-256" }, webKeys);
}

Deno.test("the bootstrap sends the kubelet's CSR and writes kubelet.conf + the pem", async () => {
  const ca = await clusterCA();
  const api = new FakeKubeApi();
  controller(api, ca);
  const caPem = encodeCertificatePEM(ca.cert);
  const files = new MemoryFileSystem({
    "/etc/kubernetes/bootstrap-kubelet.conf": serializeKubeconfig(
      createKubeconfigWithToken(
        "https://10.0.0.1:6443",
        "kubernetes",
        "tls-bootstrap-token-user",
        caPem,
        "abcdef.0123456789abcdef",
      ),
      { nullEmptyLists: true },
    ),
  });
  const clock = new FakeClock();
  const result = await runKubeletTlsBootstrap({
    files,
    nodeName: "worker-1",
    key: await kubeletKey(),
    transportFor: (params) => {
      assert.equal(params.server, "https://10.0.0.1:6443");
      assert.equal(params.caPem, caPem);
      return api.transport;
    },
    clock,
    sleep: clock.sleep,
  });

  const post = api.requests.find((r) => r.method === "POST" && r.path === CSR_PATH)!;
  assert.equal(post.headers.get("authorization"), null, "the fake transport adds no header");
  const sent = post.body as CertificateSigningRequest;
  assert.equal(sent.spec.signerName, "kubernetes.io/kube-apiserver-client-kubelet");
  assert.deepEqual(sent.spec.usages, ["digital signature", "client auth"]);
  const req = parseCSR(new TextDecoder().decode(base64Decode(sent.spec.request)));
  assert.equal(req.subject.commonName, "system:node:worker-1");
  assert.deepEqual(req.subject.organization, ["system:nodes"]);
  assert.deepEqual(req.dnsNames ?? [], []);
  assert.equal(
    sent.metadata?.name,
    kubeletCsrName(req.spki, "system:node:worker-1", ["system:nodes"], sent.spec.usages!),
  );
  assert.equal(result.csrName, sent.metadata?.name);
  assert.deepEqual(result.written, [KUBELET_CLIENT_PEM, KUBELET_CONF]);

  const pem = files.text(KUBELET_CLIENT_PEM)!;
  assert.deepEqual(decodePem(pem).map((b) => b.type), ["CERTIFICATE", "EC PRIVATE KEY"]);
  assert.equal(files.files.get(KUBELET_CLIENT_PEM)!.mode, 0o600);
  assert.equal(parseCertificatesPEM(pem)[0].subject.commonName, "system:node:worker-1");
  const conf = parseKubeYamlOne(files.text(KUBELET_CONF)!) as Record<string, unknown>;
  assert.deepEqual(conf, {
    apiVersion: "v1",
    clusters: [{
      cluster: {
        "certificate-authority-data": base64Encode(new TextEncoder().encode(caPem)),
        server: "https://10.0.0.1:6443",
      },
      name: "default-cluster",
    }],
    contexts: [{
      context: { cluster: "default-cluster", namespace: "default", user: "default-auth" },
      name: "default-context",
    }],
    "current-context": "default-context",
    kind: "Config",
    users: [{
      name: "default-auth",
      user: { "client-certificate": KUBELET_CLIENT_PEM, "client-key": KUBELET_CLIENT_PEM },
    }],
  });
});

Deno.test("a denied CSR fails with the reason", async () => {
  const ca = await clusterCA();
  const api = new FakeKubeApi();
  controller(api, ca, "deny");
  const clock = new FakeClock();
  const client = new KubeClient({
    server: "https://x",
    transport: api.transport,
    clock,
    sleep: clock.sleep,
  });
  const key = await kubeletKey();
  await assert.rejects(
    () => requestNodeClientCertificate({ client, nodeName: "n1", key, clock, sleep: clock.sleep }),
    /certificate signing request is denied, reason: Nope, message: not you/,
  );
});

Deno.test("an unsigned CSR times out with a clear error, at the wait's timeout even when reads hang", async () => {
  const cases: [string, (r: Request) => boolean, RegExp][] = [
    [
      "never approved",
      () => false,
      /^KubeadmError: certificate request was not signed: certificate signing request "node-csr-[^"]+" is not approved yet$/,
    ],
    [
      // The CSR is sent; every read of it afterwards hangs.
      "reads hang",
      (r) => r.method === "GET",
      /^KubeadmError: certificate request was not signed: the wait's timeout of 10s ran out during its last attempt: unable to get CertificateSigningRequest node-csr-/,
    ],
  ];
  for (const [name, hang, message] of cases) {
    const api = new FakeKubeApi();
    const { clock, client } = silentApiClient(hang, api.transport);
    const key = await kubeletKey();
    const { error, elapsedMs } = await failedWait(clock, () =>
      requestNodeClientCertificate({
        client,
        nodeName: "n1",
        key,
        clock,
        sleep: clock.sleep,
        timeoutMs: 10_000,
      }));
    assert.equal(elapsedMs, 10_000, `${name}: not 10s + the client's 1m of retries`);
    assert.match(error, message, name);
  }
});

Deno.test("a retried bootstrap with the same key reuses its CSR; another key is refused", async () => {
  const ca = await clusterCA();
  const api = new FakeKubeApi();
  const clock = new FakeClock();
  const client = new KubeClient({
    server: "https://x",
    transport: api.transport,
    clock,
    sleep: clock.sleep,
  });
  const key = await generateKeyPair({ type: "ECDSA", namedCurve: "P-256" }, webKeys);
  await assert.rejects(() =>
    requestNodeClientCertificate({
      client,
      nodeName: "n1",
      key,
      clock,
      sleep: clock.sleep,
      timeoutMs: 2000,
    })
  );
  controller(api, ca);
  const issued = await requestNodeClientCertificate({
    client,
    nodeName: "n1",
    key,
    clock,
    sleep: clock.sleep,
  });
  assert.equal(
    api.requests.filter((r) => r.method === "POST" && r.path === CSR_PATH).length,
    2,
    "the second create hit AlreadyExists and the existing CSR was reused",
  );
  assert.match(issued.certPem, /BEGIN CERTIFICATE/);
  // A CSR under the same name that asks for something else is refused.
  const stored = api.get<CertificateSigningRequest & KubeObject>(
    "CertificateSigningRequest",
    undefined,
    issued.csrName,
  )!;
  api.put({ ...stored, spec: { ...stored.spec, signerName: "example.com/other" } } as KubeObject);
  await assert.rejects(
    () => requestNodeClientCertificate({ client, nodeName: "n1", key, clock, sleep: clock.sleep }),
    /retrieved csr is not compatible: csr signerNames differ/,
  );
});
