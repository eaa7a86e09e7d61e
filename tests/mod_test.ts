// The library entry point exposes a working core: a full offline plan with no disk at all.
import assert from "node:assert/strict";
import {
  certificatePin,
  initWorkflow,
  parseCertificatesPEM,
  RecordingFileSystem,
  resolveInitConfig,
  runWorkflow,
  systemClock,
  utf8,
  webRandom,
} from "../mod.ts";
import type { InitData } from "../mod.ts";

Deno.test("mod.ts plans certs, kubeconfigs and manifests into a RecordingFileSystem", async () => {
  const { config } = resolveInitConfig({
    text:
      "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nencryptionAlgorithm: ECDSA-P256\n",
    host: { hostname: "cp1", defaultAdvertiseAddress: "192.0.2.10" },
    random: webRandom,
  });
  const files = new RecordingFileSystem();
  const lines: string[] = [];
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
