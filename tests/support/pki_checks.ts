/**
 * The openssl checks a node's PKI must pass, whoever wrote it (the CLI's certificate phases, a
 * library plan): every leaf verifies against its own CA and not against another, every key is
 * the key of its certificate, `sa.pub` is the public half of `sa.key`, and the client
 * certificates embedded in the kubeconfigs verify against the cluster CA.
 *
 * @module
 */
import assert from "node:assert/strict";
import { opensslPubFromCert, opensslPubFromKey, runTool } from "./openssl.ts";
import { base64Decode } from "../../core/text/base64.ts";
import { parseKubeconfig } from "../../core/kubeconfig/kubeconfig.ts";

/** Each leaf of kubeadm's tree with its CA (base names under the certificates dir). */
export const PKI_LEAVES: readonly [string, string][] = [
  ["apiserver", "ca"],
  ["apiserver-kubelet-client", "ca"],
  ["front-proxy-client", "front-proxy-ca"],
  ["etcd/server", "etcd/ca"],
  ["etcd/peer", "etcd/ca"],
  ["etcd/healthcheck-client", "etcd/ca"],
  ["apiserver-etcd-client", "etcd/ca"],
];

async function verify(caFile: string, certFile: string): Promise<number> {
  return (await runTool("openssl", ["verify", "-CAfile", caFile, certFile])).code;
}

/** Runs the openssl checks on the certificates dir `pkiDir` (a real directory). */
export async function checkPkiDir(pkiDir: string): Promise<void> {
  const text = (base: string) => Deno.readTextFile(`${pkiDir}/${base}`);
  for (const [leaf, ca] of PKI_LEAVES) {
    assert.equal(await verify(`${pkiDir}/${ca}.crt`, `${pkiDir}/${leaf}.crt`), 0, leaf);
    const other = ca === "ca" ? "etcd/ca" : "ca";
    assert.notEqual(
      await verify(`${pkiDir}/${other}.crt`, `${pkiDir}/${leaf}.crt`),
      0,
      `${leaf} must not verify against ${other}`,
    );
  }
  for (const base of ["ca", "front-proxy-ca", "etcd/ca", ...PKI_LEAVES.map(([l]) => l)]) {
    assert.equal(
      await opensslPubFromCert(await text(`${base}.crt`)),
      await opensslPubFromKey(await text(`${base}.key`)),
      `${base}.key is the key of ${base}.crt`,
    );
  }
  assert.equal(await opensslPubFromKey(await text("sa.key")), await text("sa.pub"));
}

/** The client certificate of each kubeconfig verifies against `caFile`, and matches its key. */
export async function checkKubeconfigClients(files: string[], caFile: string): Promise<void> {
  const tmp = await Deno.makeTempDir();
  try {
    for (const file of files) {
      const kc = parseKubeconfig(await Deno.readTextFile(file), file);
      const user = kc.users[0].user;
      const cert = new TextDecoder().decode(base64Decode(user["client-certificate-data"]!));
      const key = new TextDecoder().decode(base64Decode(user["client-key-data"]!));
      await Deno.writeTextFile(`${tmp}/client.crt`, cert);
      assert.equal(await verify(caFile, `${tmp}/client.crt`), 0, file);
      assert.equal(await opensslPubFromCert(cert), await opensslPubFromKey(key), file);
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
