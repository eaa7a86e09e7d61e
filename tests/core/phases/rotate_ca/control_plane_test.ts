// The whole rotation on a control plane in memory: the PKI `init` writes, a fake kubelet that
// turns manifest writes into Ready mirror Pods (the API server adds ca.crt and
// front-proxy-ca.crt to extension-apiserver-authentication as its controller does, never
// removing a CA; the controller-manager publishes kube-root-ca.crt from ca.crt and signs kubelet
// CSRs with the certificate its manifest names and ca.key), the fake API server, and a worker
// whose Node annotations say how far it got.
import assert from "node:assert/strict";
import type { ConfigMap, Node, Pod } from "kubernetes-types/core/v1.d.ts";
import { runRotateCa } from "../../../../core/phases/rotate_ca/workflow.ts";
import type { RotateCaData } from "../../../../core/phases/rotate_ca/data.ts";
import {
  CLIENT_CA_ANNOTATION,
  CLUSTER_CA,
  controlPlaneAnnotation,
  ETCD_CA,
  FRONT_PROXY_CA,
  kubeconfigTrust,
  type RotatedCA,
  rotationState,
  TRUST_ANNOTATION,
} from "../../../../core/certs/ca_rotation.ts";
import { PkiDirectory } from "../../../../core/certs/pki_dir.ts";
import {
  type RestartContext,
  RESTARTED_AT_ANNOTATION,
} from "../../../../core/controlplane/restart.ts";
import type { PlannedFile } from "../../../../core/ports/files.ts";
import {
  checkSignatureFrom,
  createSignedCert,
  encodeCertificatePEM,
  keyMatchesCertificate,
  parseCertificatesPEM,
} from "../../../../core/pki/cert.ts";
import {
  encodePrivateKeyPEM,
  generateKeyPair,
  parsePrivateKeyPEM,
} from "../../../../core/pki/keys.ts";
import { certificatePin } from "../../../../core/pki/pin.ts";
import { base64Decode } from "../../../../core/text/base64.ts";
import { utf8 } from "../../../../core/text/utf8.ts";
import { staticPodManifestYaml } from "../../../../core/manifests/manifest_file.ts";
import { parseKubeYamlOne } from "../../../../core/yaml/kube_yaml.ts";
import { parseKubeconfig, serializeKubeconfig } from "../../../../core/kubeconfig/kubeconfig.ts";
import { webCryptoPort } from "../../../../adapters/crypto/webcrypto.ts";
import { pkiFixture } from "../../../support/pki_fixture.ts";
import { fakeApiClient, type FakeKubeApi } from "../../../support/fake_kube_api.ts";
import {
  clusterInfoConfigMap,
  CONTROL_PLANE_KUBECONFIGS,
  nodeAuthorizer,
  signKubeletCSRs,
} from "../../../support/ca_rotation.ts";
import { type MemoryFileSystem, MemoryNodeOps } from "../../../support/memory_fs.ts";
import { FakeNodeHost } from "../../../support/fake_node_host.ts";
import { FakeContainerRuntime } from "../../../support/fake_machine.ts";
import { RecordingPrinter } from "../../../support/recording_printer.ts";
import { seededRandom } from "../../../support/fixed_random.ts";
import { webKeys } from "../../../support/platform.ts";

const NODE = "cp1";
const MANIFESTS = "/etc/kubernetes/manifests";
const PKI = "/etc/kubernetes/pki";
const CURRENT = "/var/lib/kubelet/pki/kubelet-client-current.pem";
const SIGNING_FLAG = "--cluster-signing-cert-file=";

function manifest(name: string, port: number, command: string[]): string {
  return staticPodManifestYaml({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "kube-system" },
    spec: {
      containers: [{
        name,
        image: `registry.k8s.io/${name}:v1.37.2`,
        command,
        livenessProbe: { httpGet: { host: "127.0.0.1", port, path: "/healthz", scheme: "HTTPS" } },
      }],
      hostNetwork: true,
    },
  });
}

function readyNode(name: string): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: name === NODE
      ? { name, labels: { "node-role.kubernetes.io/control-plane": "" } }
      : { name },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  };
}

