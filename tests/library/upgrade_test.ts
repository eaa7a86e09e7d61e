// planUpgrade: `kubeadm upgrade plan` as data, on a cluster that planControlPlane made at
// v1.36.3 (its objects, plus what the kubelet adds: the Node and the static Pods' mirror
// Pods), offline and through a transport; the same cluster at v1.37.2 is up to date.
import assert from "node:assert/strict";
import type { Node, Pod } from "kubernetes-types/core/v1.d.ts";
import { planControlPlane } from "../../library/control_plane.ts";
import { planUpgrade } from "../../library/upgrade.ts";
import { offlineCluster } from "../../adapters/offline/cluster.ts";
import { seededRandom } from "../../adapters/offline/random.ts";
import type { KubeObject } from "../../core/kube/client.ts";
import { parseKubeYamlOne } from "../../core/yaml/kube_yaml.ts";
import { KubeadmError } from "../../core/errors.ts";

const clock = { now: () => new Date("2026-02-01T00:00:00Z") };
const host = { hostname: "cp1", advertiseAddress: "192.0.2.10" };
const MANIFESTS = "/etc/kubernetes/manifests/";

/** A control plane `init` made at `version`, as its API server serves it once the kubelet ran. */
async function clusterAt(version: string) {
  const cp = await planControlPlane({
    config: "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n" +
      `encryptionAlgorithm: ECDSA-P256\nkubernetesVersion: ${version}\n`,
    host,
    random: seededRandom(`upgrade ${version}`),
    clock,
  });
  const node: Node = {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "cp1" },
    status: { nodeInfo: { kubeletVersion: version } as NonNullable<Node["status"]>["nodeInfo"] },
  };
  const mirrors = cp.files.filter((f) => f.path.startsWith(MANIFESTS)).map((f) => {
    const pod = parseKubeYamlOne(f.content) as Pod;
    pod.metadata!.name = `${pod.metadata!.name}-cp1`;
    pod.spec!.nodeName = "cp1";
    return pod;
  });
  return { cp, objects: [...cp.objects, node, ...mirrors] as KubeObject[] };
}

Deno.test("planUpgrade: a v1.36.3 control plane can be upgraded to v1.37.2, offline and through a transport", async () => {
  const { cp, objects } = await clusterAt("v1.36.3");
  const offline = await planUpgrade({
    cluster: { objects, version: "v1.36.3" },
    host,
    existingFiles: cp.files,
    random: seededRandom("plan"),
  });
  const plan = offline.plan!;
  assert.equal(plan.kind, "UpgradePlan");
  // Offline, every release label falls back to kubeadm's version, as upstream's does.
  assert.deepEqual(plan.availableUpgrades?.map((u) => u.description), [
    "version in the v1.36 series",
  ]);
  const rows = plan.availableUpgrades![0].components.map((c) =>
    `${c.name} ${c.nodeName ?? "-"} ${c.currentVersion} -> ${c.newVersion}`
  );
  assert.deepEqual(rows, [
    "kubelet cp1 v1.36.3 -> v1.37.2",
    "kube-apiserver cp1 v1.36.3 -> v1.37.2",
    "kube-controller-manager cp1 v1.36.3 -> v1.37.2",
    "kube-scheduler cp1 v1.36.3 -> v1.37.2",
    "kube-proxy - 1.36.3 -> v1.37.2",
    "CoreDNS - v1.14.6 -> v1.14.6",
    "kubeadm - v1.37.2 -> v1.37.2",
    "etcd cp1 3.7.0-0 -> 3.7.0-0",
  ]);
  assert.deepEqual(plan.configVersions?.map((s) => [s.group, s.manualUpgradeRequired]), [
    ["kubeproxy.config.k8s.io", false],
    ["kubelet.config.k8s.io", false],
  ]);
  assert.match(offline.text, /^Upgrade to the latest version in the v1\.36 series:/m);
  assert.match(offline.text, /kubeadm upgrade apply v1\.37\.2/);
  assert.ok(offline.log.includes("[upgrade/versions] Cluster version: 1.36.3"));
  assert.ok(offline.log.includes("falling back to the local client version: v1.37.2"));

  // The same objects behind the caller's transport: the same plan, and only reads.
  const server = offlineCluster(objects, { major: "1", minor: "36", gitVersion: "v1.36.3" });
  const remote = await planUpgrade({
    cluster: { server: "https://192.0.2.10:6443", transport: server.transport },
    host,
    existingFiles: cp.files,
    random: seededRandom("plan"),
    clock,
  });
  assert.deepEqual(remote.plan, plan);
  assert.equal(remote.text, offline.text);
  assert.deepEqual(server.actions.filter((a) => a.verb !== "get" && a.verb !== "list"), []);
});

Deno.test("planUpgrade: a control plane at kubeadm's own version is up to date; a target version and bad input", async () => {
  const { cp, objects } = await clusterAt("v1.37.2");
  const current = await planUpgrade({
    cluster: { objects, version: "v1.37.2" },
    host,
    existingFiles: cp.files,
  });
  assert.equal(current.plan, undefined);
  assert.equal(current.text, "");

  const old = await clusterAt("v1.36.3");
  const patch = await planUpgrade({
    cluster: { objects: old.objects, version: "v1.36.3" },
    host,
    existingFiles: old.cp.files,
    version: "v1.36.9",
  });
  assert.deepEqual(patch.plan?.availableUpgrades?.map((u) => u.description), [
    "version in the v1.36 series",
  ]);
  await assert.rejects(
    planUpgrade({ cluster: { objects, version: "1.37" }, host }),
    (e) => e instanceof KubeadmError && e.field === "cluster.version",
  );
});
