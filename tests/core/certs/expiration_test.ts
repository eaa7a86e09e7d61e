import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import {
  checkExpiration,
  expiringWithin,
  formatExpirationText,
  formatExpiryDate,
} from "../../../core/certs/expiration.ts";
import { formatStructured } from "../../../core/text/structured_output.ts";
import { KubeadmError } from "../../../core/errors.ts";
import { KUBECONFIG_DIR, PKI_DIR, pkiFixture } from "../../support/pki_fixture.ts";
import type { MemoryFileSystem } from "../../support/memory_fs.ts";
import { PkiDirectory } from "../../../core/certs/pki_dir.ts";

const NOW = new Date("2026-03-01T00:00:00Z");
/** The node's certificate files as the checks read them. */
function where(files: MemoryFileSystem) {
  return { pki: new PkiDirectory(files, PKI_DIR, webCryptoPort), kubeconfigDir: KUBECONFIG_DIR };
}

Deno.test("checkExpiration() reports every certificate, kubeconfig and CA as upstream", async () => {
  const { files } = await pkiFixture();
  const { info, warnings } = await checkExpiration({
    ...where(files),
    externalEtcd: false,
    now: NOW,
  });
  assert.deepEqual(warnings, []);
  assert.equal(info.kind, "CertificateExpirationInfo");
  assert.equal(info.apiVersion, "output.kubeadm.k8s.io/v1alpha3");
  assert.deepEqual(info.certificates.map((c) => [c.name, c.caName]), [
    ["admin.conf", "ca"],
    ["apiserver", "ca"],
    ["apiserver-etcd-client", "etcd-ca"],
    ["apiserver-kubelet-client", "ca"],
    ["controller-manager.conf", "ca"],
    ["etcd-healthcheck-client", "etcd-ca"],
    ["etcd-peer", "etcd-ca"],
    ["etcd-server", "etcd-ca"],
    ["front-proxy-client", "front-proxy-ca"],
    ["scheduler.conf", "ca"],
    ["super-admin.conf", "ca"],
  ]);
  const leafEnd = "2027-01-10T08:00:00Z";
  for (const c of info.certificates) {
    assert.equal(c.expirationDate, leafEnd, c.name);
    assert.equal(c.residualTime, (Date.parse(leafEnd) - NOW.getTime()) / 1000);
    assert.equal(c.externallyManaged, false);
    assert.equal(c.missing, false);
  }
  assert.deepEqual(info.certificateAuthorities.map((c) => [c.name, c.expirationDate]), [
    ["ca", "2036-01-08T08:00:00Z"],
    ["etcd-ca", "2036-01-08T08:00:00Z"],
    ["front-proxy-ca", "2036-01-08T08:00:00Z"],
  ]);
  assert.ok(info.certificateAuthorities.every((c) => !("caName" in c)));
  // JSON in upstream's field order (caName left out for CAs).
  const json = formatStructured(info, "json");
  assert.match(
    json,
    /^\{\n {4}"kind": "CertificateExpirationInfo",\n {4}"apiVersion": "output\.kubeadm\.k8s\.io\/v1alpha3",\n {4}"certificates": \[\n {8}\{\n {12}"name": "admin\.conf",\n {12}"expirationDate": "2027-01-10T08:00:00Z",\n {12}"residualTime": 27244800,\n {12}"externallyManaged": false,\n {12}"caName": "ca",\n {12}"missing": false\n {8}\},/,
  );
  assert.match(
    formatStructured(info, "yaml"),
    /^apiVersion: output\.kubeadm\.k8s\.io\/v1alpha3\ncertificateAuthorities:\n- expirationDate: "2036-01-08T08:00:00Z"\n {2}externallyManaged: false\n {2}missing: false\n {2}name: ca\n {2}residualTime: 311068800\n/,
  );
});

Deno.test("formatExpirationText() prints upstream's two tables", async () => {
  const { files } = await pkiFixture();
  files.remove(`${PKI_DIR}/front-proxy-client.crt`);
  files.remove(`${KUBECONFIG_DIR}/scheduler.conf`);
  files.remove(`${PKI_DIR}/etcd/ca.key`);
  const { info } = await checkExpiration({
    ...where(files),
    externalEtcd: false,
    now: NOW,
  });
  const text = formatExpirationText(info);
  assert.equal(
    text,
    `CERTIFICATE                    EXPIRES                  RESIDUAL TIME   CERTIFICATE AUTHORITY   EXTERNALLY MANAGED
admin.conf                     Jan 10, 2027 08:00 UTC   315d            ca                      no      
apiserver                      Jan 10, 2027 08:00 UTC   315d            ca                      no      
apiserver-etcd-client          Jan 10, 2027 08:00 UTC   315d            etcd-ca                 yes     
apiserver-kubelet-client       Jan 10, 2027 08:00 UTC   315d            ca                      no      
controller-manager.conf        Jan 10, 2027 08:00 UTC   315d            ca                      no      
etcd-healthcheck-client        Jan 10, 2027 08:00 UTC   315d            etcd-ca                 yes     
etcd-peer                      Jan 10, 2027 08:00 UTC   315d            etcd-ca                 yes     
etcd-server                    Jan 10, 2027 08:00 UTC   315d            etcd-ca                 yes     
!MISSING! front-proxy-client                                                                    
!MISSING! scheduler.conf                                                                        
super-admin.conf               Jan 10, 2027 08:00 UTC   315d            ca                      no      

CERTIFICATE AUTHORITY   EXPIRES                  RESIDUAL TIME   EXTERNALLY MANAGED
ca                      Jan 08, 2036 08:00 UTC   9y              no      
etcd-ca                 Jan 08, 2036 08:00 UTC   9y              yes     
front-proxy-ca          Jan 08, 2036 08:00 UTC   9y              no      
`,
  );
  const missing = info.certificates.find((c) => c.name === "scheduler.conf")!;
  assert.deepEqual(missing, {
    name: "scheduler.conf",
    expirationDate: null,
    residualTime: 0,
    externallyManaged: false,
    missing: true,
  });
});

Deno.test("checkExpiration() with external etcd leaves the etcd certificates out", async () => {
  const { files } = await pkiFixture();
  const { info } = await checkExpiration({
    ...where(files),
    externalEtcd: true,
    now: NOW,
  });
  assert.ok(!info.certificates.some((c) => c.caName === "etcd-ca"));
  assert.deepEqual(info.certificateAuthorities.map((c) => c.name), ["ca", "front-proxy-ca"]);
});

Deno.test("checkExpiration() fails naming the file it cannot read", async () => {
  const { files } = await pkiFixture();
  files.remove(`${PKI_DIR}/etcd/ca.crt`);
  await assert.rejects(
    () => checkExpiration({ ...where(files), externalEtcd: false, now: NOW }),
    (e: unknown) =>
      e instanceof KubeadmError &&
      e.message ===
        "Error checking external CA condition for etcd/ca certificate authority: failure loading certificate for etcd CA: couldn't load the certificate file /etc/kubernetes/pki/etcd/ca.crt: open /etc/kubernetes/pki/etcd/ca.crt: no such file or directory" &&
      e.field === `${PKI_DIR}/etcd/ca.crt`,
  );
  const fresh = (await pkiFixture()).files;
  fresh.put(`${KUBECONFIG_DIR}/controller-manager.conf`, "{");
  await assert.rejects(
    () =>
      checkExpiration({
        ...where(fresh),
        externalEtcd: false,
        now: NOW,
      }),
    (e: unknown) =>
      e instanceof KubeadmError &&
      e.message.startsWith(
        "failed to load kubeConfig file /etc/kubernetes/controller-manager.conf: ",
      ) && e.field === `${KUBECONFIG_DIR}/controller-manager.conf`,
  );
});

Deno.test("expiringWithin() finds what expires inside the window, expired ones included", async () => {
  const { files } = await pkiFixture();
  const late = new Date("2026-12-20T08:00:00Z");
  const { info } = await checkExpiration({
    ...where(files),
    externalEtcd: false,
    now: late,
  });
  assert.deepEqual(expiringWithin(info, 20 * 24 * 3600 * 1000), []);
  assert.equal(expiringWithin(info, 22 * 24 * 3600 * 1000).length, 11);
  const after = await checkExpiration({
    ...where(files),
    externalEtcd: false,
    now: new Date("2027-02-01T00:00:00Z"),
  });
  assert.equal(expiringWithin(after.info, 0).length, 11, "expired leaves count");
  assert.match(formatExpirationText(after.info), /admin\.conf .* <invalid> /);
  files.remove(`${PKI_DIR}/apiserver.crt`);
  const some = await checkExpiration({
    ...where(files),
    externalEtcd: false,
    now: late,
  });
  assert.ok(!expiringWithin(some.info, 3650 * 24 * 3600 * 1000).some((c) => c.missing));
});

Deno.test("formatExpiryDate() is Go's Jan 02, 2006 15:04 MST in UTC", () => {
  assert.equal(formatExpiryDate("2027-11-04T03:08:17Z"), "Nov 04, 2027 03:08 UTC");
});
