import { webCryptoPort } from "../../../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../../../support/platform.ts";
import assert from "node:assert/strict";
import { runCert } from "../../../../core/phases/init/certs.ts";
import { runKubeconfig } from "../../../../core/phases/init/kubeconfig.ts";
import { initWorkflow } from "../../../../core/phases/init/workflow.ts";
import { runWorkflow } from "../../../../core/workflow/runner.ts";
import { readKubeconfigFile } from "../../../../core/kubeconfig/files.ts";
import type { InitData } from "../../../../core/phases/init/data.ts";

/** `init phase kubeconfig all`. */
const runAllKubeconfigs = (data: InitData) =>
  runWorkflow(initWorkflow(), data, { only: "kubeconfig/all" });
import { ExistingFileError, PhaseError, PkiError } from "../../../../core/errors.ts";
import {
  createBasicKubeconfig,
  embeddedText,
  parseKubeconfig,
  resolveContext,
  serializeKubeconfig,
} from "../../../../core/kubeconfig/kubeconfig.ts";
import {
  createSelfSignedCACert,
  encodeCertificatePEM,
  parseCertificatesPEM,
} from "../../../../core/pki/cert.ts";
import { encodePrivateKeyPEM, generateKeyPair } from "../../../../core/pki/keys.ts";
import { initDataFixture } from "../../../support/init_data_fixture.ts";
import { MemoryFileSystem } from "../../../support/memory_fs.ts";
import {
  openssl,
  opensslPubFromCert,
  opensslPubFromKey,
  runTool,
} from "../../../support/openssl.ts";
import { seededRandom } from "../../../support/fixed_random.ts";

const K = "/etc/kubernetes";
const START = new Date("2026-06-01T12:00:00Z");

function fixture(files = new MemoryFileSystem()) {
  const f = initDataFixture({ files });
  f.data.cfg.cluster.encryptionAlgorithm = "ECDSA-P256";
  f.data.startTime = START;
  f.data.clock = { now: () => new Date(START.getTime() + 60_000) };
  f.data.random = seededRandom(9);
  return f;
}

async function withCA() {
  const f = fixture();
  await runCert(f.data, "ca");
  return f;
}

const EXPECTED: [string, string, string, string][] = [
  ["admin.conf", "kubernetes-admin", "kubeadm:cluster-admins", "https://192.168.0.10:6443"],
  ["super-admin.conf", "kubernetes-super-admin", "system:masters", "https://192.168.0.10:6443"],
  ["kubelet.conf", "system:node:cp-1", "system:nodes", "https://192.168.0.10:6443"],
  ["controller-manager.conf", "system:kube-controller-manager", "", "https://192.168.0.10:6443"],
  ["scheduler.conf", "system:kube-scheduler", "", "https://192.168.0.10:6443"],
];

