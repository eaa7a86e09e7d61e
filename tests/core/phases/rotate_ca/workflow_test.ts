import assert from "node:assert/strict";
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import { runRotateCa } from "../../../../core/phases/rotate_ca/workflow.ts";
import { checkNode } from "../../../../core/phases/rotate_ca/preflight.ts";
import { withSigningCert } from "../../../../core/phases/rotate_ca/control_plane.ts";
import type { RotateCaData } from "../../../../core/phases/rotate_ca/data.ts";
import {
  caPairFiles,
  CLUSTER_CA,
  FRONT_PROXY_CA,
  newCAPath,
  oldCAPath,
} from "../../../../core/certs/ca_rotation.ts";
import { PkiDirectory } from "../../../../core/certs/pki_dir.ts";
import { KubeadmError } from "../../../../core/errors.ts";
import { webCryptoPort } from "../../../../adapters/crypto/webcrypto.ts";
import { MemoryFileSystem } from "../../../support/memory_fs.ts";
import { seededRandom } from "../../../support/fixed_random.ts";
import { RecordingPrinter } from "../../../support/recording_printer.ts";
import { FakeNodeHost } from "../../../support/fake_node_host.ts";
import { resolveForTest } from "../../../support/config.ts";
import { testCA } from "../../../support/ca_rotation.ts";

const PKI = "/etc/kubernetes/pki";
const OLD_CA = oldCAPath(CLUSTER_CA);
const NEW_CA = newCAPath(CLUSTER_CA);

/** A control plane's data whose cluster must not be reached (dry runs, refusals). */
function dataOf(files: MemoryFileSystem, extra: Partial<RotateCaData> = {}) {
  const out = new RecordingPrinter();
  const unreachable = () => Promise.reject(new Error("the cluster was contacted"));
  const data: RotateCaData = {
    out,
    ca: CLUSTER_CA,
    dryRun: false,
    cfg: resolveForTest().config,
    pki: new PkiDirectory(files, PKI, webCryptoPort),
    kubernetesDir: "/etc/kubernetes",
    node: new FakeNodeHost(),
    random: seededRandom(7),
    now: new Date("2026-06-01T00:00:00Z"),
    nodeName: "cp1",
    controlPlane: unreachable,
    kubelet: unreachable,
    anonymous: unreachable,
    timing: { clock: { now: () => new Date() }, sleep: () => Promise.resolve() },
    timeoutMs: 1_000,
    ...extra,
  };
  return { data, out };
}

function isError(field: string, message: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof KubeadmError, String(e));
    assert.equal(e.field, field);
    assert.match(e.message, message);
    return true;
  };
}

Deno.test("rotate-ca --dry-run at no rotation: prints what prepare writes, writes nothing, contacts nothing", async () => {
  const files = new MemoryFileSystem();
  const pki = new PkiDirectory(files, PKI, webCryptoPort);
  await pki.writeCertAndKey("ca", await testCA(1));
  const before = files.writes.length;
  const { data, out } = dataOf(files, { dryRun: true });
  await runRotateCa(data);
  assert.equal(files.writes.length, before);
  assert.deepEqual(out.lines.filter((l) => l.startsWith("[dryrun] Would write")), [
    `[dryrun] Would write ${PKI}/${OLD_CA}.key`,
    `[dryrun] Would write ${PKI}/${OLD_CA}.crt`,
    `[dryrun] Would write ${PKI}/${NEW_CA}.key`,
    `[dryrun] Would write ${PKI}/${NEW_CA}.crt`,
  ]);
  assert.ok(
    out.lines.includes("[rotate-ca] trust: nothing to do at stage none"),
    out.lines.join("\n"),
  );
});

