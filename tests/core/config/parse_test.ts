import assert from "node:assert/strict";
import { ConfigError } from "../../../core/errors.ts";
import { loadConfigDocuments, loadInitConfig } from "../../../core/config/parse.ts";
import { assertConfigFailure } from "../../support/config.ts";

const INIT = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n";
const CLUSTER = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n";

Deno.test("splits multi-document YAML and identifies kinds", () => {
  const loaded = loadInitConfig(
    `${INIT}localAPIEndpoint:\n  bindPort: 7443\n---\n${CLUSTER}clusterName: c1\n---\n` +
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: cgroupfs\n",
  );
  assert.equal(loaded.init?.localAPIEndpoint?.bindPort, 7443);
  assert.equal(loaded.cluster?.clusterName, "c1");
  assert.equal(loaded.kubelet?.cgroupDriver, "cgroupfs");
  assert.deepEqual(loaded.documents.map((d) => d.gvk), [
    "kubeadm.k8s.io/v1beta4, Kind=InitConfiguration",
    "kubeadm.k8s.io/v1beta4, Kind=ClusterConfiguration",
    "kubelet.config.k8s.io/v1beta1, Kind=KubeletConfiguration",
  ]);
  assert.deepEqual(loaded.warnings, []);
});

Deno.test("accepts JSON documents", () => {
  const loaded = loadInitConfig(
    JSON.stringify({
      apiVersion: "kubeadm.k8s.io/v1beta4",
      kind: "ClusterConfiguration",
      clusterName: "j",
    }),
  );
  assert.equal(loaded.cluster?.clusterName, "j");
});

Deno.test("unknown field is an error naming the path and suggesting the known field", () => {
  const err = assertConfigFailure(
    () =>
      loadInitConfig(`${CLUSTER}networking:\n  podSubnett: 10.244.0.0/16\n`, {
        source: "cfg.yaml",
      }),
    ConfigError,
    "cfg.yaml",
    'unknown field "networking.podSubnett"',
    'did you mean "networking.podSubnet"?',
    "Kind=ClusterConfiguration",
  );
  assert.equal(err.field, "networking.podSubnett");
});

Deno.test("unknown fields in list items and at top level are all reported", () => {
  assertConfigFailure(
    () =>
      loadInitConfig(
        `${CLUSTER}apiServer:\n  extraArgs:\n  - nam: x\n    value: y\nfoo: 1\n`,
      ),
    ConfigError,
    'unknown field "apiServer.extraArgs[0].nam"',
    'did you mean "apiServer.extraArgs[0].name"?',
    'unknown field "foo"',
  );
});

Deno.test("strict: false downgrades unknown fields to warnings", () => {
  const loaded = loadInitConfig(`${CLUSTER}networking:\n  podSubnett: 10.244.0.0/16\n`, {
    strict: false,
  });
  assert.equal(loaded.warnings.length, 1);
  assert.match(loaded.warnings[0], /strict decoding error: unknown field "networking.podSubnett"/);
  assert.ok(loaded.cluster);
});

Deno.test("values of the wrong type fail even when not strict", () => {
  assertConfigFailure(
    () => loadInitConfig(`${INIT}localAPIEndpoint:\n  bindPort: "6443"\n`, { strict: false }),
    ConfigError,
    '"localAPIEndpoint.bindPort"',
    "int32",
  );
  assertConfigFailure(
    () => loadInitConfig(`${CLUSTER}kubernetesVersion: 1.34\n`),
    ConfigError,
    '"kubernetesVersion"',
    "cannot unmarshal number",
  );
});

Deno.test("missing apiVersion or kind uses upstream's message", () => {
  assertConfigFailure(
    () => loadInitConfig("kind: InitConfiguration\n"),
    ConfigError,
    "invalid configuration for GroupVersionKind /, Kind=InitConfiguration: kind and apiVersion is mandatory information that must be specified",
  );
  assertConfigFailure(
    () => loadInitConfig("apiVersion: kubeadm.k8s.io/v1beta4\n"),
    ConfigError,
    "GroupVersionKind kubeadm.k8s.io/v1beta4, Kind=",
  );
  // A core-group apiVersion has no group: rejected too.
  assertConfigFailure(
    () => loadInitConfig("apiVersion: v1\nkind: ConfigMap\n"),
    ConfigError,
    "GroupVersionKind /v1, Kind=ConfigMap",
  );
});