/**
 * What the API server's cluster-authentication-trust controller does on start: adds the CAs of
 * its files to extension-apiserver-authentication's, the ConfigMap's first, without duplicates.
 */
function publishAuthentication(api: FakeKubeApi, fs: MemoryFileSystem): void {
  const existing = api.get<ConfigMap>("ConfigMap", "kube-system", AUTHENTICATION);
  const data: Record<string, string> = { ...existing?.data };
  for (
    const [key, file] of [["client-ca-file", "ca.crt"], [FRONT_PROXY_KEY, "front-proxy-ca.crt"]]
  ) {
    const certs = [data[key], fs.text(`${PKI}/${file}`)!].filter((t) => t).flatMap((t) =>
      parseCertificatesPEM(t!).map((c) => encodeCertificatePEM(c))
    );
    data[key] = [...new Set(certs)].join("");
  }
  api.put({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "kube-system", name: AUTHENTICATION },
    data,
  } as ConfigMap);
}

const AUTHENTICATION = "extension-apiserver-authentication";
const FRONT_PROXY_KEY = "requestheader-client-ca-file";

async function controlPlane(rotated: RotatedCA = CLUSTER_CA) {
  const { files: fs, cfg } = await pkiFixture();
  fs.put(
    `${MANIFESTS}/kube-apiserver.yaml`,
    manifest("kube-apiserver", 6443, ["kube-apiserver", `--client-ca-file=${PKI}/ca.crt`]),
    0o600,
  );
  fs.put(
    `${MANIFESTS}/kube-controller-manager.yaml`,
    manifest("kube-controller-manager", 10257, [
      "kube-controller-manager",
      `${SIGNING_FLAG}${PKI}/ca.crt`,
      `--cluster-signing-key-file=${PKI}/ca.key`,
      `--root-ca-file=${PKI}/ca.crt`,
    ]),
    0o600,
  );
  fs.put(
    `${MANIFESTS}/kube-scheduler.yaml`,
    manifest("kube-scheduler", 10259, ["kube-scheduler"]),
    0o600,
  );
  fs.put(
    `${MANIFESTS}/etcd.yaml`,
    manifest("etcd", 2381, ["etcd", `--trusted-ca-file=${PKI}/etcd/ca.crt`]),
    0o600,
  );
  const oldPem = fs.text(`${PKI}/ca.crt`)!;
  // The kubelet's rotated client certificate, as after `init` (kubelet-finalize).
  const ca = {
    cert: parseCertificatesPEM(oldPem)[0],
    key: await parsePrivateKeyPEM(fs.text(`${PKI}/ca.key`)!, webCryptoPort),
  };
  const kubeletKey = await generateKeyPair("ECDSA-P256", webKeys);
  const kubeletCert = await createSignedCert(
    { commonName: `system:node:${NODE}`, organization: ["system:nodes"], usages: ["clientAuth"] },
    kubeletKey,
    ca.cert,
    ca.key,
    seededRandom(3),
    webCryptoPort,
  );
  fs.put(CURRENT, encodeCertificatePEM(kubeletCert) + await encodePrivateKeyPEM(kubeletKey), 0o600);
  const kubeletConf = parseKubeconfig(fs.text("/etc/kubernetes/kubelet.conf")!, "kubelet.conf");
  kubeletConf.users[0].user = { "client-certificate": CURRENT, "client-key": CURRENT };
  fs.put("/etc/kubernetes/kubelet.conf", serializeKubeconfig(kubeletConf), 0o600);

  const { api, client } = fakeApiClient([
    clusterInfoConfigMap(oldPem),
    readyNode(NODE),
    readyNode("worker1"),
  ]);
  const events: string[] = [];
  /** A component (re)started: the API server and the controller-manager publish what they read. */
  const started = (component: string) => {
    if (component === "kube-apiserver") publishAuthentication(api, fs);
    if (component === "kube-controller-manager") {
      api.put({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: "kube-system", name: "kube-root-ca.crt" },
        data: { "ca.crt": fs.text(`${PKI}/ca.crt`)! },
      } as ConfigMap);
    }
  };
  /** The kubelet: a manifest written runs as a Ready mirror Pod (a new Pod when it changed). */
  const kubelet = (path: string) => {
    const m = /^\/etc\/kubernetes\/manifests\/(.+)\.yaml$/.exec(path);
    if (!m) return;
    const pod = parseKubeYamlOne(fs.text(path)!) as Pod;
    const stamp = pod.metadata?.annotations?.[RESTARTED_AT_ANNOTATION];
    if (stamp) events.push(`restart ${m[1]}`);
    started(m[1]);
    api.put({
      ...pod,
      metadata: { ...pod.metadata, name: `${m[1]}-${NODE}` },
      status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
    } as Pod);
    runtime.runPod("kube-system", `${m[1]}-${NODE}`, m[1], `uid-${m[1]}-${stamp ?? 0}`);
  };
  /** ... and restarts a stopped container in the same Pod. */
  const runtime = new FakeContainerRuntime("unix:///run/containerd/containerd.sock");
  runtime.startNext = (pod) => {
    const component = pod.slice("kube-system/".length, -`-${NODE}`.length);
    events.push(`restart ${component}`);
    started(component);
    return "running";
  };
  for (const name of ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd"]) {
    kubelet(`${MANIFESTS}/${name}.yaml`);
  }
  /** The controller-manager's signer: the certificate its manifest names, and ca.key. */
  signKubeletCSRs(api, async () => {
    const cm = parseKubeYamlOne(fs.text(`${MANIFESTS}/kube-controller-manager.yaml`)!) as Pod;
    const signerPath = cm.spec!.containers[0].command!.find((c) => c.startsWith(SIGNING_FLAG))!
      .slice(SIGNING_FLAG.length);
    const signer = parseCertificatesPEM(fs.text(signerPath)!);
    assert.equal(signer.length, 1, "the controller-manager's signer takes one certificate");
    return {
      cert: signer[0],
      key: await parsePrivateKeyPEM(fs.text(`${PKI}/ca.key`)!, webCryptoPort),
    };
  });
  // The API server's authorizers; TLS to it verifies the certificate apiserver.crt holds now
  // (kube-apiserver reloads its serving certificate when the file changes).
  const authorizer = nodeAuthorizer(
    api,
    client,
    NODE,
    () => Promise.resolve(parseCertificatesPEM(fs.text(`${PKI}/apiserver.crt`)!)[0]),
  );
  const ops = new MemoryNodeOps(fs);
  /** A kill: after `after` more writes the process is gone (every later write fails). */
  const kill = { writes: 0, after: Infinity };
  const alive = () => {
    if (kill.writes++ >= kill.after) throw new Error("killed");
  };
  const files = {
    read: (p: string) => fs.read(p),
    list: (p: string) => fs.list(p),
    async write(f: PlannedFile) {
      alive();
      await fs.write(f);
      kubelet(f.path);
    },
  };
  const out = new RecordingPrinter();
  const node = new FakeNodeHost();
  node.removeFile = (p) => {
    alive();
    return ops.removeFile(p);
  };
  const ctx = (): RestartContext => ({
    files,
    node: {
      ensureDir: (p) => ops.ensureDir(p),
      removeFile: (p) => ops.removeFile(p),
      async copyTree(from, to) {
        alive();
        await ops.copyTree(from, to);
        kubelet(to);
      },
    },
    kubernetesDir: "/etc/kubernetes",
    manifestDir: MANIFESTS,
    nodeName: NODE,
    client,
    runtime,
    health: { get: () => Promise.resolve({ status: 200 }) },
    timeoutMs: 60_000,
    out,
    now: new Date(),
  });
  node.symlink = (target, path) => {
    alive();
    fs.put(path, fs.text(`${path.slice(0, path.lastIndexOf("/"))}/${target}`)!, 0o600);
    return Promise.resolve();
  };
  const data: RotateCaData = {
    out,
    ca: rotated,
    dryRun: false,
    cfg,
    pki: new PkiDirectory(files, PKI, webCryptoPort),
    kubernetesDir: "/etc/kubernetes",
    node,
    random: seededRandom(5),
    now: new Date("2026-06-01T00:00:00Z"),
    nodeName: NODE,
    controlPlane: () => Promise.resolve({ value: ctx(), close: () => {} }),
    kubelet: authorizer.kubelet,
    anonymous: authorizer.anonymous,
    timing: client.timing,
    timeoutMs: 60_000,
  };
  return { fs, api, data, events, oldPem, kill, out };
}

