// The library entry point: a full control-plane plan, a worker plan and cloud-init, no disk.
import assert from "node:assert/strict";
import {
  checkCertificateExpiration,
  checkClusterInfo,
  pemCertificatePins,
  planCertificateRenewal,
  planControlPlane,
  planWorker,
  seededRandom,
  toCloudInit,
} from "../mod.ts";

const clock = { now: () => new Date("2026-01-01T00:00:00Z") };

Deno.test("mod.ts plans a control plane and a worker from data alone, and their cloud-init", async () => {
  const cp = await planControlPlane({
    config:
      "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nencryptionAlgorithm: ECDSA-P256\n",
    host: { hostname: "cp1", advertiseAddress: "192.0.2.10" },
    random: seededRandom("mod.ts"),
    clock,
  });
  const byPath = new Map(cp.files.map((f) => [f.path, f]));
  for (
    const p of [
      "/etc/kubernetes/pki/ca.crt",
      "/etc/kubernetes/pki/apiserver.key",
      "/etc/kubernetes/admin.conf",
      "/etc/kubernetes/manifests/kube-apiserver.yaml",
      "/etc/kubernetes/manifests/etcd.yaml",
      "/var/lib/kubelet/config.yaml",
    ]
  ) assert.ok(byPath.has(p), p);
  assert.equal(byPath.get("/etc/kubernetes/pki/ca.key")!.mode, 0o600);
  assert.deepEqual(await pemCertificatePins(byPath.get("/etc/kubernetes/pki/ca.crt")!.content), [
    cp.caCertHash,
  ]);
  assert.equal(
    cp.joinCommand,
    `kubeadm join 192.0.2.10:6443 --token ${cp.token} --discovery-token-ca-cert-hash ${cp.caCertHash}`,
  );
  const clusterInfo = cp.objects.find((o) => o.metadata?.name === "cluster-info");
  assert.ok(clusterInfo, "init publishes cluster-info");

  const worker = await planWorker({
    cluster: cp,
    host: { hostname: "w1", advertiseAddress: "192.0.2.21" },
    random: seededRandom("w1"),
    clock,
  });
  assert.deepEqual(worker.files.map((f) => f.path).sort(), [
    "/etc/kubernetes/bootstrap-kubelet.conf",
    "/etc/kubernetes/pki/ca.crt",
    "/var/lib/kubelet/config.yaml",
    "/var/lib/kubelet/instance-config.yaml",
    "/var/lib/kubelet/kubeadm-flags.env",
  ]);
  assert.match(toCloudInit(worker), /^#cloud-config\nwrite_files:\n/);

  // The unsigned cluster-info of the plan is rejected until the bootstrap signer signs it.
  const verdict = await checkClusterInfo({
    clusterInfo,
    token: cp.token,
    caCertHashes: [cp.caCertHash],
  });
  assert.equal(verdict.verdict, "rejected");
});

Deno.test("mod.ts plans a certificate renewal and an expiration report from the node's files", async () => {
  const cp = await planControlPlane({
    config:
      "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nencryptionAlgorithm: ECDSA-P256\n",
    host: { hostname: "cp1", advertiseAddress: "192.0.2.10" },
    random: seededRandom("renewal"),
    clock,
  });
  const later = { now: () => new Date("2026-11-01T00:00:00Z") };
  const report = await checkCertificateExpiration({ files: cp.files, clock: later });
  const api = report.certificates.find((c) => c.name === "apiserver")!;
  assert.equal(api.expirationDate, "2027-01-01T00:00:00Z");
  assert.equal(api.residualTime, 61 * 24 * 3600);
  assert.ok(report.certificates.every((c) => !c.missing), "init wrote every certificate");

  const renew = () =>
    planCertificateRenewal({
      files: cp.files,
      config: "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n" +
        "encryptionAlgorithm: ECDSA-P256\n",
      names: ["apiserver", "admin.conf"],
      random: seededRandom("renew"),
      clock: later,
    });
  const plan = await renew();
  assert.deepEqual(plan.files.map((f) => f.path), [
    "/etc/kubernetes/pki/apiserver.key",
    "/etc/kubernetes/pki/apiserver.crt",
    "/etc/kubernetes/admin.conf",
  ]);
  assert.deepEqual(plan.certificates, [
    { name: "apiserver", status: "renewed", notAfter: "2027-11-01T00:00:00.000Z" },
    { name: "admin.conf", status: "renewed", notAfter: "2027-11-01T00:00:00.000Z" },
  ]);
  assert.deepEqual(plan.podsToRestart, ["kube-apiserver"]);
  assert.equal(JSON.stringify(await renew()), JSON.stringify(plan), "reproducible");
});
