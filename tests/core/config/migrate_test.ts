import assert from "node:assert/strict";
import { ConfigError } from "../../../core/errors.ts";
import { migrateConfig } from "../../../core/config/migrate.ts";
import { loadConfigDocuments } from "../../../core/config/parse.ts";
import { assertConfigFailure, counterRandom, TEST_HOST } from "../../support/config.ts";

const CURRENT = `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
bootstrapTokens:
- token: abcdef.0123456789abcdef
nodeRegistration:
  name: cp-1
  criSocket: unix:///var/run/crio/crio.sock
  kubeletExtraArgs:
  - name: node-ip
    value: 10.0.0.5
localAPIEndpoint:
  advertiseAddress: 10.0.0.5
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.36.2
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    token: abcdef.0123456789abcdef
    apiServerEndpoint: 10.0.0.5:6443
    unsafeSkipCAVerification: true
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: UpgradeConfiguration
apply:
  forceUpgrade: true
`;

/** upstream kubeadm v1.37.2 `config migrate` of `apply: {forceUpgrade: true}` (extra/). */
const UPSTREAM_UPGRADE = `apiVersion: kubeadm.k8s.io/v1beta4
apply:
  certificateRenewal: true
  etcdUpgrade: true
  forceUpgrade: true
  imagePullPolicy: IfNotPresent
  imagePullSerial: true
diff: {}
kind: UpgradeConfiguration
node:
  certificateRenewal: true
  etcdUpgrade: true
  imagePullPolicy: IfNotPresent
  imagePullSerial: true
plan:
  etcdUpgrade: true
timeouts:
  controlPlaneComponentHealthCheck: 4m0s
  discovery: 5m0s
  etcdAPICall: 2m0s
  kubeletHealthCheck: 4m0s
  kubernetesAPICall: 1m0s
  tlsBootstrap: 5m0s
  upgradeManifests: 5m0s
`;

Deno.test("config migrate rewrites v1beta4 defaulted, UpgradeConfiguration last (v1.37)", () => {
  const { text, warnings } = migrateConfig(CURRENT, { host: TEST_HOST, random: counterRandom() });
  assert.deepEqual(warnings, []);
  const docs = text.split("---\n");
  assert.equal(docs.length, 4);
  assert.ok(text.includes("kubeletExtraArgs:\n  - name: node-ip\n    value: 10.0.0.5\n"));
  assert.ok(docs[2].includes("kind: JoinConfiguration"));
  // The JoinConfiguration defaulted as upstream's: its CA path and every timeout.
  assert.ok(docs[2].includes("caCertPath: /etc/kubernetes/pki/ca.crt\n"));
  assert.ok(docs[2].includes("  discovery: 5m0s\n"));
  assert.equal(docs[3], UPSTREAM_UPGRADE);
  // The output reads back as v1beta4 without warnings.
  const reread = loadConfigDocuments(text);
  assert.deepEqual(reread.warnings, []);
  assert.equal(reread.init?.nodeRegistration?.name, "cp-1");
  assert.equal(reread.cluster?.kubernetesVersion, "v1.36.2");
  assert.equal(reread.cluster?.encryptionAlgorithm, "RSA-2048");
});

Deno.test("config migrate refuses v1beta3; v1 only when allowed, and writes v1beta4", () => {
  assertConfigFailure(
    () =>
      migrateConfig("apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n", {
        host: TEST_HOST,
        random: counterRandom(),
      }),
    ConfigError,
    "Please use kubeadm v1.36 instead",
  );
  const v1 =
    "apiVersion: kubeadm.k8s.io/v1\nkind: UpgradeConfiguration\napply:\n  forceUpgrade: true\n";
  assertConfigFailure(
    () => migrateConfig(v1, { host: TEST_HOST, random: counterRandom() }),
    ConfigError,
    "experimental API spec",
  );
  const { text } = migrateConfig(v1, {
    host: TEST_HOST,
    random: counterRandom(),
    allowExperimental: true,
  });
  assert.equal(text, UPSTREAM_UPGRADE);
});

Deno.test("config migrate rejects unknown fields and empty inputs", () => {
  assertConfigFailure(
    () =>
      migrateConfig(
        "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nnetwork: {}\n",
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
