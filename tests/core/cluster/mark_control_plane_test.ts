import assert from "node:assert/strict";
import type { Node, Taint } from "kubernetes-types/core/v1.d.ts";
import {
  formatTaint,
  markControlPlane,
  markControlPlaneNode,
} from "../../../core/cluster/mark_control_plane.ts";
import { KubeClient } from "../../../core/kube/client.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { FakeKubeApi } from "../../support/fake_kube_api.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";
import { resolveForTest } from "../../support/config.ts";
import { toKubeYaml } from "../../../core/yaml/kube_yaml.ts";

/** The taints `init` resolves for this node from `nodeRegistration.taints`. */
function controlPlaneTaints(taints: Taint[] | null | undefined): Taint[] {
  const init = {
    apiVersion: "kubeadm.k8s.io/v1beta4",
    kind: "InitConfiguration",
    nodeRegistration: taints === undefined ? {} : { taints },
  };
  return resolveForTest(toKubeYaml(init)).config.init.nodeRegistration.taints as Taint[];
}

const CP: Taint = { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" };

function node(taints?: Taint[]): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "cp-1", labels: { "kubernetes.io/hostname": "cp-1", keep: "me" } },
    spec: taints ? { taints } : {},
  };
}

Deno.test("default taints: absent means the control-plane taint, [] means none", () => {
  assert.deepEqual(controlPlaneTaints(undefined), [CP]);
  assert.deepEqual(controlPlaneTaints(null), [CP]);
  assert.deepEqual(controlPlaneTaints([]), []);
  const custom = [{ key: "a", value: "b", effect: "NoExecute" as const }];
  assert.deepEqual(controlPlaneTaints(custom), custom);
});

Deno.test("taints print like Go's Taint.ToString", () => {
  assert.equal(formatTaint(CP), "node-role.kubernetes.io/control-plane:NoSchedule");
  assert.equal(formatTaint({ key: "k", value: "v", effect: "NoExecute" }), "k=v:NoExecute");
  assert.equal(formatTaint({ key: "k", value: "v", effect: "" }), "k=v:");
  assert.equal(formatTaint({ key: "k", effect: "" }), "k");
});

Deno.test("merge rules: configured taints first, then existing ones not already present", () => {
  const n = node([
    { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" },
    CP,
  ]);
  markControlPlaneNode(n, [CP, { key: "dedicated", value: "cp", effect: "NoExecute" }]);
  assert.deepEqual(n.spec?.taints, [
    CP,
    { key: "dedicated", value: "cp", effect: "NoExecute" },
    { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" },
  ]);
  assert.deepEqual(n.metadata?.labels, {
    "kubernetes.io/hostname": "cp-1",
    keep: "me",
    "node-role.kubernetes.io/control-plane": "",
    "node.kubernetes.io/exclude-from-external-load-balancers": "",
  });
  const none = node();
  markControlPlaneNode(none, []);
  assert.deepEqual(none.spec?.taints, []);
});

Deno.test("markControlPlane prints upstream's lines and patches only what changed", async () => {
  const clock = new FakeClock();
  const api = new FakeKubeApi({ clock, objects: [node([{ key: "x", effect: "NoSchedule" }])] });
  const client = new KubeClient({
    server: "https://h:6443",
    transport: api.transport,
    clock,
    sleep: clock.sleep,
  });
  const out = new RecordingPrinter();
  await markControlPlane(client, "cp-1", [CP], out);
  assert.deepEqual(out.lines, [
    "[mark-control-plane] Marking the node cp-1 as control-plane by adding the labels: [node-role.kubernetes.io/control-plane node.kubernetes.io/exclude-from-external-load-balancers]",
    "[mark-control-plane] Marking the node cp-1 as control-plane by adding the taints [node-role.kubernetes.io/control-plane:NoSchedule]",
  ]);
  const patch = api.requests.find((r) => r.method === "PATCH")!;
  assert.deepEqual(patch.body, {
    metadata: {
      labels: {
        "node-role.kubernetes.io/control-plane": "",
        "node.kubernetes.io/exclude-from-external-load-balancers": "",
      },
    },
    spec: { taints: [CP, { key: "x", effect: "NoSchedule" }] },
  });
  const stored = api.get<Node>("Node", undefined, "cp-1")!;
  assert.equal(stored.metadata?.labels?.keep, "me");

  const quiet = new RecordingPrinter();
  await markControlPlane(client, "cp-1", [], quiet);
  assert.equal(quiet.lines.length, 1, "no taint line without taints");
});