const pem = (text: string) => encodeCertificatePEM(parseCertificatesPEM(text));
const trustOf = (text: string) =>
  kubeconfigTrust(parseKubeconfig(text, "kubeconfig", { clientcmd: true }));

Deno.test("rotate-ca on a control plane: stops for the worker twice, resumes, ends trusting only the new CA", async () => {
  const { fs, api, data, events, oldPem } = await controlPlane();
  const annotate = (annotations: Record<string, string>) =>
    api.put({
      ...readyNode("worker1"),
      metadata: { name: "worker1", annotations },
    } as Node);

  // 1. prepare and trust; reissue waits for worker1.
  await assert.rejects(runRotateCa(data), /Node worker1 does not trust the new CA yet/);
  const state = await rotationState(data.pki);
  assert.equal(state.stage, "trusted");
  assert.equal(state.trustDone, true);
  const newPem = encodeCertificatePEM(state.newCA!);
  const both = pem(oldPem + newPem);
  assert.equal(fs.text(`${PKI}/ca.crt`), both);
  for (const f of CONTROL_PLANE_KUBECONFIGS) {
    assert.equal(trustOf(fs.text(`/etc/kubernetes/${f}`)!), both, f);
  }
  const info = () =>
    trustOf(api.get<ConfigMap>("ConfigMap", "kube-public", "cluster-info")!.data!.kubeconfig);
  assert.equal(info(), both);
  assert.equal(pem(fs.text(`${PKI}/ca-rotation/signer.crt`)!), pem(oldPem));
  assert.deepEqual(events, [
    "restart kube-apiserver",
    "restart kube-controller-manager",
    "restart kube-scheduler",
  ]);
  const cp1 = () => api.get<Node>("Node", undefined, NODE)!.metadata!.annotations!;
  const CONTROL_PLANE_ANNOTATION = controlPlaneAnnotation(CLUSTER_CA);
  const oldPin = await certificatePin(parseCertificatesPEM(oldPem)[0], webCryptoPort);
  const newPin = await certificatePin(state.newCA!, webCryptoPort);
  assert.equal(cp1()[TRUST_ANNOTATION], `${oldPin},${newPin}`);
  assert.equal(cp1()[CLIENT_CA_ANNOTATION], oldPin);
  assert.equal(cp1()[CONTROL_PLANE_ANNOTATION], `trust:${newPin}`);

  // 2. worker1 trusts both: reissue runs; finish waits for worker1's client certificate.
  events.length = 0;
  annotate({ [TRUST_ANNOTATION]: `${oldPin},${newPin}`, [CLIENT_CA_ANNOTATION]: oldPin });
  await assert.rejects(
    runRotateCa(data),
    /Node worker1 does not have a kubelet client certificate from the new CA yet/,
  );
  assert.deepEqual(events, [
    "restart kube-apiserver",
    "restart kube-controller-manager",
    "restart kube-scheduler",
  ]);
  const newCA = state.newCA!;
  assert.equal(fs.text(`${PKI}/ca.crt`), pem(newPem + oldPem));
  for (const leaf of ["apiserver", "apiserver-kubelet-client"]) {
    const cert = parseCertificatesPEM(fs.text(`${PKI}/${leaf}.crt`)!)[0];
    assert.ok(await checkSignatureFrom(cert, newCA, webCryptoPort), leaf);
  }
  const adminCert = parseKubeconfig(fs.text("/etc/kubernetes/admin.conf")!, "admin.conf").users[0]
    .user[
      "client-certificate-data"
    ]!;
  assert.ok(
    await checkSignatureFrom(
      parseCertificatesPEM(utf8(base64Decode(adminCert)))[0],
      newCA,
      webCryptoPort,
    ),
  );
  assert.equal(info(), pem(newPem + oldPem));
  assert.equal(
    cp1()[CLIENT_CA_ANNOTATION],
    newPin,
    "this node's kubelet has a certificate of the new CA",
  );
  assert.ok(
    await checkSignatureFrom(parseCertificatesPEM(fs.text(CURRENT)!)[0], newCA, webCryptoPort),
  );

  // 3. worker1's kubelet has one too: finish.
  events.length = 0;
  annotate({ [TRUST_ANNOTATION]: `${newPin},${oldPin}`, [CLIENT_CA_ANNOTATION]: newPin });
  await runRotateCa(data);
  const only = pem(newPem);
  assert.equal(fs.text(`${PKI}/ca.crt`), only);
  for (const f of CONTROL_PLANE_KUBECONFIGS) {
    assert.equal(trustOf(fs.text(`/etc/kubernetes/${f}`)!), only, f);
  }
  assert.equal(info(), only);
  const cm = parseKubeYamlOne(fs.text(`${MANIFESTS}/kube-controller-manager.yaml`)!) as Pod;
  assert.ok(cm.spec!.containers[0].command!.includes(`${SIGNING_FLAG}${PKI}/ca.crt`));
  assert.equal(
    await fs.read(`${PKI}/ca-rotation/new-ca.key`),
    undefined,
    "the rotation folder is gone",
  );
  assert.equal(
    api.get<ConfigMap>("ConfigMap", "kube-system", "kube-root-ca.crt")!.data!["ca.crt"],
    only,
  );
  // The API server only ever added the new CA to what aggregated API servers read: finish cut
  // the old one out.
  assert.equal(
    api.get<ConfigMap>("ConfigMap", "kube-system", AUTHENTICATION)!.data!["client-ca-file"],
    only,
  );
  assert.equal(cp1()[CONTROL_PLANE_ANNOTATION], `finish:${newPin}`);
  assert.equal((await rotationState(data.pki)).stage, "none");
});