Deno.test("the same kind twice is an error", () => {
  assertConfigFailure(
    () => loadInitConfig(`${INIT}---\n${INIT}`),
    ConfigError,
    'invalid configuration: kind "InitConfiguration" is specified twice in YAML file',
  );
});

Deno.test("unknown kinds in the kubeadm group are errors", () => {
  assertConfigFailure(
    () => loadInitConfig("apiVersion: kubeadm.k8s.io/v1beta4\nkind: MasterConfiguration\n"),
    ConfigError,
    'no kind "MasterConfiguration" is registered for version "kubeadm.k8s.io/v1beta4"',
  );
  assertConfigFailure(
    () => loadInitConfig("apiVersion: kubeadm.k8s.io/v1beta9\nkind: InitConfiguration\n"),
    ConfigError,
    '"kubeadm.k8s.io/v1beta9"',
  );
});

Deno.test("old kubeadm API versions are rejected", () => {
  assertConfigFailure(
    () => loadInitConfig("apiVersion: kubeadm.k8s.io/v1beta2\nkind: InitConfiguration\n"),
    ConfigError,
    'your configuration file uses an old API spec: "kubeadm.k8s.io/v1beta2"',
    "kubeadm v1.22",
  );
});

Deno.test("unknown groups are ignored with a warning", () => {
  const loaded = loadInitConfig(`${INIT}---\napiVersion: example.com/v1\nkind: Thing\nx: 1\n`);
  assert.deepEqual(loaded.warnings, [
    "[config] WARNING: Ignored configuration document with GroupVersionKind example.com/v1, Kind=Thing",
  ]);
});

Deno.test("join/reset/upgrade configurations are recognized and ignored for init", () => {
  const loaded = loadInitConfig(
    `${INIT}---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    token: abcdef.0123456789abcdef\n    apiServerEndpoint: 1.2.3.4:6443\n---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\n`,
  );
  assert.equal(loaded.join?.discovery?.bootstrapToken?.apiServerEndpoint, "1.2.3.4:6443");
  assert.equal(loaded.reset?.force, true);
  assert.ok(loaded.warnings.some((w) => w.includes("Kind=JoinConfiguration")));
  // their fields are still checked
  assertConfigFailure(
    () =>
      loadInitConfig(
        `${INIT}---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforse: true\n`,
      ),
    ConfigError,
    'unknown field "forse"',
    'did you mean "force"?',
  );
});

Deno.test("an init config needs an InitConfiguration or ClusterConfiguration", () => {
  assertConfigFailure(
    () => loadInitConfig("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"),
    ConfigError,
    "no InitConfiguration or ClusterConfiguration kind was found in the configuration file",
  );
  assertConfigFailure(() => loadInitConfig(""), ConfigError, "no InitConfiguration");
  assert.deepEqual(loadInitConfig(undefined).documents, []);
});

Deno.test("component config versions are checked", () => {
  assertConfigFailure(
    () =>
      loadInitConfig(
        `${INIT}---\napiVersion: kubelet.config.k8s.io/v1alpha1\nkind: KubeletConfiguration\n`,
      ),
    ConfigError,
    'unsupported apiVersion "kubelet.config.k8s.io/v1alpha1"',
    '"kubelet.config.k8s.io/v1beta1"',
  );
});

Deno.test("bad YAML is a ConfigError", () => {
  assertConfigFailure(() => loadInitConfig("a: [\n"), ConfigError, "invalid YAML");
});

