import assert from "node:assert/strict";
import type { Node } from "kubernetes-types/core/v1.d.ts";
import {
  approveKubeletServingCsrs,
  isPending,
  KUBELET_SERVING_SIGNER,
  reviewServingCsr,
  servingReportLines,
} from "../../../core/certs/kubelet_serving.ts";
import { createCSR, encodeCSRPEM } from "../../../core/pki/csr.ts";
import { generateKeyPair } from "../../../core/pki/keys.ts";
import { base64Encode } from "../../../core/text/base64.ts";
import type { CertificateSigningRequest } from "kubernetes-types/certificates/v1.d.ts";
import { fakeApiClient } from "../../support/fake_kube_api.ts";
import { openssl, tempFile } from "../../support/openssl.ts";
import { webKeys } from "../../support/platform.ts";

const USAGES = ["digital signature", "server auth"];

function node(name: string, addresses: [string, string][]): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name },
    status: { addresses: addresses.map(([type, address]) => ({ type, address })) },
  };
}

const NODES = [
  node("node1", [["InternalIP", "10.0.0.1"], ["Hostname", "node1"]]),
  node("node2", [["InternalIP", "10.0.0.2"], ["ExternalIP", "2001:db8::2"], ["Hostname", "node2"]]),
];
const byName = new Map(NODES.map((n) => [n.metadata!.name!, n]));

async function csrObject(
  name: string,
  o: {
    cn?: string;
    org?: string[];
    dns?: string[];
    ips?: string[];
    username?: string;
    groups?: string[];
    usages?: string[];
    signer?: string;
    pem?: string;
  } = {},
): Promise<CertificateSigningRequest> {
  const user = o.username ?? `system:node:${name}`;
  const pem = o.pem ?? encodeCSRPEM(
    await createCSR({
      commonName: o.cn ?? user,
      organization: o.org ?? ["system:nodes"],
      dnsNames: o.dns ?? [name],
      ips: o.ips ?? [],
    }, await generateKeyPair("ECDSA-P256", webKeys)),
  );
  return {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name: `csr-${name}-${Math.random().toString(36).slice(2, 7)}` },
    spec: {
      request: base64Encode(new TextEncoder().encode(pem)),
      signerName: o.signer ?? KUBELET_SERVING_SIGNER,
      usages: o.usages ?? USAGES,
      username: user,
      groups: o.groups ?? ["system:nodes", "system:authenticated"],
    },
  };
}

Deno.test("reviewServingCsr() passes a node's own request for its own addresses (ECDSA and RSA usages)", async () => {
  const ok = reviewServingCsr(await csrObject("node1", { ips: ["10.0.0.1"] }), byName);
  assert.deepEqual(ok.problems, []);
  assert.equal(ok.node, "node1");
  assert.deepEqual(ok.sans, ["node1", "10.0.0.1"]);
  const rsa = await csrObject("node2", {
    ips: ["2001:db8:0::2", "10.0.0.2"],
    usages: ["server auth", "key encipherment", "digital signature"],
  });
  assert.deepEqual(reviewServingCsr(rsa, byName).problems, []);
});

Deno.test("reviewServingCsr() leaves forged requests with every reason", async () => {
  const cases: [string, CertificateSigningRequest, RegExp][] = [
    [
      "another node's address",
      await csrObject("node1", { ips: ["10.0.0.2"] }),
      /the IP address 10\.0\.0\.2 is not an address of Node node1/,
    ],
    [
      "a foreign DNS name",
      await csrObject("node1", { dns: ["node1", "kubernetes.default"] }),
      /the DNS name kubernetes\.default is not a host name of Node node1/,
    ],
    [
      "a requester that is not a node",
      await csrObject("node1", { username: "jane" }),
      /the requester "jane" is not a node/,
    ],
    [
      "a node that does not exist",
      await csrObject("ghost", {}),
      /there is no Node "ghost"/,
    ],
    [
      "a subject naming another node",
      await csrObject("node1", { cn: "system:node:node2" }),
      /common name "system:node:node2" is not the requester/,
    ],
    [
      "an extra organization",
      await csrObject("node1", { org: ["system:nodes", "system:masters"] }),
      /organization \[system:nodes, system:masters\] is not \[system:nodes\]/,
    ],
    [
      "client usages",
      await csrObject("node1", { usages: ["digital signature", "client auth"] }),
      /its usages \[digital signature, client auth\] are not exactly/,
    ],
    [
      "an extra usage",
      await csrObject("node1", { usages: [...USAGES, "client auth"] }),
      /are not exactly/,
    ],
    [
      "no SAN",
      await csrObject("node1", { dns: [] }),
      /asks for no DNS name or IP address/,
    ],
    [
      "not in system:nodes",
      await csrObject("node1", { groups: ["system:authenticated"] }),
      /not in the system:nodes group/,
    ],
    [
      "another signer",
      await csrObject("node1", { signer: "kubernetes.io/kube-apiserver-client" }),
      /its signer is "kubernetes\.io\/kube-apiserver-client"/,
    ],
  ];
  for (const [what, csr, reason] of cases) {
    const review = reviewServingCsr(csr, byName);
    assert.ok(review.problems.length > 0, `${what}: left pending`);
    assert.match(review.problems.join("; "), reason, what);
  }
});