Deno.test("runAllKubeconfigs() writes the five files kubectl loads, with the right identities", async () => {
  const { data, out, files } = await withCA();
  out.lines.length = 0;
  await runAllKubeconfigs(data);
  assert.deepEqual(out.lines, [
    '[kubeconfig] Using kubeconfig folder "/etc/kubernetes"',
    '[kubeconfig] Writing "admin.conf" kubeconfig file',
    '[kubeconfig] Writing "super-admin.conf" kubeconfig file',
    '[kubeconfig] Writing "kubelet.conf" kubeconfig file',
    '[kubeconfig] Writing "controller-manager.conf" kubeconfig file',
    '[kubeconfig] Writing "scheduler.conf" kubeconfig file',
  ]);
  assert.deepEqual(out.warnings, []);
  const root = await files.dumpTo(await Deno.makeTempDir());
  const caPem = files.text(`${K}/pki/ca.crt`)!;
  for (const [file, cn, org, server] of EXPECTED) {
    const path = `${K}/${file}`;
    assert.equal(files.files.get(path)?.mode, 0o600, file);
    const view = await runTool("kubectl", [
      "config",
      "view",
      "--raw",
      "-o",
      "json",
      "--kubeconfig",
      `${root}${path}`,
    ]);
    assert.equal(view.code, 0, view.stderr);
    const json = JSON.parse(view.stdout);
    assert.equal(json["current-context"], `${cn}@kubernetes`);
    assert.equal(json.clusters[0].name, "kubernetes");
    assert.equal(json.clusters[0].cluster.server, server);
    assert.equal(json.users[0].name, cn);
    const kc = parseKubeconfig(files.text(path)!, path);
    const cur = resolveContext(kc, { source: path });
    assert.equal(embeddedText(cur.cluster["certificate-authority-data"]!), caPem);
    const certPem = embeddedText(cur.user!["client-certificate-data"]!);
    const keyPem = embeddedText(cur.user!["client-key-data"]!);
    const subject = await openssl(["x509", "-noout", "-subject", "-nameopt", "RFC2253"], certPem);
    assert.equal(subject.trim(), org ? `subject=CN=${cn},O=${org}` : `subject=CN=${cn}`);
    assert.equal(await opensslPubFromCert(certPem), await opensslPubFromKey(keyPem));
    const leafFile = await Deno.makeTempFile();
    await Deno.writeTextFile(leafFile, certPem);
    const v = await runTool("openssl", [
      "verify",
      "-purpose",
      "sslclient",
      "-CAfile",
      `${root}${K}/pki/ca.crt`,
      leafFile,
    ]);
    assert.equal(v.code, 0, v.stderr);
    const [cert] = parseCertificatesPEM(certPem);
    assert.equal(cert.notAfter.toISOString(), "2027-06-01T12:00:00.000Z");
    assert.equal(cert.notBefore.toISOString(), "2026-06-01T11:55:00.000Z");
  }
  // The text kubectl itself would write parses back identically.
  assert.equal(
    serializeKubeconfig(parseKubeconfig(files.text(`${K}/admin.conf`)!)),
    files.text(`${K}/admin.conf`),
  );
  await Deno.remove(root, { recursive: true });
});

Deno.test("kubeconfig files: reused when they fit, wrong CA is an error, other server only warns", async () => {
  const { data, files } = await withCA();
  await runAllKubeconfigs(data);
  const snap = files.snapshot();
  const again = fixture(files);
  await runAllKubeconfigs(again.data);
  assert.deepEqual(files.snapshot(), snap);
  assert.deepEqual(
    again.out.lines.slice(1),
    EXPECTED.map(([f]) => `[kubeconfig] Using existing kubeconfig file: "${K}/${f}"`),
  );

  // A different control-plane endpoint: warning, file kept.
  const moved = fixture(files);
  moved.data.cfg.cluster.controlPlaneEndpoint = "lb.example.com";
  await runKubeconfig(moved.data, "admin");
  assert.deepEqual(moved.out.warnings, [
    `a kubeconfig file "${K}/admin.conf" exists already but has an unexpected API Server URL: expected: https://lb.example.com:6443, got: https://192.168.0.10:6443`,
  ]);
  assert.deepEqual(files.snapshot(), snap);

  // A kubeconfig carrying another CA.
  const otherKey = await generateKeyPair("ECDSA-P256", webKeys);
  const other = await createSelfSignedCACert(
    { commonName: "kubernetes", notBefore: START },
    otherKey,
    seededRandom(2),
    webCryptoPort,
  );
  files.put(
    `${K}/scheduler.conf`,
    serializeKubeconfig(
      createBasicKubeconfig(
        "https://192.168.0.10:6443",
        "kubernetes",
        "x",
        encodeCertificatePEM(other),
      ),
    ),
  );
  await assert.rejects(
    () => runKubeconfig(fixture(files).data, "scheduler"),
    (e: unknown) =>
      e instanceof ExistingFileError &&
      e.message ===
        `a kubeconfig file "${K}/scheduler.conf" exists already but has got the wrong CA cert`,
  );
  // A file that is not a kubeconfig / has no current context.
  files.put(`${K}/kubelet.conf`, "apiVersion: v1\nkind: Config\n");
  await assert.rejects(
    () => runKubeconfig(fixture(files).data, "kubelet"),
    /failed to find CurrentContext in Contexts of the kubeconfig file \/etc\/kubernetes\/kubelet\.conf/,
  );
});

