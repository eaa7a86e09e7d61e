// planControlPlane: kubeadm's init workflow as data; reproducible when seeded; its PKI passes
// the same openssl checks as the CLI's.
import { webCryptoPort } from "../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import { planControlPlane } from "../../library/control_plane.ts";
import type { PlanFile } from "../../library/node_plan.ts";
import { seededRandom } from "../../adapters/offline/random.ts";
import { KubeadmError, PkiError } from "../../core/errors.ts";
import { pemCertificatePins } from "../../core/pki/cert.ts";
import { tokenFromSecret } from "../../core/bootstraptoken/secret.ts";
import { KUBERNETES_VERSION } from "../../core/versions.ts";
import type { Secret } from "kubernetes-types/core/v1.d.ts";
import { checkKubeconfigClients, checkPkiDir } from "../support/pki_checks.ts";

const clock = { now: () => new Date("2026-02-01T00:00:00Z") };
const host = { hostname: "cp1", advertiseAddress: "192.0.2.10" };
const ECDSA = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n" +
  "encryptionAlgorithm: ECDSA-P256\n";

async function writeTree(files: readonly PlanFile[]): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "kts-plan-" });
  for (const f of files) {
    await Deno.mkdir(`${root}${f.path.slice(0, f.path.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${root}${f.path}`, f.content, { mode: f.mode });
  }
  return root;
}

Deno.test("a seeded plan repeats byte for byte; another seed gives other keys", async () => {
  const a = await planControlPlane({ config: ECDSA, host, random: seededRandom("a"), clock });
  const again = await planControlPlane({ config: ECDSA, host, random: seededRandom("a"), clock });
  const b = await planControlPlane({ config: ECDSA, host, random: seededRandom("b"), clock });
  assert.equal(JSON.stringify(again), JSON.stringify(a));
  const key = (p: typeof a) => p.files.find((f) => f.path === "/etc/kubernetes/pki/ca.key")!;
  assert.notEqual(key(b).content, key(a).content);
  assert.notEqual(b.token, a.token);
  assert.equal(a.kubernetesVersion, KUBERNETES_VERSION);
});

Deno.test("the plan's PKI and kubeconfigs pass the CLI's openssl checks; objects and join command fit", async () => {
  const plan = await planControlPlane({ config: ECDSA, host, random: seededRandom("ssl"), clock });
  const root = await writeTree(plan.files);
  try {
    await checkPkiDir(`${root}/etc/kubernetes/pki`);
    await checkKubeconfigClients(
      ["admin", "super-admin", "kubelet", "controller-manager", "scheduler"]
        .map((n) => `${root}/etc/kubernetes/${n}.conf`),
      `${root}/etc/kubernetes/pki/ca.crt`,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
  for (const f of plan.files) {
    const secret = /\.key$|\.conf$|sa\.pub$|manifests\//.test(f.path);
    assert.equal(f.mode, secret ? 0o600 : 0o644, f.path);
  }
  const ca = plan.files.find((f) => f.path === "/etc/kubernetes/pki/ca.crt")!;
  assert.deepEqual(await pemCertificatePins(ca.content, webCryptoPort), [plan.caCertHash]);
  assert.equal(
    plan.joinCommand,
    `kubeadm join 192.0.2.10:6443 --token ${plan.token} --discovery-token-ca-cert-hash ${plan.caCertHash}`,
  );
  assert.equal(plan.controlPlaneJoinCommand, undefined, "no controlPlaneEndpoint");
  const secret = plan.objects.find((o) => o.kind === "Secret") as Secret;
  const token = tokenFromSecret(secret);
  assert.equal(token.token, plan.token);
  assert.equal(token.expires, "2026-02-02T00:00:00Z", "24h from the plan's clock");
  const names = plan.objects.map((o) => `${o.kind}/${o.metadata?.name}`);
  for (
    const n of ["ConfigMap/kubeadm-config", "ConfigMap/kubelet-config", "ConfigMap/cluster-info"]
  ) {
    assert.ok(names.includes(n), n);
  }
  assert.equal(new Set(names).size, names.length, "each object once");
});

Deno.test("a seeded RSA plan fails naming encryptionAlgorithm; unseeded it uses WebCrypto", async () => {
  await assert.rejects(
    () => planControlPlane({ host, random: seededRandom("rsa"), clock }),
    (e) => {
      const cause = e instanceof KubeadmError && e.cause instanceof PkiError ? e.cause : e;
      return cause instanceof PkiError && cause.field === "encryptionAlgorithm" &&
        cause.value === "RSA-2048";
    },
  );
  const rsa = await planControlPlane({ host, clock });
  assert.match(
    rsa.files.find((f) => f.path === "/etc/kubernetes/pki/ca.key")!.content,
    /^-----BEGIN RSA PRIVATE KEY-----\n/,
  );
});

Deno.test("existing files are reused as init reuses them: a given CA signs the plan", async () => {
  const first = await planControlPlane({ config: ECDSA, host, random: seededRandom("ca"), clock });
  const ca = first.files.filter((f) => /\/pki\/ca\.(crt|key)$/.test(f.path));
  const plan = await planControlPlane({
    config: ECDSA,
    host,
    random: seededRandom("other"),
    clock,
    existingFiles: ca,
  });
  assert.equal(plan.caCertHash, first.caCertHash);
  assert.ok(!plan.files.some((f) => f.path.endsWith("/pki/ca.key")), "the CA is not rewritten");
  assert.ok(
    plan.log.includes("[certs] Using existing ca certificate authority"),
    plan.log.join("\n"),
  );
});

Deno.test("bad configuration fails with the core's error naming the field", async () => {
  await assert.rejects(
    () =>
      planControlPlane({
        config: "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n" +
          "networking:\n  serviceSubnet: not-a-cidr\n",
        host,
        clock,
      }),
    (e) => e instanceof KubeadmError && /serviceSubnet/.test(e.message),
  );
});
