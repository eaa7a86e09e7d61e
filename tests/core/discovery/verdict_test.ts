// The discovery-check verdict beyond the shared vectors: input forms, step order, secrecy.
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import { checkClusterInfo } from "../../../core/discovery/verdict.ts";
import { computeDetachedSignature } from "../../../core/discovery/jws.ts";
import {
  DISCOVERY_CA_HASH,
  DISCOVERY_TOKEN,
  EXPECTED_KUBECONFIG,
} from "../../support/upstream_discovery_data.ts";

const STEPS = [
  "cluster-info",
  "token",
  "ca-cert-hashes",
  "kubeconfig-key",
  "signature-key",
  "signature",
  "kubeconfig",
  "ca-certificates",
  "ca-pin",
  "ca-validity",
];

async function configMap() {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cluster-info", namespace: "kube-public" },
    data: {
      kubeconfig: EXPECTED_KUBECONFIG,
      "jws-kubeconfig-123456": await computeDetachedSignature(
        EXPECTED_KUBECONFIG,
        "123456",
        "abcdef1234567890",
        webCryptoPort,
      ),
      "jws-kubeconfig-zzzzzz": "unrelated",
    },
  };
}

Deno.test("every step is reported in upstream's order, verified or not", async () => {
  const cm = await configMap();
  const ok = await checkClusterInfo({
    clusterInfo: cm,
    token: DISCOVERY_TOKEN,
    caCertHashes: [DISCOVERY_CA_HASH],
    now: new Date("2024-01-01T00:00:00Z"),
  }, webCryptoPort);
  assert.deepEqual(ok.checks.map((c) => c.name), STEPS);
  assert.equal(
    ok.checks[0].message,
    "ConfigMap read; signatures present for token ID(s): 123456, zzzzzz",
  );
  const bad = await checkClusterInfo({
    clusterInfo: cm,
    token: "123456.abcdef123456789x",
    caCertHashes: [DISCOVERY_CA_HASH],
  }, webCryptoPort);
  assert.deepEqual(bad.checks.map((c) => c.name), STEPS);
  assert.deepEqual(bad.checks.map((c) => c.status), [
    "ok",
    "ok",
    "ok",
    "ok",
    "ok",
    "fail",
    "skipped",
    "skipped",
    "skipped",
    "skipped",
  ]);
  assert.equal(bad.verdict, "rejected");
  assert.equal(bad.ca, undefined, "no CA described before the signature is trusted");
});

Deno.test("a List holding the ConfigMap (kubectl get cm -o yaml with a selector) is accepted", async () => {
  const v = await checkClusterInfo({
    clusterInfo: JSON.stringify({ apiVersion: "v1", kind: "List", items: [await configMap()] }),
    token: DISCOVERY_TOKEN,
    caCertHashes: [DISCOVERY_CA_HASH],
  }, webCryptoPort);
  assert.equal(v.verdict, "verified", v.reason);
  const two = await checkClusterInfo({
    clusterInfo: { kind: "List", items: [await configMap(), await configMap()] },
    token: DISCOVERY_TOKEN,
    caCertHashes: [DISCOVERY_CA_HASH],
  }, webCryptoPort);
  assert.equal(
    two.reason,
    "could not read the cluster-info ConfigMap: expected a List with one ConfigMap, found 2 items",
  );
});

Deno.test("the token secret never appears in the verdict, whatever the input", async () => {
  const secret = "abcdef1234567890";
  for (const token of [`123456.${secret}`, `12345.${secret}`, `123456.${secret}x`, `${secret}`]) {
    for (const clusterInfo of [await configMap(), "kind: Secret", { data: { kubeconfig: "x" } }]) {
      const v = await checkClusterInfo({
        clusterInfo,
        token,
        caCertHashes: [DISCOVERY_CA_HASH],
      }, webCryptoPort);
      assert.ok(!JSON.stringify(v).includes(secret), `${token}: ${JSON.stringify(v)}`);
    }
  }
});

Deno.test("several hashes: the pinned certificate is the one described", async () => {
  const v = await checkClusterInfo({
    clusterInfo: await configMap(),
    token: DISCOVERY_TOKEN,
    caCertHashes: [
      `sha256:${"1".repeat(64)}`,
      DISCOVERY_CA_HASH.toUpperCase().replace("SHA256", "sha256"),
    ],
  }, webCryptoPort);
  assert.equal(v.verdict, "verified");
  assert.equal(v.ca?.pin, DISCOVERY_CA_HASH);
  assert.equal(v.checks.find((c) => c.name === "ca-cert-hashes")?.message, "2 hash(es) given");
});