Deno.test("a CA referenced by file path is compared too", async () => {
  const { data, files, out } = await withCA();
  const kc = createBasicKubeconfig("https://192.168.0.10:6443", "kubernetes", "x", "");
  kc.clusters[0].cluster["certificate-authority"] = `${K}/pki/ca.crt`;
  files.put(`${K}/admin.conf`, serializeKubeconfig(kc));
  await runKubeconfig(data, "admin");
  assert.equal(
    out.lines[out.lines.length - 1],
    `[kubeconfig] Using existing kubeconfig file: "${K}/admin.conf"`,
  );
  // The same file pointing at a missing CA file has no CA: wrong CA.
  kc.clusters[0].cluster["certificate-authority"] = "/nowhere/ca.crt";
  files.put(`${K}/admin.conf`, serializeKubeconfig(kc));
  await assert.rejects(
    () => runKubeconfig(data, "admin"),
    /exists already but has got the wrong CA cert/,
  );
  assert.match(out.warnings[0], /failed to load CA cert from "\/nowhere\/ca\.crt" for kubeconfig/);
});

Deno.test("missing CA: upstream's hint to run `kubeadm init phase certs ca`", async () => {
  const { data } = fixture();
  await assert.rejects(
    () => runKubeconfig(data, "admin"),
    (e: unknown) =>
      e instanceof PkiError &&
      e.message.startsWith(
        "the CA files do not exist, please run `kubeadm init phase certs ca` to generate it: ",
      ),
  );
});

Deno.test("external CA: provided kubeconfigs are validated and used, missing ones fail", async () => {
  const { data, files } = await withCA();
  await runAllKubeconfigs(data);
  files.remove(`${K}/pki/ca.key`);
  const ext = fixture(files);
  const writes = files.writes.length;
  await runAllKubeconfigs(ext.data);
  assert.deepEqual(
    ext.out.lines.slice(1),
    EXPECTED.map(([f]) => `[kubeconfig] External CA mode: Using user provided ${f}`),
  );
  assert.equal(files.writes.length, writes);
  files.remove(`${K}/super-admin.conf`);
  await assert.rejects(
    () => runKubeconfig(fixture(files).data, "super-admin"),
    /the super-admin\.conf file does not exists or it is not valid/,
  );
});

Deno.test("controlPlaneEndpoint: admin uses it (port warning); kubelet (local mode), controller-manager, scheduler stay local", async () => {
  const { data, files, out } = await withCA();
  data.cfg.cluster.controlPlaneEndpoint = "[fd00::100]:8443";
  await runAllKubeconfigs(data);
  const server = (f: string) =>
    resolveContext(parseKubeconfig(files.text(`${K}/${f}`)!)).cluster.server;
  assert.equal(server("admin.conf"), "https://[fd00::100]:8443");
  assert.equal(server("kubelet.conf"), "https://192.168.0.10:6443");
  assert.equal(server("scheduler.conf"), "https://192.168.0.10:6443");
  assert.ok(
    out.warnings.every((w) =>
      w.startsWith("[endpoint] WARNING: port specified in controlPlaneEndpoint")
    ),
  );
  assert.equal(out.warnings.length, 5);
});

Deno.test("a ca.key not matching ca.crt is refused before any kubeconfig is signed", async () => {
  const f = await withCA();
  f.files.put(
    `${K}/pki/ca.key`,
    await encodePrivateKeyPEM(await generateKeyPair("ECDSA-P256", webKeys)),
    0o600,
  );
  const before = f.files.snapshot();
  await assert.rejects(
    () => runAllKubeconfigs(fixture(f.files).data),
    (e: unknown) =>
      // The phase's header checks the CA before any sub-phase writes.
      e instanceof PhaseError && e.phase === "kubeconfig" &&
      e.cause instanceof ExistingFileError &&
      e.cause.message.includes(
        `the private key file ${K}/pki/ca.key does not match the certificate ${K}/pki/ca.crt`,
      ) && /or remove both files to have them generated$/.test(e.cause.hint ?? ""),
  );
  assert.deepEqual(f.files.snapshot(), before, "nothing written");
});

/** Another cluster's kubeconfig file (its own CA, seed 3). */
async function foreignKubeconfig(name: string, file: string): Promise<string> {
  const other = fixture();
  other.data.random = seededRandom(3);
  await runCert(other.data, "ca");
  await runKubeconfig(other.data, name);
  return other.files.text(`${K}/${file}`)!;
}