Deno.test("rotate-ca reissue before another control plane's: this kubelet keeps its client certificate and runs on until node, which takes one from the new CA", async () => {
  const { fs, api, data, out } = await controlPlane();
  const restarts = () => (data.node as FakeNodeHost).machine.init!.restarted.length;
  const CONTROL_PLANE_ANNOTATION = controlPlaneAnnotation(CLUSTER_CA);
  const put = (name: string, annotations: Record<string, string>, controlPlane = false) =>
    api.put({
      ...readyNode(name),
      metadata: {
        name,
        annotations,
        ...(controlPlane ? { labels: { "node-role.kubernetes.io/control-plane": "" } } : {}),
      },
    } as Node);
  put("cp2", {}, true);

  // prepare and trust on cp1; reissue waits for cp2's trust.
  await assert.rejects(
    runRotateCa(data),
    /Node cp2 does not trust the new CA on its control plane yet/,
  );
  const state = await rotationState(data.pki);
  const oldPin = await certificatePin(state.oldCA, webCryptoPort);
  const newPin = await certificatePin(state.newCA!, webCryptoPort);
  const both = `${oldPin},${newPin}`;
  put("cp2", {
    [CONTROL_PLANE_ANNOTATION]: `trust:${newPin}`,
    [TRUST_ANNOTATION]: both,
    [CLIENT_CA_ANNOTATION]: oldPin,
  }, true);
  put("worker1", { [TRUST_ANNOTATION]: both, [CLIENT_CA_ANNOTATION]: oldPin });

  // reissue on cp1, cp2 still to reissue: the kubelet is neither asked for a certificate nor
  // restarted; finish waits for cp2.
  const kubeletCert = fs.text(CURRENT);
  const before = restarts();
  const csrs = () => api.calls().filter((c) => c.includes("certificatesigningrequests")).length;
  const csrsBefore = csrs();
  await assert.rejects(
    runRotateCa(data),
    /Node cp2 does not sign with the new CA on its control plane yet/,
  );
  assert.equal((await rotationState(data.pki)).reissueDone, true);
  assert.equal(restarts(), before, "the kubelet was not restarted");
  assert.equal(fs.text(CURRENT), kubeletCert);
  assert.equal(csrs(), csrsBefore, "no certificate requested");
  const cp1 = () => api.get<Node>("Node", undefined, NODE)!.metadata!.annotations!;
  assert.equal(cp1()[CLIENT_CA_ANNOTATION], oldPin);
  assert.equal(cp1()[CONTROL_PLANE_ANNOTATION], `reissue:${newPin}`);
  assert.match(
    out.lines.join("\n"),
    /Run "kubeadm certs rotate-ca phase reissue" on cp2, then "kubeadm certs rotate-ca phase node" on every node, this one too/,
  );

  // cp2 reissued: node on cp1 takes a certificate of the new CA, restarting the kubelet once.
  put("cp2", {
    [CONTROL_PLANE_ANNOTATION]: `reissue:${newPin}`,
    [TRUST_ANNOTATION]: `${newPin},${oldPin}`,
    [CLIENT_CA_ANNOTATION]: newPin,
  }, true);
  await runRotateCa(data, { only: "node" });
  assert.equal(restarts(), before + 1);
  assert.ok(
    await checkSignatureFrom(
      parseCertificatesPEM(fs.text(CURRENT)!)[0],
      state.newCA!,
      webCryptoPort,
    ),
  );
  assert.equal(cp1()[CLIENT_CA_ANNOTATION], newPin);
});

