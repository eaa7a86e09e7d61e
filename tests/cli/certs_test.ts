// `kubeadm certs …` through the launcher on a node made by our own `init` phases: what goes
// beyond upstream (renew --dry-run, check-expiration --fail-if-expiring-within, kept file
// modes), the cluster configuration read through --kubeconfig (a fake API server), and a
// renewal killed mid-way then run again.
import assert from "node:assert/strict";
import { run } from "../support/commands.ts";
import { listFiles, repoRoot } from "../support/repo.ts";
import { kubeadm, tree, withNode } from "../support/cli_node.ts";
import { openssl } from "../support/openssl.ts";
import { assertPairedAndSigned } from "../support/pki_views.ts";
import { putClusterConfiguration, withFakeCluster } from "../support/fake_cluster.ts";
import { certSpec, KUBEADM_CERTS } from "../../core/certs/certlist.ts";
import { KUBERNETES_VERSION } from "../../core/versions.ts";

Deno.test("certs renew all --dry-run lists every file it would write and writes none", async () => {
  await withNode(async (root) => {
    const before = await tree(root);
    const r = await kubeadm(root, ["certs", "renew", "all", "--dry-run"]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(await tree(root), before);
    const writes = r.stdout.split("\n").filter((l) => l.startsWith("[dryrun] Would write "));
    assert.equal(writes.length, 18);
    assert.ok(writes.some((l) => l.includes("/etc/kubernetes/pki/etcd/peer.key (key, mode 0600")));
    assert.ok(writes.some((l) => l.includes("/etc/kubernetes/super-admin.conf (kubeconfig")));
    assert.match(
      r.stdout,
      /\[dryrun\] No file was written\. A real run would need a restart of: kube-apiserver, kube-controller-manager, kube-scheduler, etcd\n$/,
    );
    assert.doesNotMatch(r.stdout, /PRIVATE KEY/);
  });
});

Deno.test("certs renew all --restart --dry-run adds an embedded kubelet.conf and the kubelet's restart; plain renew all does not", async () => {
  await withNode(async (root) => {
    const before = await tree(root);
    const kubeletConf = "/etc/kubernetes/kubelet.conf";
    const r = await kubeadm(root, ["certs", "renew", "all", "--restart", "--dry-run"]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(await tree(root), before);
    assert.ok(r.stdout.includes(`[dryrun] Would write ${kubeletConf} (kubeconfig, mode 0600`));
    assert.match(
      r.stdout,
      /\[dryrun\] Would renew the certificate embedded in the kubeconfig file for the kubelet to use: system:node:cli-node, valid until /,
    );
    assert.match(
      r.stdout,
      /\[dryrun\] Would then restart the kubelet and wait for it to be healthy/,
    );
    // Upstream's renew all leaves kubelet.conf to the kubelet.
    const plain = await kubeadm(root, ["certs", "renew", "all", "--dry-run"]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.ok(!plain.stdout.includes(kubeletConf));
  });
});

Deno.test("certs renew keeps a file's mode, and check-expiration --fail-if-expiring-within exits 4", async () => {
  await withNode(async (root) => {
    const admin = `${root}/etc/kubernetes/admin.conf`;
    await Deno.chmod(admin, 0o640);
    const r = await kubeadm(root, ["certs", "renew", "admin.conf"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /certificate embedded in the kubeconfig file for the admin to use and for kubeadm itself renewed\n$/,
    );
    assert.equal((await Deno.stat(admin)).mode! & 0o777, 0o640);

    const ok = await kubeadm(root, [
      "certs",
      "check-expiration",
      "--fail-if-expiring-within",
      "720h",
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    const soon = await kubeadm(root, [
      "certs",
      "check-expiration",
      "-o",
      "json",
      "--fail-if-expiring-within",
      "9000h",
    ]);
    assert.equal(soon.code, 4, soon.stderr);
    assert.equal(JSON.parse(soon.stdout).kind, "CertificateExpirationInfo", "report still printed");
    assert.match(soon.stderr, /^error: 11 certificate\(s\) expire within 9000h: admin\.conf \(/m);
    const bad = await kubeadm(root, [
      "certs",
      "check-expiration",
      "--fail-if-expiring-within",
      "soon",
    ]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /invalid argument "soon" for "--fail-if-expiring-within" flag/);
  });
});

Deno.test("certs check-expiration and renew read the cluster's configuration through --kubeconfig", async () => {
  await withNode(async (root) => {
    await withFakeCluster(async ({ api, kc }) => {
      putClusterConfiguration(
        api,
        `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: ${KUBERNETES_VERSION}
certificatesDir: /elsewhere/pki
encryptionAlgorithm: ECDSA-P384
certificateValidityPeriod: 240h0m0s
etcd:
  external:
    endpoints: [https://10.0.0.9:2379]
`,
      );
      const r = await kubeadm(root, ["certs", "check-expiration", "--kubeconfig", kc]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stdout,
        /^\[check-expiration\] Reading configuration from the "kubeadm-config" ConfigMap in namespace "kube-system"\.\.\.\n\[check-expiration\] Use 'kubeadm init phase upload-config kubeadm --config your-config-file' to re-upload it\.\n\nCERTIFICATE /,
      );
      // External etcd: no etcd rows; --cert-dir's default overrides the cluster's dir.
      assert.doesNotMatch(r.stdout, /etcd-ca|etcd-peer/);
      assert.match(r.stdout, /\napiserver {2,}\S/);
      const renew = await kubeadm(root, ["certs", "renew", "apiserver", "--kubeconfig", kc]);
      assert.equal(renew.code, 0, renew.stderr);
      const text = await openssl([
        "x509",
        "-in",
        `${root}/etc/kubernetes/pki/apiserver.crt`,
        "-noout",
        "-text",
        "-startdate",
        "-enddate",
      ]);
      assert.match(text, /ASN1 OID: secp384r1/, "the cluster's encryptionAlgorithm");
      const [nb, na] = ["notBefore", "notAfter"].map((k) =>
        Date.parse(text.match(new RegExp(`${k}=(.*)`))![1])
      );
      assert.equal((na - nb) / 1000, 240 * 3600 + 300, "the cluster's certificateValidityPeriod");
    });
  });
});

Deno.test("certs renew all killed at any moment and run again leaves every pair valid", async () => {
  await withNode(async (root) => {
    const pairs = KUBEADM_CERTS.filter((s) => s.caName).map((s) => ({
      base: s.baseName,
      ca: certSpec(s.caName!).baseName,
    }));
    for (const delayMs of [150, 700, 1500]) {
      const child = new Deno.Command(`${repoRoot}/scripts/kubeadm`, {
        args: ["certs", "renew", "all", "--rootfs", root],
        stdout: "null",
        stderr: "null",
      }).spawn();
      await new Promise((r) => setTimeout(r, delayMs));
      try {
        child.kill("SIGKILL");
      } catch { /* already done */ }
      await child.status;
      const again = await kubeadm(root, ["certs", "renew", "all"]);
      assert.equal(again.code, 0, again.stderr);
      for (const { base, ca } of pairs) {
        const pki = `${root}/etc/kubernetes/pki`;
        await assertPairedAndSigned(`${pki}/${base}.crt`, `${pki}/${base}.key`, `${pki}/${ca}.crt`);
      }
      const leftovers = (await listFiles(root, ".tmp")).filter((f) => !f.includes("/.kts"));
      // An atomic write killed before its rename may leave a temp file; never a partial target.
      for (const f of leftovers) assert.match(f, /\/\.[^/]+\.[0-9a-f]{8}\.tmp$/);
    }
  });
});

Deno.test("certs and certs renew without a sub-command print their help and fail, as upstream's", async () => {
  for (const path of [["certs"], ["certs", "renew"]]) {
    const r = await run([`${repoRoot}/scripts/kubeadm`, ...path]);
    assert.equal(r.code, 1, path.join(" "));
    assert.equal(r.stderr.split("\n")[0], "error: subcommand is required");
    assert.match(
      r.stdout,
      /^Usage:\n {2}kubeadm \S+(?: renew)? \[flags\]\n {2}kubeadm .* \[command\]$/m,
    );
  }
});