Deno.test("rotate-ca preflight: refuses a node without the CA key, the CA in use, another rotation's CA, before any write", async () => {
  const current = await testCA(1);
  const worker = new MemoryFileSystem();
  await worker.write(new PkiDirectory(worker, PKI, webCryptoPort).certFile("ca", current.cert));
  await assert.rejects(
    checkNode(dataOf(worker).data),
    isError(`${PKI}/ca.key`, /only be rotated on a control-plane node that holds its key/),
  );

  const files = new MemoryFileSystem();
  const pki = new PkiDirectory(files, PKI, webCryptoPort);
  await pki.writeCertAndKey("ca", current);
  await assert.rejects(
    runRotateCa(dataOf(files, { newCA: current }).data),
    isError("--ca-cert", /the CA the cluster uses now/),
  );
  // A rotation to `next` under way: another --ca-cert is refused.
  const next = await testCA(2);
  for (const f of await caPairFiles(pki, OLD_CA, current)) await files.write(f);
  for (const f of await caPairFiles(pki, NEW_CA, next)) await files.write(f);
  const writes = files.writes.length;
  await assert.rejects(
    runRotateCa(dataOf(files, { newCA: await testCA(3) }).data),
    isError("--ca-cert", /a rotation to another CA is under way/),
  );
  assert.equal(files.writes.length, writes, "nothing written");
});

Deno.test("rotate-ca --ca front-proxy-ca --dry-run: prepare's files in front-proxy-ca-rotation, nothing written or contacted", async () => {
  const files = new MemoryFileSystem();
  const pki = new PkiDirectory(files, PKI, webCryptoPort);
  await pki.writeCertAndKey("ca", await testCA(1));
  await pki.writeCertAndKey("front-proxy-ca", await testCA(2));
  const before = files.writes.length;
  const { data, out } = dataOf(files, { dryRun: true, ca: FRONT_PROXY_CA });
  await runRotateCa(data);
  assert.equal(files.writes.length, before);
  assert.deepEqual(out.lines.filter((l) => l.startsWith("[dryrun] Would write")), [
    `[dryrun] Would write ${PKI}/front-proxy-ca-rotation/old-ca.key`,
    `[dryrun] Would write ${PKI}/front-proxy-ca-rotation/old-ca.crt`,
    `[dryrun] Would write ${PKI}/front-proxy-ca-rotation/new-ca.key`,
    `[dryrun] Would write ${PKI}/front-proxy-ca-rotation/new-ca.crt`,
  ]);
});

Deno.test("rotate-ca --ca front-proxy-ca refuses, before any write: no front-proxy-ca.key, a --ca-key of another certificate, the CA in use", async () => {
  const current = await testCA(1);
  const files = new MemoryFileSystem();
  const pki = new PkiDirectory(files, PKI, webCryptoPort);
  await pki.writeCertAndKey("ca", await testCA(5));
  await files.write(pki.certFile("front-proxy-ca", current.cert));
  const writes = () => files.writes.length;
  const start = writes();
  await assert.rejects(
    runRotateCa(dataOf(files, { ca: FRONT_PROXY_CA }).data),
    isError(
      `${PKI}/front-proxy-ca.key`,
      /only be rotated on a control-plane node that holds its key/,
    ),
  );
  await pki.writeCertAndKey("front-proxy-ca", current);
  const before = writes();
  assert.ok(before > start);
  const next = await testCA(2);
  const other = await testCA(3);
  await assert.rejects(
    runRotateCa(
      dataOf(files, { ca: FRONT_PROXY_CA, newCA: { cert: next.cert, key: other.key } }).data,
    ),
    isError("--ca-key", /the key of --ca-key does not match the certificate of --ca-cert/),
  );
  await assert.rejects(
    runRotateCa(dataOf(files, { ca: FRONT_PROXY_CA, newCA: current }).data),
    isError("--ca-cert", /the CA the cluster uses now/),
  );
  assert.equal(writes(), before, "nothing written");
});

Deno.test("withSigningCert() points the controller-manager's signer at a file, replacing or adding the flag", () => {
  const pod = (command: string[]): Pod => ({ spec: { containers: [{ name: "c", command }] } });
  const edited = withSigningCert(
    pod(["kube-controller-manager", "--cluster-signing-cert-file=/etc/kubernetes/pki/ca.crt"]),
    "/etc/kubernetes/pki/ca-rotation/signer.crt",
  );
  assert.deepEqual(edited.spec?.containers[0].command, [
    "kube-controller-manager",
    "--cluster-signing-cert-file=/etc/kubernetes/pki/ca-rotation/signer.crt",
  ]);
  assert.deepEqual(
    withSigningCert(pod(["kube-controller-manager"]), "/x.crt").spec?.containers[0].command,
    ["kube-controller-manager", "--cluster-signing-cert-file=/x.crt"],
  );
});