/** Runs the rotation to its end, the worker catching up whenever the run stops for it. */
async function rotateToTheEnd(h: Awaited<ReturnType<typeof controlPlane>>): Promise<void> {
  for (let attempt = 0; attempt < 8; attempt++) {
    try {
      await runRotateCa(h.data);
    } catch (e) {
      if (!/Node worker1 does not/.test(String(e))) throw e;
    }
    const state = await rotationState(h.data.pki);
    if (state.stage === "none" && attempt > 0) return;
    // worker1 does what "rotate-ca phase node" does: takes the published trust and signer.
    const info = trustOf(
      h.api.get<ConfigMap>("ConfigMap", "kube-public", "cluster-info")!.data!.kubeconfig,
    )!;
    const pins = await Promise.all(
      parseCertificatesPEM(info).map((c) => certificatePin(c, webCryptoPort)),
    );
    h.api.put({
      ...readyNode("worker1"),
      metadata: {
        name: "worker1",
        annotations: { [TRUST_ANNOTATION]: pins.join(","), [CLIENT_CA_ANNOTATION]: pins[0] },
      },
    } as Node);
  }
  assert.fail("the rotation did not end");
}

Deno.test("rotate-ca killed after any write and run again ends trusting only the new CA", async () => {
  // How many writes a whole rotation makes.
  const clean = await controlPlane();
  await rotateToTheEnd(clean);
  const total = clean.kill.writes;
  assert.ok(total > 20, `${total} writes`);
  for (let k = 0; k < total; k++) {
    const h = await controlPlane();
    h.kill.after = k;
    await rotateToTheEnd(h).then(
      () => assert.fail(`killed after ${k} writes, the run did not notice`),
      (e) => assert.match(String(e), /killed/),
    );
    h.kill.after = Infinity;
    await rotateToTheEnd(h);
    const ca = parseCertificatesPEM(h.fs.text(`${PKI}/ca.crt`)!);
    assert.equal(ca.length, 1, `killed after ${k} writes: ca.crt holds one CA`);
    assert.notEqual(encodeCertificatePEM(ca), pem(h.oldPem), `killed after ${k}: rotated`);
    for (const f of ["admin.conf", "controller-manager.conf", "scheduler.conf", "kubelet.conf"]) {
      assert.equal(
        trustOf(h.fs.text(`/etc/kubernetes/${f}`)!),
        encodeCertificatePEM(ca),
        `${k} ${f}`,
      );
    }
    const cm = parseKubeYamlOne(h.fs.text(`${MANIFESTS}/kube-controller-manager.yaml`)!) as Pod;
    assert.ok(cm.spec!.containers[0].command!.includes(`${SIGNING_FLAG}${PKI}/ca.crt`), `${k}`);
    for (const leaf of ["apiserver", "apiserver-kubelet-client"]) {
      const cert = parseCertificatesPEM(h.fs.text(`${PKI}/${leaf}.crt`)!)[0];
      assert.ok(await checkSignatureFrom(cert, ca[0], webCryptoPort), `${k} ${leaf}`);
    }
    assert.deepEqual(backups(h.fs), [], `killed after ${k} writes: no backup (old keys) left`);
  }
});

