import assert from "node:assert/strict";
import {
  certificateAuthorityPem,
  clusterFromKubeconfig,
  emptyKubeconfig,
  loadKubeconfig,
  writeKubeconfig,
} from "../../../core/discovery/cluster_kubeconfig.ts";
import { DISCOVERY_CA_CERT, EXPECTED_KUBECONFIG } from "../../support/upstream_discovery_data.ts";

Deno.test("upstream's expected-kubeconfig.yaml loads and writes back byte for byte", () => {
  const cfg = loadKubeconfig(EXPECTED_KUBECONFIG);
  assert.equal(writeKubeconfig(cfg), EXPECTED_KUBECONFIG);
  assert.equal(new TextEncoder().encode(EXPECTED_KUBECONFIG).length, 1686);
  const { name, cluster } = clusterFromKubeconfig(cfg);
  assert.equal(name, "somecluster");
  assert.equal(cluster.server, "https://127.0.0.1");
  assert.equal(certificateAuthorityPem(cluster), DISCOVERY_CA_CERT);
});

Deno.test("writeKubeconfig prints empty lists as null and drops empty preferences", () => {
  assert.equal(
    writeKubeconfig(emptyKubeconfig()),
    'apiVersion: v1\nclusters: null\ncontexts: null\ncurrent-context: ""\nkind: Config\nusers: null\n',
  );
  const withPrefs = { ...emptyKubeconfig(), preferences: { colors: true } };
  assert.match(writeKubeconfig(withPrefs), /^preferences:\n {2}colors: true$/m);
});

Deno.test("the unnamed cluster wins over the current context's (kubeadm's rule)", () => {
  const cfg = loadKubeconfig(`
clusters:
- name: other
  cluster: {server: https://other}
- name: ""
  cluster: {server: https://unnamed}
contexts:
- name: ctx
  context: {cluster: other, user: u}
current-context: ctx
`);
  assert.deepEqual(clusterFromKubeconfig(cfg), {
    name: "",
    cluster: { server: "https://unnamed" },
  });
});

Deno.test("missing current context or cluster is an error naming it", () => {
  assert.throws(
    () => clusterFromKubeconfig(loadKubeconfig("clusters:\n- name: a\n  cluster: {server: x}\n")),
    /the current context "" is not defined in the kubeconfig/,
  );
  assert.throws(
    () =>
      clusterFromKubeconfig(loadKubeconfig(
        "contexts:\n- name: c\n  context: {cluster: nope, user: u}\ncurrent-context: c\n",
      )),
    /the cluster "nope" of the current context "c" is not defined/,
  );
});

Deno.test("loadKubeconfig rejects what clientcmd.Load rejects", () => {
  assert.deepEqual(loadKubeconfig(""), emptyKubeconfig());
  assert.throws(() => loadKubeconfig("foo"), /couldn't get version\/kind; json parse error/);
  assert.throws(() => loadKubeconfig("kind: Secret\n"), /no kind "Secret" is registered/);
  assert.throws(() => loadKubeconfig("apiVersion: v2\n"), /registered for version "v2"/);
  assert.throws(
    () => loadKubeconfig("clusters:\n- name: a\n  cluster: {certificate-authority-data: '%%%'}\n"),
    /clusters\[0\]\.certificate-authority-data: illegal base64 data/,
  );
  assert.throws(() => loadKubeconfig("clusters: 3\n"), /clusters must be a list/);
  assert.throws(() => loadKubeconfig("a: [\n"), /invalid YAML/);
});
