// The library entry point exposes a working core: a full offline plan with no disk at all.
import assert from "node:assert/strict";
import {
  certificatePin,
  checkExpiration,
  initWorkflow,
  parseCertificatesPEM,
  planRenewal,
  RecordingFileSystem,
  resolveInitConfig,
  runWorkflow,
  systemClock,
  utf8,
  webRandom,
} from "../mod.ts";
import type { InitData } from "../mod.ts";

/** InitData over a RecordingFileSystem for a default ECDSA configuration. */
function libraryData(lines: string[] = []): { data: InitData; files: RecordingFileSystem } {
  const { config } = resolveInitConfig({
    text:
      "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nencryptionAlgorithm: ECDSA-P256\n",
    host: { hostname: "cp1", defaultAdvertiseAddress: "192.0.2.10" },
    random: webRandom,
  });
  const files = new RecordingFileSystem();
  const data: InitData = {
    cfg: config,
    files,
    out: { info: (l) => lines.push(l), warn: (l) => lines.push(l) },
    clock: systemClock,
    random: webRandom,
    startTime: new Date(),
    dryRun: true,
    kubeconfigDir: "/etc/kubernetes",
    manifestDir: "/etc/kubernetes/manifests",
    host: { hostname: "cp1", existingDirs: new Set(), proxyEnv: {} },
  };
  return { data, files };
}

Deno.test("mod.ts plans certs, kubeconfigs and manifests into a RecordingFileSystem", async () => {
  const { data, files } = libraryData();
  for (const only of ["certs/all", "kubeconfig/all", "etcd/local", "control-plane/all"]) {
    await runWorkflow(initWorkflow(), data, { only });
  }
  const paths = files.planned.map((f) => f.path);
  for (
    const p of [
      "/etc/kubernetes/pki/ca.crt",
      "/etc/kubernetes/pki/apiserver.key",
      "/etc/kubernetes/admin.conf",
      "/etc/kubernetes/manifests/kube-apiserver.yaml",
      "/etc/kubernetes/manifests/etcd.yaml",
    ]
  ) assert.ok(paths.includes(p), p);
  assert.equal(files.planned.find((f) => f.path.endsWith("ca.key"))!.mode, 0o600);
  const ca = parseCertificatesPEM(
    utf8(await files.read("/etc/kubernetes/pki/ca.crt") as Uint8Array),
  );
  assert.match(await certificatePin(ca[0]), /^sha256:[0-9a-f]{64}$/);
});

Deno.test("mod.ts plans a renewal and an expiration report from files alone", async () => {
  const { data, files } = libraryData();
  await runWorkflow(initWorkflow(), data, { only: "certs/all" });
  const dirs = { certificatesDir: "/etc/kubernetes/pki", kubeconfigDir: "/etc/kubernetes" };
  const { info } = await checkExpiration({ files, ...dirs, externalEtcd: false, now: new Date() });
  assert.equal(info.certificates.filter((c) => c.missing).length, 4, "no kubeconfigs yet");
  const plan = await planRenewal({
    files,
    settings: { ...dirs, encryptionAlgorithm: "ECDSA-P256", externalEtcd: false },
    names: ["apiserver"],
    startTime: new Date(),
    now: new Date(),
    random: webRandom,
  });
  assert.deepEqual(plan.files.map((f) => f.path), [
    "/etc/kubernetes/pki/apiserver.key",
    "/etc/kubernetes/pki/apiserver.crt",
  ]);
});