/** What is left in /etc/kubernetes/tmp (the restarts' backups hold old keys: the old CA's too). */
function backups(fs: MemoryFileSystem): string[] {
  return [...fs.files.keys()].filter((p) => p.startsWith("/etc/kubernetes/tmp/"));
}

/** What a front-proxy-ca or etcd-ca rotation must leave as it is: the cluster CA's files and trust. */
function clusterCaFiles(fs: MemoryFileSystem): string[] {
  return [
    `${PKI}/ca.crt`,
    `${PKI}/ca.key`,
    `${PKI}/apiserver.crt`,
    CURRENT,
    `${MANIFESTS}/kube-scheduler.yaml`,
    ...CONTROL_PLANE_KUBECONFIGS.map((f) => `/etc/kubernetes/${f}`),
  ].map((p) => `${p}\n${fs.text(p)}`);
}

/** A CA only the control plane reads, as these tests see it. */
interface ControlPlaneCA {
  ca: RotatedCA;
  /** The leaves it signs. */
  leaves: string[];
  /** Its restarts at each stage, in order. */
  restarts: string[];
  /** The key of extension-apiserver-authentication the API server publishes it in. */
  published?: string;
}

const CONTROL_PLANE_CAS: ControlPlaneCA[] = [
  {
    ca: FRONT_PROXY_CA,
    leaves: ["front-proxy-client"],
    restarts: ["restart kube-apiserver", "restart kube-controller-manager"],
    published: FRONT_PROXY_KEY,
  },
  {
    ca: ETCD_CA,
    leaves: ["etcd/server", "etcd/peer", "etcd/healthcheck-client", "apiserver-etcd-client"],
    restarts: ["restart kube-apiserver", "restart etcd"],
  },
];