/** Existing kubeconfig files `init phase kubeconfig all` refused only after writing those before them. */
const BROKEN_KUBECONFIGS: [string, string, () => Promise<string>, RegExp][] = [
  [
    "of another cluster",
    "controller-manager.conf",
    () => foreignKubeconfig("controller-manager", "controller-manager.conf"),
    /^a kubeconfig file "\/etc\/kubernetes\/controller-manager\.conf" exists already but has got the wrong CA cert$/,
  ],
  [
    "that is not a kubeconfig",
    "scheduler.conf",
    () => Promise.resolve("-----BEGIN CERTIFICATE-----\nAAAA\n"),
    /^failed to load kubeconfig file \/etc\/kubernetes\/scheduler\.conf that already exists on disk: /,
  ],
];

for (const [what, file, content, message] of BROKEN_KUBECONFIGS) {
  Deno.test(`init phase kubeconfig all refuses a ${file} ${what} before writing any file`, async () => {
    const f = await withCA();
    f.files.put(`${K}/${file}`, await content(), 0o600);
    const before = f.files.snapshot();
    await assert.rejects(
      () => runAllKubeconfigs(fixture(f.files).data),
      (e: unknown) =>
        e instanceof PhaseError && e.phase === "kubeconfig" &&
        e.cause instanceof ExistingFileError && e.cause.field === `${K}/${file}` &&
        message.test(e.cause.message) && (e.cause.hint ?? "") !== "",
    );
    assert.deepEqual(f.files.snapshot(), before, "nothing written");
  });
}

Deno.test("init refuses an existing kubeconfig of another cluster in its certs phase, before any certificate", async () => {
  const admin = await foreignKubeconfig("admin", "admin.conf");
  // Without a CA (this run generates it) and with a valid CA on disk.
  for (const withCa of [false, true]) {
    const f = withCa ? await withCA() : fixture();
    f.files.put(`${K}/admin.conf`, admin, 0o600);
    const before = f.files.snapshot();
    const run = fixture(f.files);
    run.data.willRun = () => true; // `kubeadm init`: every phase runs.
    await assert.rejects(
      () => runWorkflow(initWorkflow(), run.data, { only: "certs" }),
      (e: unknown) =>
        e instanceof PhaseError && e.phase === "certs" && e.cause instanceof ExistingFileError &&
        e.cause.field === `${K}/admin.conf` &&
        e.cause.message.startsWith(
          `a kubeconfig file "${K}/admin.conf" exists already but has got the wrong CA cert${
            withCa ? "" : `: ${K}/pki/ca.crt does not exist, so this run generates a new CA`
          }`,
        ),
    );
    assert.deepEqual(f.files.snapshot(), before, "nothing written");
  }
});

Deno.test("init phase kubeconfig all still reuses valid files as they are", async () => {
  const f = await withCA();
  await runAllKubeconfigs(f.data);
  const before = f.files.snapshot();
  const again = fixture(f.files);
  await runAllKubeconfigs(again.data);
  assert.deepEqual(f.files.snapshot(), before);
  assert.equal(again.out.lines.filter((l) => l.includes("Using existing kubeconfig")).length, 5);
});

Deno.test("a kubeconfig file the run wrote reads back as parsing it would, each reader with its own copy", async () => {
  const f = await withCA();
  await runAllKubeconfigs(f.data);
  for (const [file] of EXPECTED) {
    const path = `${K}/${file}`;
    const text = new TextDecoder().decode(await f.data.files.read(path));
    const read = await readKubeconfigFile(f.data.files, path);
    assert.deepEqual(read, parseKubeconfig(text, path), file);
    read!.users[0].name = "changed";
    assert.notEqual((await readKubeconfigFile(f.data.files, path))!.users[0].name, "changed");
  }
  // Another file system has not seen the writes: it parses (and refuses) what it reads.
  const other = new MemoryFileSystem();
  await other.write({
    path: `${K}/admin.conf`,
    data: "- not\n- a map\n",
    mode: 0o600,
    kind: "kubeconfig",
  });
  await assert.rejects(() => readKubeconfigFile(other, `${K}/admin.conf`), /must be a mapping/);
});