Deno.test("reviewServingCsr() refuses e-mail and URI SANs and requests that do not parse", async () => {
  const keyPem = await openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout"]);
  const pem = await openssl([
    "req",
    "-new",
    "-key",
    await tempFile(keyPem),
    "-subj",
    "/O=system:nodes/CN=system:node:node1",
    "-addext",
    "subjectAltName=DNS:node1,email:root@node1,URI:spiffe://x/y",
  ]);
  const review = reviewServingCsr(await csrObject("node1", { pem }), byName);
  assert.deepEqual(review.problems, [
    "it asks for the SAN email:root@node1",
    "it asks for the SAN URI:spiffe://x/y",
  ]);
  const garbage = await csrObject("node1", { pem: "not a CSR" });
  assert.match(reviewServingCsr(garbage, byName).problems.join(), /request does not parse/);
});

Deno.test("approveKubeletServingCsrs() approves through the approval subresource and leaves the rest", async () => {
  const good1 = await csrObject("node1", { ips: ["10.0.0.1"] });
  const good2 = await csrObject("node2", { ips: ["10.0.0.2"] });
  const forged = await csrObject("node1", { ips: ["10.0.0.9"] });
  const decided = await csrObject("node2", {});
  decided.status = { conditions: [{ type: "Denied", status: "True", reason: "Admin" }] };
  const { api, client, clock } = fakeApiClient([...NODES, good1, good2, forged, decided]);
  const dry = await approveKubeletServingCsrs({ client, dryRun: true, now: clock.now() });
  assert.equal(dry.approved.length, 2);
  assert.ok(!api.calls().some((c) => c.startsWith("PUT")), "a dry run approves nothing");
  const report = await approveKubeletServingCsrs({ client, dryRun: false, now: clock.now() });
  assert.deepEqual(
    report.approved.map((r) => r.name).sort(),
    [good1, good2].map((c) => c.metadata!.name!).sort(),
  );
  assert.deepEqual(report.leftPending.map((r) => r.name), [forged.metadata!.name]);
  for (const c of [good1, good2]) {
    const stored = api.get<CertificateSigningRequest>(
      "CertificateSigningRequest",
      undefined,
      c.metadata!.name!,
    )!;
    assert.equal(isPending(stored), false);
    assert.equal(stored.status?.conditions?.[0].reason, "KubeadmKubeletServingApprover");
    assert.ok(
      api.calls().includes(
        `PUT /apis/certificates.k8s.io/v1/certificatesigningrequests/${c.metadata!.name}/approval`,
      ),
    );
  }
  const pendingForged = api.get<CertificateSigningRequest>(
    "CertificateSigningRequest",
    undefined,
    forged.metadata!.name!,
  )!;
  assert.ok(isPending(pendingForged));
  const lines = servingReportLines(report, false);
  assert.match(lines.join("\n"), /Approved csr-node1-\w+ of Node node1 \(node1, 10\.0\.0\.1\)/);
  assert.match(lines.join("\n"), /Left csr-node1-\w+ of "system:node:node1" Pending: the IP/);
  // Nothing left to do: a second run approves nothing and says so.
  const again = await approveKubeletServingCsrs({ client, dryRun: false, now: clock.now() });
  assert.equal(again.approved.length, 0);
  assert.equal(again.leftPending.length, 1);
});
