// End to end: a slice of the Kubernetes v1.37.2 conformance suite (upstream's e2e.test, run by
// ginkgo from the host) on a real cluster made by our `init` and `join`: one control plane and
// two workers on the real-node harness, a Pod network spanning them, the suite's test images
// built locally (tests/support/conformance.ts; the whole suite is `scripts/conformance`).
//
// The slice spans what a cluster bootstrapper gets right or wrong: API machinery (CRDs, an
// admission webhook the API server calls across the Pod network, garbage collection, watches),
// apps (Deployments, StatefulSets, Jobs, ReplicaSets), network (Services, DNS through CoreDNS,
// EndpointSlices, Pod-to-Pod across nodes), node (probes, lifecycle hooks, ConfigMaps and
// Secrets as volumes and environment), auth (service account tokens, SubjectAccessReviews) and
// kubectl. Every test of it must pass, and each must have run.
import assert from "node:assert/strict";
import {
  ClusterError,
  counts,
  createConformanceCluster,
  exactFocus,
  runSuite,
  summary,
} from "../support/conformance.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

/** The slice: conformance.yaml codenames of Kubernetes v1.37.2. */
const CONFORMANCE_SLICE: readonly string[] = [
  "[sig-api-machinery] AdmissionWebhook [Privileged:ClusterAdmin] should be able to deny pod and configmap creation [Conformance]",
  "[sig-api-machinery] CustomResourceDefinition resources [Privileged:ClusterAdmin] Simple CustomResourceDefinition creating/deleting custom resource definition objects works [Conformance]",
  "[sig-api-machinery] Garbage collector should delete pods created by rc when not orphaning [Conformance]",
  "[sig-api-machinery] Watchers should observe add, update, and delete watch notifications on configmaps [Conformance]",
  "[sig-apps] Deployment RollingUpdateDeployment should delete old pods and create new ones [Conformance]",
  "[sig-apps] Job should run a job to completion when tasks sometimes fail and are locally restarted [Conformance]",
  "[sig-apps] ReplicaSet should serve a basic image on each replica with a public image [Conformance]",
  "[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should have a working scale subresource [Conformance]",
  "[sig-auth] ServiceAccounts should mount an API token into pods [Conformance]",
  "[sig-auth] SubjectReview should support SubjectReview API operations [Conformance]",
  "[sig-cli] Kubectl client Kubectl version should check is all data is printed [Conformance]",
  "[sig-network] DNS should provide DNS for services [Conformance]",
  "[sig-network] EndpointSlice should create Endpoints and EndpointSlices for Pods matching a Service [Conformance]",
  "[sig-network] Networking Granular Checks: Pods should function for intra-pod communication: http [Conformance] [NodeConformance]",
  "[sig-network] Services should serve a basic endpoint from pods [Conformance]",
  "[sig-node] ConfigMap should be consumable via environment variable [Conformance] [NodeConformance]",
  "[sig-node] Container Lifecycle Hook when create a pod with lifecycle hook should execute poststart exec hook properly [Conformance] [NodeConformance]",
  "[sig-node] Probing container with readiness probe should not be ready before initial delay and never restart [Conformance] [NodeConformance]",
  "[sig-storage] ConfigMap should be consumable from pods in volume [Conformance] [NodeConformance]",
  "[sig-storage] Secrets should be consumable from pods in volume [Conformance] [NodeConformance]",
];

Deno.test({
  name: "conformance: a slice of the v1.37.2 suite passes on a cluster made by our init and join",
  ...e2e,
  async fn() {
    const started = performance.now();
    const reportDir = await Deno.makeTempDir({ prefix: "kts-conformance-slice-" });
    const cluster = await createConformanceCluster("ours", {
      logsDir: `${reportDir}/logs`,
    });
    const clusterSeconds = (performance.now() - started) / 1000;
    try {
      const result = await runSuite(cluster, {
        phases: ["parallel"],
        focus: exactFocus(CONFORMANCE_SLICE),
        procs: 4,
        reportDir,
        timeoutMinutes: 20,
      });
      const text = summary({
        kind: "ours",
        date: new Date().toISOString().slice(0, 19) + "Z",
        commit: "(test)",
        clusterSeconds,
        totalSeconds: (performance.now() - started) / 1000,
        procs: 4,
        focus: "the CI slice",
      }, result);
      console.log(text);
      assert.deepEqual(result.suiteErrors, [], text);
      assert.deepEqual(
        result.tests.map((t) => t.name).toSorted(),
        [...CONFORMANCE_SLICE].toSorted(),
        "every test of the slice ran once",
      );
      assert.deepEqual(counts(result.tests), {
        passed: CONFORMANCE_SLICE.length,
        failed: 0,
        skipped: 0,
      }, text);
      await Deno.remove(reportDir, { recursive: true });
    } catch (e) {
      await cluster.collectLogs(`${reportDir}/logs`).catch(() => {});
      throw new Error(`${e instanceof Error ? e.message : e}\n(reports in ${reportDir})`);
    } finally {
      await cluster.close();
    }
  },
});

Deno.test({
  name:
    "conformance: a cluster that does not come up fails naming why, with its node's logs, and is torn down",
  ...e2e,
  async fn() {
    const logsDir = await Deno.makeTempDir({ prefix: "kts-conformance-logs-" });
    // A kubeadm that fails at once: init does not succeed.
    Deno.env.set("KUBEADM_TS_LAUNCHER", "/bin/false");
    try {
      const err = await createConformanceCluster("ours", { logsDir }).then(
        () => assert.fail("the cluster came up"),
        (e) => e,
      );
      assert.ok(err instanceof ClusterError, String(err));
      assert.match(err.message, /^the cluster did not come up: init failed:/);
      assert.match(err.message, new RegExp(`node logs in ${logsDir}`));
      const cp1 = `${logsDir}/cp1`;
      assert.match(
        await Deno.readTextFile(`${cp1}/containerd.log`),
        /containerd successfully booted/,
      );
      assert.ok((await Deno.stat(`${cp1}/kubelet.log`)).isFile);
      // Torn down: no node of this process is left (namespaces, cgroups, directories).
      const netns = new TextDecoder().decode(
        (await new Deno.Command("ip", { args: ["netns", "list"], stdout: "piped" }).output())
          .stdout,
      );
      assert.doesNotMatch(netns, new RegExp(`^kts-${Deno.pid}-`, "m"));
    } finally {
      Deno.env.delete("KUBEADM_TS_LAUNCHER");
      await Deno.remove(logsDir, { recursive: true });
    }
  },
});
