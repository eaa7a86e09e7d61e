// planCertificateRenewal with a window (what the scheduled renewal renews) and its restarts,
// and planCertificateAutoRenewal (the schedule's files), on a planned control plane's files.
import assert from "node:assert/strict";
import { planControlPlane } from "../../library/control_plane.ts";
import { planCertificateAutoRenewal, planCertificateRenewal } from "../../library/renewal.ts";
import { seededRandom } from "../../adapters/offline/random.ts";
import { KubeadmError } from "../../core/errors.ts";
import { parseKubeconfig, serializeKubeconfig } from "../../core/kubeconfig/kubeconfig.ts";
import { pointToRotatableClientCert } from "../../core/cluster/kubelet_finalize.ts";

const CONFIG = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n" +
  "encryptionAlgorithm: ECDSA-P256\n";
const cp = await planControlPlane({
  config: CONFIG,
  host: { hostname: "cp1", advertiseAddress: "192.0.2.10" },
  random: seededRandom("renewal-tests"),
  clock: { now: () => new Date("2026-01-01T00:00:00Z") },
});
/** 61 days before the leaves expire (the CAs have ten years). */
const later = { now: () => new Date("2026-11-01T00:00:00Z") };
const renew = (within: string) =>
  planCertificateRenewal({
    files: cp.files,
    config: CONFIG,
    within,
    random: seededRandom("renew"),
    clock: later,
  });

Deno.test("planCertificateRenewal({ within }) renews only what expires within the window", async () => {
  const none = await renew("720h");
  assert.deepEqual(none.certificates, []);
  assert.deepEqual(none.files, []);
  assert.deepEqual(none.restarts, []);
  assert.equal(none.restartKubelet, false);

  const all = await renew("1500h");
  assert.deepEqual(all.certificates.map((c) => c.name), [
    "admin.conf",
    "apiserver",
    "apiserver-etcd-client",
    "apiserver-kubelet-client",
    "controller-manager.conf",
    "etcd-healthcheck-client",
    "etcd-peer",
    "etcd-server",
    "front-proxy-client",
    "scheduler.conf",
    "super-admin.conf",
    // The plan's kubelet.conf embeds its certificate (no kubelet rotates it): renewed last,
    // then the kubelet restarted.
    "kubelet.conf",
  ]);
  assert.equal(all.restartKubelet, true);
  assert.ok(all.certificates.every((c) => c.notAfter === "2027-11-01T00:00:00.000Z"));
  // The restarts in kubeadm's order, etcd last, each with the files it reads.
  assert.deepEqual(all.restarts.map((r) => [r.component, r.renewed]), [
    [
      "kube-apiserver",
      ["apiserver", "apiserver-etcd-client", "apiserver-kubelet-client", "front-proxy-client"],
    ],
    ["kube-controller-manager", ["controller-manager.conf"]],
    ["kube-scheduler", ["scheduler.conf"]],
    ["etcd", ["etcd-peer", "etcd-server"]],
  ]);
  assert.deepEqual(all.restarts[3].files, [
    "/etc/kubernetes/pki/etcd/peer.key",
    "/etc/kubernetes/pki/etcd/peer.crt",
    "/etc/kubernetes/pki/etcd/server.key",
    "/etc/kubernetes/pki/etcd/server.crt",
  ]);
  // Every written file is either restarted for or read by no static Pod.
  const restartedFor = new Set(all.restarts.flatMap((r) => r.files));
  assert.deepEqual(
    all.files.map((f) => f.path).filter((p) => !restartedFor.has(p)),
    [
      "/etc/kubernetes/admin.conf",
      "/etc/kubernetes/pki/etcd/healthcheck-client.key",
      "/etc/kubernetes/pki/etcd/healthcheck-client.crt",
      "/etc/kubernetes/super-admin.conf",
      "/etc/kubernetes/kubelet.conf",
    ],
  );
});

Deno.test("planCertificateRenewal({ within }) leaves a kubelet.conf the kubelet rotates alone, and names only asked", async () => {
  const files = cp.files.map((f) =>
    f.path === "/etc/kubernetes/kubelet.conf"
      ? {
        ...f,
        content: serializeKubeconfig(pointToRotatableClientCert(parseKubeconfig(f.content))),
      }
      : f
  );
  const plan = await planCertificateRenewal({
    files,
    config: CONFIG,
    within: "1500h",
    random: seededRandom("renew"),
    clock: later,
  });
  assert.equal(plan.certificates.length, 11);
  assert.ok(!plan.certificates.some((c) => c.name === "kubelet.conf"));
  assert.equal(plan.restartKubelet, false);
  const named = await planCertificateRenewal({
    files: cp.files,
    config: CONFIG,
    names: ["apiserver"],
    within: "1500h",
    random: seededRandom("renew"),
    clock: later,
  });
  assert.deepEqual(named.certificates.map((c) => c.name), ["apiserver"]);
});

Deno.test("planCertificateRenewal refuses a window that does not parse or is too long", async () => {
  await assert.rejects(() => renew("30d"), /invalid argument "30d" for "--within" flag/);
  await assert.rejects(
    () => renew("8760h"),
    /must be at least 1h and shorter than the certificates' validity \(8760h0m0s\)/,
  );
});

Deno.test("planCertificateAutoRenewal: the systemd units or the OpenRC script, and what to enable", () => {
  const systemd = planCertificateAutoRenewal({
    initSystem: "systemd",
    command: ["/usr/bin/kubeadm"],
    approveKubeletServing: true,
  });
  assert.deepEqual(systemd.files.map((f) => [f.path, f.mode]), [
    ["/etc/systemd/system/kubeadm-certs-renewal.service", 0o644],
    ["/etc/systemd/system/kubeadm-certs-renewal.timer", 0o644],
  ]);
  assert.match(
    systemd.files[0].content,
    /^ExecStart=\/usr\/bin\/kubeadm certs auto-renewal run --within 720h0m0s --approve-kubelet-serving$/m,
  );
  assert.match(systemd.files[1].content, /^OnCalendar=daily$/m);
  assert.equal(systemd.enable, "kubeadm-certs-renewal.timer");
  assert.deepEqual(systemd.runArgs, [
    "certs",
    "auto-renewal",
    "run",
    "--within",
    "720h0m0s",
    "--approve-kubelet-serving",
  ]);

  const openrc = planCertificateAutoRenewal({
    initSystem: "openrc",
    command: ["/usr/local/bin/kubeadm"],
    within: "336h",
    schedule: "weekly",
  });
  assert.deepEqual(openrc.files.map((f) => [f.path, f.mode]), [
    ["/etc/periodic/weekly/kubeadm-certs-renewal", 0o755],
  ]);
  assert.match(
    openrc.files[0].content,
    /\/usr\/local\/bin\/kubeadm certs auto-renewal run --within 336h0m0s 2>&1/,
  );
  assert.equal(openrc.enable, "crond");

  assert.throws(
    () => planCertificateAutoRenewal({ initSystem: "systemd", command: ["kubeadm"] }),
    (e) => e instanceof KubeadmError && e.field === "command" && /absolute path/.test(e.message),
  );
  assert.throws(
    () =>
      planCertificateAutoRenewal({
        initSystem: "systemd",
        command: ["/usr/bin/kubeadm"],
        schedule: "yearly" as "daily",
      }),
    /invalid argument "yearly" for "--schedule" flag: must be one of hourly, daily, weekly, monthly/,
  );
});