/** What the API server publishes of a CA for aggregated API servers, as PEM. */
function published(api: FakeKubeApi, key: string): string {
  return api.get<ConfigMap>("ConfigMap", "kube-system", AUTHENTICATION)!.data![key];
}

/** Whether the leaf `name` is signed by `ca` (PEM). */
async function signedBy(fs: MemoryFileSystem, name: string, ca: string): Promise<boolean> {
  return await checkSignatureFrom(
    parseCertificatesPEM(fs.text(`${PKI}/${name}.crt`)!)[0],
    parseCertificatesPEM(ca)[0],
    webCryptoPort,
  );
}

/** Checks the end of a rotation of `t.ca`: the new CA alone, its key, its leaves. */
async function assertRotated(
  h: Awaited<ReturnType<typeof controlPlane>>,
  t: ControlPlaneCA,
  oldPem: string,
  why: string,
) {
  const { ca } = t;
  const text = h.fs.text(`${PKI}/${ca.baseName}.crt`)!;
  const certs = parseCertificatesPEM(text);
  assert.equal(certs.length, 1, `${why}: ${ca.baseName}.crt holds one CA`);
  assert.notEqual(text, pem(oldPem), `${why}: rotated`);
  const key = await parsePrivateKeyPEM(h.fs.text(`${PKI}/${ca.baseName}.key`)!, webCryptoPort);
  assert.ok(await keyMatchesCertificate(key, certs[0]), `${why}: ${ca.baseName}.key is its key`);
  for (const leaf of t.leaves) assert.ok(await signedBy(h.fs, leaf, text), `${why}: ${leaf}`);
  if (t.published) assert.equal(published(h.api, t.published), text, `${why}: published alone`);
  assert.equal(await h.fs.read(`${PKI}/${ca.dir}/new-ca.key`), undefined, why);
  assert.equal((await rotationState(h.data.pki, ca)).stage, "none", why);
}

