import assert from "node:assert/strict";
import { ConfigError } from "../../../core/errors.ts";
import { argsFromMap, migrateConfig } from "../../../core/config/migrate.ts";
import { loadConfigDocuments } from "../../../core/config/parse.ts";
import { assertConfigFailure, counterRandom, TEST_HOST } from "../../support/config.ts";

const OLD = `apiVersion: kubeadm.k8s.io/v1beta3
kind: InitConfiguration
bootstrapTokens:
- token: abcdef.0123456789abcdef
nodeRegistration:
  name: cp-1
  criSocket: unix:///var/run/crio/crio.sock
  kubeletExtraArgs:
    node-ip: 10.0.0.5
localAPIEndpoint:
  advertiseAddress: 10.0.0.5
---
apiVersion: kubeadm.k8s.io/v1beta3
kind: ClusterConfiguration
kubernetesVersion: v1.36.2
apiServer:
  timeoutForControlPlane: 5m
  extraArgs:
    enable-admission-plugins: NodeRestriction
---
apiVersion: kubeadm.k8s.io/v1beta3
kind: JoinConfiguration
discovery:
  timeout: 10m
  bootstrapToken:
    token: abcdef.0123456789abcdef
    apiServerEndpoint: 10.0.0.5:6443
    unsafeSkipCAVerification: true
`;

Deno.test("extraArgs maps become sorted lists", () => {
  assert.deepEqual(argsFromMap({ b: "2", a: "1", c: 3 }), [
    { name: "a", value: "1" },
    { name: "b", value: "2" },
    { name: "c", value: "3" },
  ]);
});

Deno.test("config migrate converts v1beta3 to v1beta4", () => {
  const { text, warnings } = migrateConfig(OLD, { host: TEST_HOST, random: counterRandom() });
  assert.deepEqual(warnings, []);
  const docs = text.split("---\n");
  assert.equal(docs.length, 3);
  assert.ok(text.includes("kubeletExtraArgs:\n  - name: node-ip\n    value: 10.0.0.5\n"));
  assert.ok(text.includes("  controlPlaneComponentHealthCheck: 5m0s\n"));
  assert.ok(
    text.includes("  extraArgs:\n  - name: enable-admission-plugins\n    value: NodeRestriction\n"),
  );
  assert.ok(!text.includes("timeoutForControlPlane"));
  assert.ok(text.includes("kind: JoinConfiguration"));
  assert.ok(text.includes("  discovery: 10m\n"));
  assert.ok(!/discovery:\n(?: {2}.*\n)* {2}timeout:/.test(text));
  // The output reads back as v1beta4 without warnings.
  const reread = loadConfigDocuments(text);
  assert.equal(reread.convertedFromV1beta3, false);
  assert.deepEqual(reread.warnings, []);
  assert.equal(reread.init?.nodeRegistration?.name, "cp-1");
  assert.equal(reread.cluster?.kubernetesVersion, "v1.36.2");
  assert.equal(reread.cluster?.encryptionAlgorithm, "RSA-2048");
});

Deno.test("config migrate rejects unknown fields and empty inputs", () => {
  assertConfigFailure(
    () =>
      migrateConfig(
        "apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nnetwork: {}\n",
        { host: TEST_HOST, random: counterRandom() },
      ),
    ConfigError,
    'unknown field "network"',
    'did you mean "networking"?',
  );
  assertConfigFailure(
    () =>
      migrateConfig("apiVersion: example.com/v1\nkind: Foo\n", {
        host: TEST_HOST,
        random: counterRandom(),
      }),
    ConfigError,
    "no kubeadm configuration documents to migrate",
  );
});
