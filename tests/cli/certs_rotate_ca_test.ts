// `kubeadm certs rotate-ca` on the command line, on a node's files made by our init phases
// (under --rootfs; admin.conf points nowhere, so any contact with a cluster fails): the
// front-proxy and etcd CAs' dry runs, and bad input refused before any write, naming the flag.
import assert from "node:assert/strict";
import { run, type RunResult } from "../support/commands.ts";
import { listFiles, repoRoot } from "../support/repo.ts";
import { testCA } from "../support/ca_rotation.ts";
import { encodeCertificatePEM } from "../../core/pki/cert.ts";
import { encodePrivateKeyPEM } from "../../core/pki/keys.ts";

const CONFIG = `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
nodeRegistration:
  name: cli-node
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
encryptionAlgorithm: ECDSA-P256
`;

const kubeadm = (root: string, args: string[]): Promise<RunResult> =>
  run([`${repoRoot}/scripts/kubeadm`, ...args, "--rootfs", root]);

/** Every file under `root` with its mode and content. */
async function tree(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const f of await listFiles(root, "")) {
    out.set(f, `${((await Deno.stat(f)).mode! & 0o777).toString(8)} ${await Deno.readTextFile(f)}`);
  }
  return out;
}

Deno.test("certs rotate-ca --ca front-proxy-ca|etcd-ca: a dry run lists its steps and prepare's files; bad input is refused naming the flag; phase node has nothing to do", async () => {
  const root = await Deno.makeTempDir({ prefix: "kts-cli-rotate-ca-" });
  const flags = await Deno.makeTempDir({ prefix: "kts-cli-rotate-ca-flags-" });
  try {
    await Deno.writeTextFile(`${flags}/cfg.yaml`, CONFIG);
    for (const phase of ["certs", "kubeconfig"]) {
      const r = await kubeadm(root, [
        "init",
        "phase",
        phase,
        "all",
        "--config",
        `${flags}/cfg.yaml`,
      ]);
      assert.equal(r.code, 0, r.stderr);
    }
    const admin = `${root}/etc/kubernetes/admin.conf`;
    await Deno.writeTextFile(
      admin,
      (await Deno.readTextFile(admin)).replace(/server: \S+/, "server: https://127.0.0.1:1"),
    );
    const before = await tree(root);

    const dry = await kubeadm(root, ["certs", "rotate-ca", "--ca", "front-proxy-ca", "--dry-run"]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /\[dryrun\] Rotation stage: none \(front-proxy-ca\)/);
    const steps = dry.stdout.split("\n").filter((l) => /^\[dryrun\] \d\. /.test(l));
    assert.deepEqual(steps.map((l) => l.split(" ")[2]), ["prepare", "trust", "reissue", "finish"]);
    for (const f of ["old-ca.key", "old-ca.crt", "new-ca.key", "new-ca.crt"]) {
      assert.ok(
        dry.stdout.includes(
          `[dryrun] Would write /etc/kubernetes/pki/front-proxy-ca-rotation/${f}`,
        ),
        dry.stdout,
      );
    }
    assert.doesNotMatch(dry.stdout, /PRIVATE KEY/);
    assert.deepEqual(await tree(root), before);
    const etcd = await kubeadm(root, ["certs", "rotate-ca", "--ca", "etcd-ca", "--dry-run"]);
    assert.equal(etcd.code, 0, etcd.stderr);
    assert.match(etcd.stdout, /\[dryrun\] Rotation stage: none \(etcd-ca\)/);
    assert.match(
      etcd.stdout,
      /re-issue apiserver-etcd-client, etcd-healthcheck-client, etcd-peer, etcd-server/,
    );
    assert.ok(
      etcd.stdout.includes("[dryrun] Would write /etc/kubernetes/pki/etcd-ca-rotation/new-ca.crt"),
      etcd.stdout,
    );
    assert.deepEqual(await tree(root), before);

    // A new CA whose key is another's.
    const next = await testCA(21);
    const other = await testCA(22);
    await Deno.writeTextFile(`${flags}/new.crt`, encodeCertificatePEM(next.cert));
    await Deno.writeTextFile(`${flags}/other.key`, await encodePrivateKeyPEM(other.key));
    const refusals: [string[], RegExp][] = [
      [
        [
          "--ca",
          "front-proxy-ca",
          "--ca-cert",
          `${flags}/new.crt`,
          "--ca-key",
          `${flags}/other.key`,
        ],
        /the key of --ca-key does not match the certificate of --ca-cert/,
      ],
      [["--ca", "front-proxy-ca", "--ca-cert", `${flags}/new.crt`], /--ca-key is missing/],
      [["--ca", "front-proxy"], /--ca: unknown certificate authority "front-proxy"/],
      [["phase", "node", "--ca", "kubernetes"], /--ca: unknown certificate authority "kubernetes"/],
    ];
    for (const [args, message] of refusals) {
      const r = await kubeadm(root, ["certs", "rotate-ca", ...args]);
      assert.notEqual(r.code, 0, args.join(" "));
      assert.match(r.stderr, message, args.join(" "));
      assert.deepEqual(await tree(root), before, `${args.join(" ")}: nothing written`);
    }

    const node = await kubeadm(root, [
      "certs",
      "rotate-ca",
      "phase",
      "node",
      "--ca",
      "front-proxy-ca",
    ]);
    assert.equal(node.code, 0, node.stderr);
    assert.match(node.stdout, /node: nothing to do for front-proxy-ca on any node/);
    assert.deepEqual(await tree(root), before);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(flags, { recursive: true });
  }
});