for (const t of CONTROL_PLANE_CAS) {
  const { ca } = t;
  Deno.test(`rotate-ca --ca ${ca.name} phase by phase: each stage's files, restarts and published trust; each phase run again does nothing more`, async () => {
    const h = await controlPlane(ca);
    const { fs, api, data, events } = h;
    const oldPem = fs.text(`${PKI}/${ca.baseName}.crt`)!;
    const clusterCA = clusterCaFiles(fs);
    const cmCommand = () =>
      (parseKubeYamlOne(fs.text(`${MANIFESTS}/kube-controller-manager.yaml`)!) as Pod).spec!
        .containers[0].command;
    const command = cmCommand();
    if (t.published) assert.equal(published(api, t.published), pem(oldPem));
    const phase = async (only: string) => {
      events.length = 0;
      await runRotateCa(data, { only });
      return [...events];
    };

    assert.deepEqual(await phase("prepare"), []);
    const state = await rotationState(data.pki, ca);
    assert.equal(state.stage, "prepared");
    const newPem = encodeCertificatePEM(state.newCA!);
    assert.equal(state.newCA!.subject.commonName, ca.name);
    assert.equal(fs.files.get(`${PKI}/${ca.dir}/new-ca.key`)?.mode, 0o600);
    assert.deepEqual(await phase("prepare"), []);
    assert.equal(encodeCertificatePEM((await rotationState(data.pki, ca)).newCA!), newPem);

    // trust: both trusted, the old one still signs the leaves.
    assert.deepEqual(await phase("trust"), t.restarts);
    assert.equal(fs.text(`${PKI}/${ca.baseName}.crt`), pem(oldPem + newPem));
    if (t.published) assert.equal(published(api, t.published), pem(oldPem + newPem));
    for (const leaf of t.leaves) assert.ok(await signedBy(fs, leaf, oldPem), leaf);
    assert.deepEqual(await phase("trust"), [], "trust: done already");
    const pin = await certificatePin(state.newCA!, webCryptoPort);
    const cp1 = () => api.get<Node>("Node", undefined, NODE)!.metadata!.annotations!;
    assert.equal(cp1()[controlPlaneAnnotation(ca)], `trust:${pin}`);

    // reissue: the new CA signs the leaves (worker1 records nothing: not asked).
    assert.deepEqual(await phase("reissue"), t.restarts);
    assert.equal(fs.text(`${PKI}/${ca.baseName}.crt`), pem(newPem + oldPem));
    for (const leaf of t.leaves) assert.ok(await signedBy(fs, leaf, newPem), leaf);
    assert.deepEqual(await phase("reissue"), [], "reissue: done already");

    // finish: the new CA alone, also in what the API server publishes.
    assert.deepEqual(await phase("finish"), t.restarts);
    await assertRotated(h, t, oldPem, "finish");
    assert.equal(cp1()[controlPlaneAnnotation(ca)], `finish:${pin}`);
    assert.deepEqual(await phase("finish"), [], "finish: nothing at stage none");

    assert.deepEqual(clusterCaFiles(fs), clusterCA, "the cluster CA's files are as they were");
    assert.deepEqual(cmCommand(), command, "the controller-manager's signer is as it was");
    const worker = api.get<Node>("Node", undefined, "worker1")!;
    assert.equal(worker.metadata?.annotations, undefined, "no node took part");
    if (t.published) {
      assert.ok(
        h.out.lines.some((l) => l.includes(`${t.published} carries both CAs`)),
        h.out.lines.join("\n"),
      );
    }
  });

  Deno.test(`rotate-ca --ca ${ca.name} killed after any write and run again ends with the new CA alone`, async () => {
    const clean = await controlPlane(ca);
    const oldPem = clean.fs.text(`${PKI}/${ca.baseName}.crt`)!;
    await runRotateCa(clean.data);
    await assertRotated(clean, t, oldPem, "whole run");
    const total = clean.kill.writes;
    assert.ok(total > 8, `${total} writes`);
    for (let k = 0; k < total; k++) {
      const h = await controlPlane(ca);
      const clusterCA = clusterCaFiles(h.fs);
      h.kill.after = k;
      await assert.rejects(runRotateCa(h.data), /killed/, `killed after ${k} writes`);
      h.kill.after = Infinity;
      await runRotateCa(h.data);
      await assertRotated(h, t, oldPem, `killed after ${k} writes`);
      assert.deepEqual(clusterCaFiles(h.fs), clusterCA, `killed after ${k} writes: cluster CA`);
      assert.deepEqual(backups(h.fs), [], `killed after ${k} writes: no backup (old keys) left`);
    }
  });
}
