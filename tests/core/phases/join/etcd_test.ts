// A control-plane join with a voting etcd member down is refused in preflight, naming the
// member, before anything is written (etcd would refuse the member add); the check signs its
// credentials in memory with the CAs the join will use.
import assert from "node:assert/strict";
import type { KubeObject } from "../../../../core/kube/client.ts";
import { ETCD_ENDPOINT_ANNOTATION } from "../../../../core/constants.ts";
import { KubeadmError } from "../../../../core/errors.ts";
import { runJoinPreflightPhase } from "../../../../core/phases/join/preflight.ts";
import { encodeCertificatePEM, parseCertificatesPEM } from "../../../../core/pki/cert.ts";
import { encodePrivateKeyPEM, generateKeyPair } from "../../../../core/pki/keys.ts";
import type { EtcdMember } from "../../../../core/ports/etcd.ts";
import type { TlsClientMaterial } from "../../../../core/ports/http.ts";
import { webRandom } from "../../../../adapters/web/random.ts";
import { webCryptoPort } from "../../../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../../../support/platform.ts";
import { newCertificateAuthority } from "../../../support/test_pki.ts";
import { fakeCluster, fakeJoin, TOKEN } from "./support.ts";

const MEMBERS: EtcdMember[] = [1, 2, 3].map((n) => ({
  id: String(100 + n),
  name: `cp${n}`,
  peerURLs: [`https://10.0.0.${n}:2380`],
  clientURLs: [`https://10.0.0.${n}:2379`],
  isLearner: false,
}));

/** A three-member stacked etcd cluster, its members' Pods mirrored, `down` not answering. */
async function controlPlaneJoin(opts: { down: string[]; casOnDisk: boolean }) {
  const cluster = await fakeCluster();
  for (const m of MEMBERS) {
    cluster.api.put({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `etcd-${m.name}`,
        namespace: "kube-system",
        labels: { component: "etcd", tier: "control-plane" },
        annotations: { [ETCD_ENDPOINT_ANNOTATION]: m.clientURLs[0] },
      },
    } as KubeObject);
  }
  const j = fakeJoin(cluster, {
    apiServerEndpoint: "10.0.0.1:6443",
    token: TOKEN,
    caCertHashes: [cluster.pin],
    controlPlane: true,
    nodeName: "cp4",
  });
  const etcdCA = await newCertificateAuthority(
    {
      commonName: "etcd-ca",
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 86400_000),
    },
    await generateKeyPair("ECDSA-P256", webKeys),
    webRandom,
    webCryptoPort,
  );
  // The shared certificates copied onto the node by hand (no certificate key).
  if (opts.casOnDisk) {
    for (const [base, ca] of [["ca", cluster.ca], ["etcd/ca", etcdCA]] as const) {
      await j.files.write({
        path: `/etc/kubernetes/pki/${base}.crt`,
        data: encodeCertificatePEM(ca.cert),
        mode: 0o644,
        kind: "certificate",
      });
      await j.files.write({
        path: `/etc/kubernetes/pki/${base}.key`,
        data: await encodePrivateKeyPEM(ca.key),
        mode: 0o600,
        kind: "key",
      });
    }
  }
  const connected: TlsClientMaterial[] = [];
  const asked: string[] = [];
  j.data.node.etcdClient = (endpoints, tls) => {
    connected.push(tls);
    return {
      endpoints,
      listMembers: () => Promise.resolve(structuredClone(MEMBERS)),
      status(endpoint) {
        asked.push(endpoint);
        return opts.down.some((d) => endpoint.includes(d))
          ? Promise.reject(new Error("connect: connection refused"))
          : Promise.resolve();
      },
      addMember: () => Promise.reject(new Error("preflight adds no member")),
      promoteMember: () => Promise.reject(new Error("preflight promotes no member")),
      removeMember: () => Promise.reject(new Error("preflight removes no member")),
    };
  };
  const before = j.files.snapshot();
  return { j, etcdCA, connected, asked, before };
}

Deno.test("a control-plane join with a voting etcd member down is refused before it writes", async () => {
  const { j, etcdCA, connected, before } = await controlPlaneJoin({
    down: ["10.0.0.3"],
    casOnDisk: true,
  });
  await assert.rejects(
    () => runJoinPreflightPhase(j.data),
    (e: unknown) => {
      assert.ok(e instanceof KubeadmError);
      assert.match(
        e.message,
        /^the etcd member cp3 \(https:\/\/10\.0\.0\.3:2379\) does not answer, and etcd refuses to add a member while a voting member is down: connect: connection refused$/,
      );
      assert.match(
        e.hint ?? "",
        /^bring it back .*'etcdctl member remove'.*, then run the join again$/,
      );
      return true;
    },
  );
  assert.deepEqual(j.files.snapshot(), before, "nothing written");
  // etcd was asked with a client certificate of its CA, made in memory.
  const tls = connected.at(-1)!;
  assert.equal(tls.caPem, encodeCertificatePEM(etcdCA.cert));
  const [cert] = parseCertificatesPEM(tls.certPem ?? "");
  assert.equal(cert.subject.commonName, "kube-etcd-healthcheck-client");
  assert.equal(cert.issuer.commonName, "etcd-ca");
});

Deno.test("every voting member answering, the control-plane join's preflight passes", async () => {
  const { j, asked } = await controlPlaneJoin({ down: [], casOnDisk: true });
  await runJoinPreflightPhase(j.data);
  assert.deepEqual(asked.sort(), MEMBERS.map((m) => m.clientURLs[0]));
});

Deno.test("without the CAs at hand, the etcd check is left to check-etcd", async () => {
  const { j, connected } = await controlPlaneJoin({ down: ["10.0.0.3"], casOnDisk: false });
  await runJoinPreflightPhase(j.data);
  assert.equal(connected.length, 0);
});
