// kubelet.conf's client certificate as the renewals beyond upstream treat it: embedded (nobody
// rotates it: renewed with the cluster CA when due, same subject), pointing at the kubelet's
// rotated file (left alone), or missing; and a renewal of it through planRenewal.
import assert from "node:assert/strict";
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import {
  KUBELET_CONF_TARGET,
  kubeletClientLine,
  kubeletClientState,
  kubeletConfDue,
} from "../../../core/certs/kubelet_conf.ts";
import { dueForRenewal } from "../../../core/certs/auto_renewal.ts";
import { checkExpiration } from "../../../core/certs/expiration.ts";
import { planRenewal, renewTargets } from "../../../core/certs/renewal.ts";
import { PkiDirectory } from "../../../core/certs/pki_dir.ts";
import { pointToRotatableClientCert } from "../../../core/cluster/kubelet_finalize.ts";
import { parseKubeconfig, serializeKubeconfig } from "../../../core/kubeconfig/kubeconfig.ts";
import { verifyCertChain } from "../../../core/pki/cert.ts";
import { writePlannedFiles } from "../../../core/ports/files.ts";
import { KUBECONFIG_DIR, PKI_CREATED, PKI_DIR, pkiFixture } from "../../support/pki_fixture.ts";
import { seededRandom } from "../../support/fixed_random.ts";

const KUBELET_CONF = `${KUBECONFIG_DIR}/kubelet.conf`;
const DAY = 24 * 3600_000;

Deno.test("kubeletClientState(): embedded, rotated (left alone) or missing", async () => {
  const { files } = await pkiFixture();
  const embedded = await kubeletClientState(files, KUBECONFIG_DIR);
  assert.equal(embedded.kind, "embedded");
  if (embedded.kind !== "embedded") return;
  assert.match(embedded.cert.subject.commonName, /^system:node:/);
  assert.deepEqual(embedded.cert.subject.organization, ["system:nodes"]);
  const expires = embedded.cert.notAfter.getTime();
  assert.equal(kubeletConfDue(embedded, 30 * DAY, new Date(expires - 31 * DAY)), false);
  assert.equal(kubeletConfDue(embedded, 30 * DAY, new Date(expires - 29 * DAY)), true);
  assert.match(kubeletClientLine(embedded), /embeds the kubelet's client certificate.*renewed/);

  files.put(
    KUBELET_CONF,
    serializeKubeconfig(pointToRotatableClientCert(parseKubeconfig(files.text(KUBELET_CONF)!))),
  );
  const rotated = await kubeletClientState(files, KUBECONFIG_DIR);
  assert.deepEqual(rotated, {
    kind: "rotated",
    path: KUBELET_CONF,
    certificateFile: "/var/lib/kubelet/pki/kubelet-client-current.pem",
  });
  assert.equal(kubeletConfDue(rotated, 365 * DAY, new Date(expires)), false);
  assert.match(kubeletClientLine(rotated), /which the kubelet rotates itself: left alone/);

  files.put(KUBELET_CONF, "{not: [a kubeconfig");
  const broken = await kubeletClientState(files, KUBECONFIG_DIR);
  assert.equal(broken.kind, "missing");
  assert.ok(broken.kind === "missing" && broken.reason);
  assert.deepEqual(await kubeletClientState(files, "/nowhere"), {
    kind: "missing",
    path: "/nowhere/kubelet.conf",
  });
});

Deno.test("dueForRenewal() adds kubelet.conf last when embedded and due, never when rotated", async () => {
  const { files, cfg } = await pkiFixture();
  const now = new Date(PKI_CREATED.getTime() + 340 * DAY);
  const pki = new PkiDirectory(files, PKI_DIR, webCryptoPort);
  const { info } = await checkExpiration({
    pki,
    kubeconfigDir: KUBECONFIG_DIR,
    externalEtcd: false,
    now,
  });
  assert.ok(!info.certificates.some((c) => c.name === "kubelet.conf"), "as upstream's report");
  const state = await kubeletClientState(files, KUBECONFIG_DIR);
  const due = dueForRenewal(info, 30 * DAY, { state, now }).renew;
  assert.deepEqual(due, [...renewTargets().map((t) => t.name), "kubelet.conf"]);
  assert.deepEqual(dueForRenewal(info, 30 * DAY).renew, renewTargets().map((t) => t.name));
  const rotated = { kind: "rotated" as const, path: KUBELET_CONF, certificateFile: "/x.pem" };
  assert.ok(!dueForRenewal(info, 30 * DAY, { state: rotated, now }).renew.includes("kubelet.conf"));
  assert.equal(cfg.cluster.certificatesDir, PKI_DIR);
});

Deno.test("planRenewal() renews kubelet.conf's embedded certificate: same subject, the cluster CA, a new key", async () => {
  const { files } = await pkiFixture();
  const before = await kubeletClientState(files, KUBECONFIG_DIR);
  assert.ok(before.kind === "embedded");
  const keyOf = () => parseKubeconfig(files.text(KUBELET_CONF)!).users[0].user["client-key-data"];
  const oldKey = keyOf();
  const start = new Date(PKI_CREATED.getTime() + 300 * DAY);
  const pki = new PkiDirectory(files, PKI_DIR, webCryptoPort);
  const plan = await planRenewal({
    pki,
    kubeconfigDir: KUBECONFIG_DIR,
    settings: { encryptionAlgorithm: "ECDSA-P256", externalEtcd: false },
    names: [KUBELET_CONF_TARGET.name],
    startTime: start,
    now: start,
    random: seededRandom(3),
  });
  assert.deepEqual(plan.files.map((f) => [f.path, f.kind, f.keepExistingMode]), [
    [KUBELET_CONF, "kubeconfig", true],
  ]);
  assert.deepEqual(plan.outcomes.map((o) => o.status), ["renewed"]);
  await writePlannedFiles(files, plan.files);
  const after = await kubeletClientState(files, KUBECONFIG_DIR);
  assert.ok(after.kind === "embedded");
  assert.deepEqual(after.cert.subject, before.cert.subject);
  assert.equal(
    after.cert.notAfter.toISOString(),
    new Date(start.getTime() + 365 * DAY).toISOString(),
  );
  assert.notEqual(after.cert.serialNumber, before.cert.serialNumber);
  assert.notEqual(keyOf(), oldKey);
  await verifyCertChain(after.cert, [], await pki.loadCert("ca"), start, webCryptoPort);
  // `certs renew`'s own names stay upstream's: kubelet.conf is not one of them.
  assert.ok(!renewTargets().some((t) => t.name === "kubelet.conf"));
});
