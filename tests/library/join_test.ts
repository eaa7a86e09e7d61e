// planWorker / planControlPlaneJoin: kubeadm's join workflow against the cluster's objects,
// with real token discovery (JWS and CA pin) and, for a control plane, kubeadm-certs.
import { webCryptoPort } from "../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import { planControlPlane } from "../../library/control_plane.ts";
import { planControlPlaneJoin, planWorker } from "../../library/join.ts";
import { withBootstrapSignatures } from "../../adapters/offline/cluster.ts";
import { seededRandom } from "../../adapters/offline/random.ts";
import { KubeadmError } from "../../core/errors.ts";
import { parseCertificatesPEM } from "../../core/pki/cert.ts";
import { parseKubeconfig } from "../../core/kubeconfig/kubeconfig.ts";

const clock = { now: () => new Date("2026-02-01T00:00:00Z") };
const CONFIG = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n" +
  "encryptionAlgorithm: ECDSA-P256\ncontrolPlaneEndpoint: lb.example.test:6443\n";
const cp = await planControlPlane({
  config: CONFIG,
  uploadCerts: true,
  host: { hostname: "cp1", advertiseAddress: "192.0.2.10" },
  random: seededRandom("join-tests"),
  clock,
});
const workerHost = { hostname: "w1", advertiseAddress: "192.0.2.21" };
const file = (files: { path: string; content: string }[], path: string) =>
  files.find((f) => f.path === path)?.content;

function rejectsWith(re: RegExp) {
  return (e: unknown) => {
    const text = e instanceof Error ? `${e.message} ${String((e as Error).cause ?? "")}` : "";
    return e instanceof KubeadmError && re.test(text);
  };
}

Deno.test("a worker plan: discovery trusts the control plane's CA, files are join's", async () => {
  const w = await planWorker({ cluster: cp, host: workerHost, random: seededRandom("w"), clock });
  assert.equal(
    file(w.files, "/etc/kubernetes/pki/ca.crt"),
    file(cp.files, "/etc/kubernetes/pki/ca.crt"),
  );
  const boot = parseKubeconfig(file(w.files, "/etc/kubernetes/bootstrap-kubelet.conf")!, "b");
  assert.equal(boot.clusters[0].cluster.server, "https://lb.example.test:6443");
  assert.equal(boot.users[0].user.token, cp.token);
  assert.match(file(w.files, "/var/lib/kubelet/kubeadm-flags.env")!, /^KUBELET_KUBEADM_ARGS="/);
  // Brought up by `kubeadm join` (its discovery waits for the cluster), the planned files'
  // own FileAvailable checks ignored; the configuration has the discovery, not the plan's keys.
  assert.deepEqual(w.bringUp.commands, [[
    "kubeadm",
    "join",
    "--config",
    "/run/kubeadm/join.yaml",
    "--ignore-preflight-errors=FileAvailable--etc-kubernetes-bootstrap-kubelet.conf," +
    "FileAvailable--etc-kubernetes-pki-ca.crt",
  ]]);
  assert.deepEqual(w.bringUp.files.map((f) => [f.path, f.mode]), [[
    "/run/kubeadm/join.yaml",
    0o600,
  ]]);
  const joinConfig = w.bringUp.files[0].content as string;
  assert.match(joinConfig, /kind: JoinConfiguration/);
  assert.match(joinConfig, new RegExp(`token: ${cp.token}`));
  assert.match(joinConfig, new RegExp(`- ${cp.caCertHash}`));
  assert.doesNotMatch(joinConfig, /controlPlane:/);
  assert.ok(w.log.includes("[kubelet-start] Would start the kubelet"), w.log.join("\n"));
});

Deno.test("a worker plan refuses a wrong CA pin and a token cluster-info is not signed for", async () => {
  await assert.rejects(
    () =>
      planWorker({
        cluster: cp,
        host: workerHost,
        caCertHashes: [`sha256:${"0".repeat(64)}`],
        clock,
      }),
    rejectsWith(/none of the public keys .* are pinned/),
  );
  await assert.rejects(
    () => planWorker({ cluster: cp, host: workerHost, token: "zzzzzz.0123456789abcdef", clock }),
    rejectsWith(/zzzzzz/),
  );
});

Deno.test("a worker plan from a live cluster's objects (cluster-info already signed)", async () => {
  // What a caller fetches from a running cluster: its ConfigMaps, cluster-info signed by the
  // bootstrap signer; no Secrets.
  const live = (await withBootstrapSignatures(cp.objects, webCryptoPort)).filter((o) =>
    o.kind === "ConfigMap"
  );
  const w = await planWorker({
    cluster: { objects: live },
    apiServerEndpoint: "lb.example.test:6443",
    token: cp.token,
    caCertHashes: [cp.caCertHash],
    host: workerHost,
    clock,
  });
  assert.ok(w.files.some((f) => f.path === "/var/lib/kubelet/config.yaml"));
  // Without the cluster's kubeadm-config, join cannot know the cluster: its own error.
  await assert.rejects(
    () =>
      planWorker({
        cluster: { objects: live.filter((o) => o.metadata?.name === "cluster-info") },
        apiServerEndpoint: "lb.example.test:6443",
        token: cp.token,
        caCertHashes: [cp.caCertHash],
        host: workerHost,
        clock,
      }),
    rejectsWith(/kubeadm-config/),
  );
});

Deno.test("a control-plane join takes the shared CAs from kubeadm-certs and signs its own leaves", async () => {
  const j = await planControlPlaneJoin({
    cluster: cp,
    host: { hostname: "cp2", advertiseAddress: "192.0.2.11" },
    random: seededRandom("cp2"),
    clock,
  });
  for (const shared of ["ca.crt", "ca.key", "front-proxy-ca.key", "etcd/ca.key", "sa.key"]) {
    const p = `/etc/kubernetes/pki/${shared}`;
    assert.equal(file(j.files, p), file(cp.files, p), p);
  }
  const api = parseCertificatesPEM(file(j.files, "/etc/kubernetes/pki/apiserver.crt")!)[0];
  assert.ok(api.ipAddresses.includes("192.0.2.11"), api.ipAddresses.join(","));
  assert.notEqual(
    file(j.files, "/etc/kubernetes/pki/apiserver.key"),
    file(cp.files, "/etc/kubernetes/pki/apiserver.key"),
  );
  assert.equal(j.bringUp.commands[0][1], "join");
  await assert.rejects(
    () =>
      planControlPlaneJoin({
        cluster: cp,
        certificateKey: "f".repeat(64),
        host: { hostname: "cp3", advertiseAddress: "192.0.2.12" },
        clock,
      }),
    rejectsWith(/decrypt|certificate key|authenticat/i),
  );
});
