// The upgrade's CreateJob health check: each of its waits (a schedulable Node, the Job
// created, the Job complete) ends within its timeout when the API server stops answering.
import assert from "node:assert/strict";
import type { Node } from "kubernetes-types/core/v1.d.ts";
import type { Machine } from "../../../core/ports/machine.ts";
import { clusterHealthChecks } from "../../../core/upgrade/health.ts";
import { FakeKubeApi } from "../../support/fake_kube_api.ts";
import { FakeNodeFiles } from "../../support/fake_machine.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";
import { silentApiClient } from "../../support/silent_peer.ts";

const T = 10_000;
const NODE: Node = { apiVersion: "v1", kind: "Node", metadata: { name: "cp1" } };

Deno.test("CreateJob's waits end within their timeout against a silent API server", async () => {
  const cases: [string, (r: Request) => boolean, RegExp][] = [
    [
      "schedulable Node",
      (r) => r.url.includes("/nodes"),
      /^could not check if there is at least one Node that can schedule a test Pod: the wait's timeout of 10s ran out during its last attempt: unable to list Node: /,
    ],
    [
      "Job created",
      (r) => r.method === "POST",
      /^could not create Job "upgrade-health-check-1" in the namespace "kube-system": the wait's timeout of 10s ran out during its last attempt: unable to create Job kube-system\/upgrade-health-check-1: /,
    ],
    [
      "Job complete",
      (r) => r.method === "GET" && r.url.includes("/jobs/"),
      /^Job "upgrade-health-check-1" in the namespace "kube-system" did not complete in 10s: the wait's timeout of 10s ran out during its last attempt: unable to get Job kube-system\/upgrade-health-check-1: /,
    ],
  ];
  for (const [name, hang, message] of cases) {
    const api = new FakeKubeApi({ objects: [NODE] });
    const { clock, client } = silentApiClient((r) => hang(r), api.transport);
    const [createJob] = clusterHealthChecks({
      client,
      files: new FakeNodeFiles(),
      manifestDir: "/etc/kubernetes/manifests",
      pauseImage: "registry.k8s.io/pause:3.10.1",
      dryRun: false,
      out: new RecordingPrinter(),
      now: () => 1,
      jobTimeoutMs: T,
    });
    const start = clock.ms;
    const outcome = await createJob.run({} as Machine);
    assert.equal(clock.ms - start, T, `${name}: not ${T}ms + the transport's 30s`);
    assert.equal(outcome.errors.length, 1, name);
    assert.match(outcome.errors[0], message, name);
  }
});
