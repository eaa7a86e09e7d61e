// `kubeadm init --dry-run` through the launcher (read-only permissions, no network): the whole
// workflow runs, API calls are printed instead of sent, and the node is not touched.
import { describeActions, parseDryRunActions } from "../support/dry_run_output.ts";
import assert from "node:assert/strict";
import { repoRoot } from "../support/repo.ts";

Deno.test("init --dry-run runs every phase with the dry-run transport and writes nothing", async () => {
  const rootfs = await Deno.makeTempDir({ prefix: "kts-init-dry-root-" });
  const out = await Deno.makeTempDir({ prefix: "kts-init-dry-out-" });
  const config = `${out}.yaml`;
  await Deno.writeTextFile(
    config,
    `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
bootstrapTokens:
- token: abcdef.0123456789abcdef
localAPIEndpoint:
  advertiseAddress: 192.0.2.10
nodeRegistration:
  name: cp1
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
encryptionAlgorithm: ECDSA-P256
controlPlaneEndpoint: cp.example:6443
`,
  );
  try {
    const r = await new Deno.Command(`${repoRoot}/scripts/kubeadm`, {
      args: ["init", "--dry-run", "--rootfs", rootfs, "--config", config, "--upload-certs"],
      env: { KUBEADM_INIT_DRYRUN_DIR: out },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(r.stdout);
    const stderr = new TextDecoder().decode(r.stderr);
    assert.equal(r.code, 0, `${stdout}\n${stderr}`);
    assert.deepEqual([...Deno.readDirSync(rootfs)], [], "the node's root stays empty");
    const lines = stdout.split("\n");
    const at = (s: string) => lines.findIndex((l) => l.startsWith(s));
    // Files are reported once, at wait-control-plane, as upstream does.
    assert.equal(lines.filter((l) => / files would be written:$/.test(l)).length, 1);
    assert.ok(at("[dryrun] Wrote certificates") < at("[wait-control-plane]"));
    assert.ok(at("[kubelet-start] Writing kubelet") < at("[dryrun] Wrote certificates"));
    for (
      const want of [
        "[dryrun] Would make sure the kubelet returns 'ok' at http://127.0.0.1:10248/healthz",
        '[upload-certs] Storing the certificates in Secret "kubeadm-certs" in the "kube-system" Namespace',
        "[bootstrap-token] Using token: abcdef.0123456789abcdef",
        "[addons] Applied essential addon: kube-proxy",
        "You can now join any number of control-plane nodes running the following command on each as root:",
      ]
    ) assert.ok(lines.includes(want), `missing: ${want}\n${stdout}`);
    const printed = describeActions(stdout);
    for (
      const action of [
        "CREATE ConfigMap kube-system/kubeadm-config",
        "CREATE Secret kube-system/kubeadm-certs",
        "PATCH nodes cp1",
        "CREATE ConfigMap kube-public/cluster-info",
      ]
    ) assert.ok(printed.includes(action), `${action} in ${printed.join(", ")}`);
    assert.ok(!stdout.includes("kubeadm:cluster-admins"), "no admin bootstrap in dry-run");
    // Secret values are never printed (issue 9, finding 9): not the token secret, not the
    // encrypted certificates and keys of kubeadm-certs.
    assert.ok(!stdout.includes(btoa("0123456789abcdef")), "the token secret (base64) is printed");
    const secrets = parseDryRunActions(stdout).filter((a) => a.resource === "secrets" && a.object);
    const names = secrets.map((a) => a.name ?? (a.object!.metadata as { name: string }).name);
    assert.ok(names.includes("kubeadm-certs"), names.join());
    assert.ok(names.includes("bootstrap-token-abcdef"), names.join());
    for (const s of secrets) {
      const values = Object.values((s.object!.data ?? {}) as Record<string, string>);
      assert.ok(values.length > 0);
      assert.ok(values.every((v) => v === "<redacted>"), JSON.stringify(s.object));
    }
    assert.match(stdout, /kubeadm join cp\.example:6443 --token abcdef\.0123456789abcdef \\/);
    assert.match(stdout, /--control-plane --certificate-key [0-9a-f]{64}\n/);
    // The plan was written under the dry-run directory instead.
    await Deno.stat(`${out}/etc/kubernetes/admin.conf`);
  } finally {
    await Deno.remove(rootfs, { recursive: true });
    await Deno.remove(out, { recursive: true });
    await Deno.remove(config);
  }
});

Deno.test("init --certificate-auto-renewal is refused before anything: a window outlasting the certificates, another root", async () => {
  const rootfs = await Deno.makeTempDir({ prefix: "kts-init-renewal-root-" });
  const config = `${rootfs}.yaml`;
  await Deno.writeTextFile(
    config,
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\ncertificateValidityPeriod: 500h\n",
  );
  const init = async (args: string[]) => {
    const r = await new Deno.Command(`${repoRoot}/scripts/kubeadm`, {
      args: ["init", "--certificate-auto-renewal", ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: r.code, stderr: new TextDecoder().decode(r.stderr) };
  };
  try {
    const short = await init(["--dry-run", "--config", config]);
    assert.equal(short.code, 3, short.stderr);
    assert.match(
      short.stderr,
      /^error: --certificate-auto-renewal renews what expires within 720h0m0s, which is not shorter than the cluster's certificateValidityPeriod \(500h0m0s\)$/m,
    );
    const foreign = await init(["--rootfs", rootfs]);
    assert.equal(foreign.code, 3, foreign.stderr);
    assert.match(
      foreign.stderr,
      /^error: --certificate-auto-renewal sets the schedule up on the running machine, and --rootfs names another root/m,
    );
    assert.deepEqual([...Deno.readDirSync(rootfs)], [], "nothing written");
  } finally {
    await Deno.remove(rootfs, { recursive: true });
    await Deno.remove(config);
  }
});
