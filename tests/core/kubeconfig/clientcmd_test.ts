import assert from "node:assert/strict";
import {
  certificateAuthorityPem,
  clusterFromKubeconfig,
  emptyKubeconfig,
  parseKubeconfig,
  serializeKubeconfig,
} from "../../../core/kubeconfig/kubeconfig.ts";
import { DISCOVERY_CA_CERT, EXPECTED_KUBECONFIG } from "../../support/upstream_discovery_data.ts";

Deno.test("upstream's expected-kubeconfig.yaml loads and writes back byte for byte", () => {
  const cfg = parseKubeconfig(EXPECTED_KUBECONFIG, "kubeconfig", { clientcmd: true });
  assert.equal(serializeKubeconfig(cfg, { nullEmptyLists: true }), EXPECTED_KUBECONFIG);
  assert.equal(new TextEncoder().encode(EXPECTED_KUBECONFIG).length, 1686);
  const { name, cluster } = clusterFromKubeconfig(cfg);
  assert.equal(name, "somecluster");
  assert.equal(cluster.server, "https://127.0.0.1");
  assert.equal(certificateAuthorityPem(cluster), DISCOVERY_CA_CERT);
});

Deno.test("serializeKubeconfig with nullEmptyLists prints empty lists as null and drops empty preferences", () => {
  assert.equal(
    serializeKubeconfig(emptyKubeconfig(), { nullEmptyLists: true }),
    'apiVersion: v1\nclusters: null\ncontexts: null\ncurrent-context: ""\nkind: Config\nusers: null\n',
  );
  const withPrefs = { ...emptyKubeconfig(), preferences: { colors: true } };
  assert.match(
    serializeKubeconfig(withPrefs, { nullEmptyLists: true }),
    /^preferences:\n {2}colors: true$/m,
  );
});

Deno.test("the unnamed cluster wins over the current context's (kubeadm's rule)", () => {
  const cfg = parseKubeconfig(
    `
clusters:
- name: other
  cluster: {server: https://other}
- name: ""
  cluster: {server: https://unnamed}
contexts:
- name: ctx
  context: {cluster: other, user: u}
current-context: ctx
`,
    "kubeconfig",
    { clientcmd: true },
  );
  assert.deepEqual(clusterFromKubeconfig(cfg), {
    name: "",
    cluster: { server: "https://unnamed" },
  });
});

Deno.test("missing current context or cluster is an error naming it", () => {
  assert.throws(
    () =>
      clusterFromKubeconfig(
        parseKubeconfig("clusters:\n- name: a\n  cluster: {server: x}\n", "kubeconfig", {
          clientcmd: true,
        }),
      ),
    /the current context "" is not defined in the kubeconfig/,
  );
  assert.throws(
    () =>
      clusterFromKubeconfig(parseKubeconfig(
        "contexts:\n- name: c\n  context: {cluster: nope, user: u}\ncurrent-context: c\n",
        "kubeconfig",
        { clientcmd: true },
      )),
    /the cluster "nope" of the current context "c" is not defined/,
  );
});

Deno.test("parseKubeconfig with clientcmd rejects what clientcmd.Load rejects", () => {
  assert.deepEqual(parseKubeconfig("", "kubeconfig", { clientcmd: true }), emptyKubeconfig());
  assert.throws(
    () => parseKubeconfig("foo", "kubeconfig", { clientcmd: true }),
    /couldn't get version\/kind; json parse error/,
  );
  assert.throws(
    () => parseKubeconfig("kind: Secret\n", "kubeconfig", { clientcmd: true }),
    /no kind "Secret" is registered/,
  );
  assert.throws(
    () => parseKubeconfig("apiVersion: v2\n", "kubeconfig", { clientcmd: true }),
    /registered for version "v2"/,
  );
  assert.throws(
    () =>
      parseKubeconfig(
        "clusters:\n- name: a\n  cluster: {certificate-authority-data: '%%%'}\n",
        "kubeconfig",
        { clientcmd: true },
      ),
    /clusters\[0\]\.certificate-authority-data: illegal base64 data/,
  );
  assert.throws(
    () => parseKubeconfig("clusters: 3\n", "kubeconfig", { clientcmd: true }),
    /clusters must be a list/,
  );
  assert.throws(() => parseKubeconfig("a: [\n", "kubeconfig", { clientcmd: true }), /invalid YAML/);
});

Deno.test("clientcmd's load of a stream of two kubeconfigs names the rule", () => {
  const two = "apiVersion: v1\nkind: Config\n---\napiVersion: v1\nkind: Config\n";
  assert.throws(
    () => parseKubeconfig(two, "kubeconfig", { clientcmd: true }),
    {
      message: "couldn't load kubeconfig: kubeconfig: expected exactly one YAML document, found 2",
    },
  );
});
