// `kubeadm certs rotate-ca` on the command line, on a node's files made by our init phases
// (under --rootfs; admin.conf points nowhere, so any contact with a cluster fails): the
// front-proxy and etcd CAs' dry runs, and bad input refused before any write, naming the flag.
import assert from "node:assert/strict";
import { kubeadm, tree, withNode } from "../support/cli_node.ts";
import { testCA } from "../support/ca_rotation.ts";
import { encodeCertificatePEM } from "../../core/pki/cert.ts";
import { encodePrivateKeyPEM } from "../../core/pki/keys.ts";

Deno.test("certs rotate-ca --ca front-proxy-ca|etcd-ca: a dry run lists its steps and prepare's files; bad input is refused naming the flag; phase node has nothing to do", async () => {
  await withNode(async (root) => {
    const flags = await Deno.makeTempDir({ prefix: "kts-cli-rotate-ca-flags-" });
    try {
      const before = await tree(root);

      const dry = await kubeadm(root, [
        "certs",
        "rotate-ca",
        "--ca",
        "front-proxy-ca",
        "--dry-run",
      ]);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, /\[dryrun\] Rotation stage: none \(front-proxy-ca\)/);
      const steps = dry.stdout.split("\n").filter((l) => /^\[dryrun\] \d\. /.test(l));
      assert.deepEqual(steps.map((l) => l.split(" ")[2]), [
        "prepare",
        "trust",
        "reissue",
        "finish",
      ]);
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
        etcd.stdout.includes(
          "[dryrun] Would write /etc/kubernetes/pki/etcd-ca-rotation/new-ca.crt",
        ),
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
        [
          ["phase", "node", "--ca", "kubernetes"],
          /--ca: unknown certificate authority "kubernetes"/,
        ],
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
      await Deno.remove(flags, { recursive: true });
    }
  });
});
