import assert from "node:assert/strict";
import { planCaRotation } from "../../mod.ts";
import { encodeCertificatePEM } from "../../core/pki/cert.ts";
import { encodePrivateKeyPEM } from "../../core/pki/keys.ts";
import { certificatePin } from "../../core/pki/pin.ts";
import { webCryptoPort } from "../../adapters/crypto/webcrypto.ts";
import { KubeadmError } from "../../core/errors.ts";
import { testCA } from "../support/ca_rotation.ts";

const PKI = "/etc/kubernetes/pki";

async function ca(seed: number) {
  const { cert, key } = await testCA(seed);
  return { crt: encodeCertificatePEM(cert), key: await encodePrivateKeyPEM(key), cert };
}

const file = (path: string, content: string) => ({ path: `${PKI}/${path}`, mode: 0o644, content });

Deno.test("planCaRotation(): no rotation, then one trusted by both, from the node's files", async () => {
  const old = await ca(1);
  const next = await ca(2);
  const none = await planCaRotation({ files: [file("ca.crt", old.crt), file("ca.key", old.key)] });
  assert.equal(none.stage, "none");
  assert.equal(none.currentPin, await certificatePin(old.cert, webCryptoPort));
  assert.equal(none.newPin, undefined);
  assert.equal(none.steps[none.next].phase, "prepare");

  const trusted = await planCaRotation({
    files: [
      file("ca.crt", old.crt + next.crt),
      file("ca.key", old.key),
      file("ca-rotation/old-ca.crt", old.crt),
      file("ca-rotation/old-ca.key", old.key),
      file("ca-rotation/new-ca.crt", next.crt),
      file("ca-rotation/new-ca.key", next.key),
    ],
  });
  assert.equal(trusted.stage, "trusted");
  assert.equal(trusted.newPin, await certificatePin(next.cert, webCryptoPort));
  // Trust did not record its completion: it is what runs next.
  assert.equal(trusted.steps[trusted.next].phase, "trust");

  await assert.rejects(
    planCaRotation({ files: [], ca: "etcd" }),
    (e) => e instanceof KubeadmError && e.field === "--ca",
  );
});

Deno.test('planCaRotation({ ca: "front-proxy-ca" }): its own files and folder, its steps; a --ca not rotated or unknown is refused', async () => {
  const cluster = await ca(1);
  const old = await ca(2);
  const next = await ca(3);
  const clusterFiles = [file("ca.crt", cluster.crt), file("ca.key", cluster.key)];
  const none = await planCaRotation({
    files: [
      ...clusterFiles,
      file("front-proxy-ca.crt", old.crt),
      file("front-proxy-ca.key", old.key),
    ],
    ca: "front-proxy-ca",
  });
  assert.equal(none.stage, "none");
  assert.equal(none.currentPin, await certificatePin(old.cert, webCryptoPort));
  assert.deepEqual(none.steps.map((s) => s.phase), ["prepare", "trust", "reissue", "finish"]);
  assert.equal(none.next, 0);

  const rotating = [
    ...clusterFiles,
    file("front-proxy-ca.crt", next.crt + old.crt),
    file("front-proxy-ca.key", next.key),
    file("front-proxy-ca-rotation/old-ca.crt", old.crt),
    file("front-proxy-ca-rotation/old-ca.key", old.key),
    file("front-proxy-ca-rotation/new-ca.crt", next.crt),
    file("front-proxy-ca-rotation/new-ca.key", next.key),
    file("front-proxy-ca-rotation/trust.done", ""),
  ];
  const signed = await planCaRotation({ files: rotating, ca: "front-proxy-ca" });
  assert.equal(signed.stage, "signed");
  assert.equal(signed.newPin, await certificatePin(next.cert, webCryptoPort));
  assert.equal(signed.steps[signed.next].phase, "reissue");
  const done = await planCaRotation({
    files: [...rotating, file("front-proxy-ca-rotation/reissue.done", "")],
    ca: "front-proxy-ca",
  });
  assert.equal(done.steps[done.next].phase, "finish");
  // The cluster CA's rotation is another one: none runs.
  assert.equal((await planCaRotation({ files: rotating })).stage, "none");

  for (const name of ["etcd", "front-proxy"]) {
    await assert.rejects(
      planCaRotation({ files: rotating, ca: name }),
      (e) => e instanceof KubeadmError && e.field === "--ca",
    );
  }
});