Deno.test("v1beta3 is refused with upstream v1.37's message naming kubeadm v1.36 for the migration", () => {
  const err = assertConfigFailure(
    () =>
      loadConfigDocuments(
        "apiVersion: kubeadm.k8s.io/v1beta3\nkind: InitConfiguration\n---\napiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n",
        { source: "old.yaml" },
      ),
    ConfigError,
    // upstream kubeadm v1.37.2: errors/validate-v1beta3.txt (ClusterConfiguration sorts first).
    `old.yaml: your configuration file uses an old API spec: "kubeadm.k8s.io/v1beta3" (kind: "ClusterConfiguration"). Please use kubeadm v1.36 instead and run 'kubeadm config migrate --old-config old-config-file --new-config new-config-file', which will write the new, similar spec using a newer API version.`,
  );
  assert.equal(err.field, "apiVersion");
  for (const kind of ["JoinConfiguration", "ResetConfiguration", "UpgradeConfiguration"]) {
    assertConfigFailure(
      () => loadConfigDocuments(`apiVersion: kubeadm.k8s.io/v1beta3\nkind: ${kind}\n`),
      ConfigError,
      `old API spec: "kubeadm.k8s.io/v1beta3" (kind: "${kind}")`,
    );
  }
});

Deno.test("the experimental kubeadm.k8s.io/v1 is refused unless allowed; allowed, it reads as v1beta4", () => {
  const doc = `apiVersion: kubeadm.k8s.io/v1
kind: ClusterConfiguration
apiServer:
  extraArgs:
  - name: authorization-mode
    value: Node,RBAC
    mergeMethod: append
`;
  assertConfigFailure(
    () => loadConfigDocuments(doc),
    ConfigError,
    // upstream kubeadm v1.37.2: errors/validate-v1.txt
    'experimental API spec: "kubeadm.k8s.io/v1" (kind: "ClusterConfiguration") is not allowed. You can use the --allow-experimental-api flag if the command supports it.',
  );
  const loaded = loadConfigDocuments(doc, { allowExperimental: true });
  assert.equal(loaded.cluster?.apiVersion, "kubeadm.k8s.io/v1beta4");
  assert.deepEqual(loaded.cluster?.apiServer?.extraArgs, [
    { name: "authorization-mode", value: "Node,RBAC" },
  ]);
  const bad = assertConfigFailure(
    () => loadConfigDocuments(doc.replace("append", "sideways"), { allowExperimental: true }),
    ConfigError,
    // upstream kubeadm v1.37.2's field error: the list and the argument's index
    'apiServer.extraArgs: Invalid value: "index 0": argument has an invalid merge method ("sideways")',
  );
  assert.equal(bad.field, "mergeMethod");
  assertConfigFailure(
    () => loadConfigDocuments(doc.replace("mergeMethod", "mergeMethod"), {}),
    ConfigError,
    "experimental API spec",
  );
  // v1beta4 has no mergeMethod.
  assertConfigFailure(
    () => loadConfigDocuments(doc.replace("kubeadm.k8s.io/v1\n", "kubeadm.k8s.io/v1beta4\n")),
    ConfigError,
    'unknown field "apiServer.extraArgs[0].mergeMethod"',
  );
});

Deno.test("etcd.external.httpEndpoints is a v1beta4 field", () => {
  const loaded = loadConfigDocuments(
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\netcd:\n  external:\n    endpoints: [https://e:2379]\n    httpEndpoints: [http://e:2381]\n",
  );
  assert.deepEqual(loaded.cluster?.etcd?.external?.httpEndpoints, ["http://e:2381"]);
});

// Issue 9, finding 10: an alias bomb is a config error naming the file, exit status 3.
Deno.test("a YAML alias bomb (billion laughs) is a ConfigError naming the file", () => {
  const lines = [INIT.trimEnd(), 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  let prev = "a";
  for (const n of "bcdefghi") {
    lines.push(`${n}: &${n} [${Array(9).fill(`*${prev}`).join(",")}]`);
    prev = n;
  }
  const err = assertConfigFailure(
    () => loadConfigDocuments(`${lines.join("\n")}\n`, { source: "bomb.yaml" }),
    ConfigError,
    "bomb.yaml: invalid YAML in document 1:",
    "aliases",
  );
  assert.equal(err.field, "bomb.yaml");
});
