// Fault matrix, `join` and `reset` (tests/support/faults.ts): a real control plane by our `init`
// (cp1), a marker ConfigMap written; then on a worker node and on a second control-plane node,
// an undisturbed join first (the reference: the node's files, the objects kubeadm made, etcd's
// members), and per cell a `reset` (and the Node deleted, as after any reset of a node) and a
// join that a fault interrupts — SIGKILL at a phase boundary or inside a step (a file half
// written, the kubelet just restarted, the etcd learner just added or just promoted, the etcd
// manifest half written), cp1's API server crashing, the joining node cut off from the cluster
// longer than the join's timeouts, its clock hours behind the cluster CA — and the same join
// again: it converges to the reference, or refuses saying what to do (then done, it converges).
// Then `reset` of the control plane killed at its steps (the etcd member just removed, the
// kubelet just stopped). Nothing may be lost: the marker reads back, every certificate pairs
// with its key and chains to its CA, every kubeconfig works, etcd has exactly the control
// planes as voters — no learner or stale member left behind (k/kubeadm#3269).
import assert from "node:assert/strict";
import {
  assertOk,
  certificateKey,
  type ClusterNode,
  controlPlaneJoinArgs,
  createClusterNode,
  etcdMembers,
  initForJoin,
  PREFLIGHT_IGNORED_WORKER,
  stopAll,
  TEST_TOKEN,
  uploadCerts,
  waitNodeReady,
  workerJoinArgs,
} from "../support/cluster.ts";
import {
  assertNothingLost,
  type Cell,
  clusterObjects,
  crashApiServer,
  killedAt,
  nodeFiles,
  type Partition,
  partition,
  rerun,
  RESET_ADVICE,
  runCell,
  selectCells,
  stoppedAt,
} from "../support/faults.ts";
import { kubeadmLauncher } from "../support/commands.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const MARKER = "before-faults";
/**
 * The short timeouts of the partition cells' join configuration. A control-plane join's
 * `etcd-join` first finds the etcd members through the API server (the etcd Pods), bounded by
 * `kubernetesAPICall`, then talks to etcd (`etcdAPICall`): both are short there.
 */
const SHORT = { discovery: 20, kubernetesAPICall: 20, etcdAPICall: 20, tlsBootstrap: 30 };

type JoinCell =
  & Cell
  & (
    | { kind: "kill"; point: string }
    | { kind: "api-restart"; point: string }
    | { kind: "partition"; point?: string }
    | { kind: "clock" }
  );

const WORKER = "join (worker)";
const CONTROL_PLANE = "join (control plane)";
const RESET = "reset (control plane)";

const killCell = (operation: string, point: string, ci = false): JoinCell => ({
  operation,
  fault: `kill at ${point}`,
  kind: "kill",
  point,
  ci,
});

const WORKER_CELLS: JoinCell[] = [
  killCell(WORKER, "phase:kubelet-start"),
  killCell(WORKER, "write:/etc/kubernetes/bootstrap-kubelet.conf"),
  killCell(WORKER, "service:restart:kubelet"),
  killCell(WORKER, "phase:kubelet-wait-bootstrap"),
  {
    operation: WORKER,
    fault: "API server restart (at kubelet-start)",
    kind: "api-restart",
    point: "phase:kubelet-start",
  },
  {
    operation: WORKER,
    fault: `network partition (${SHORT.discovery + 20} s, discovery timeout ${SHORT.discovery} s)`,
    kind: "partition",
  },
  { operation: WORKER, fault: "clock 5 h behind the CA", kind: "clock" },
];

const CONTROL_PLANE_CELLS: JoinCell[] = [
  killCell(CONTROL_PLANE, "phase:control-plane-prepare/download-certs"),
  killCell(CONTROL_PLANE, "write:/etc/kubernetes/pki/apiserver.key"),
  killCell(CONTROL_PLANE, "phase:kubelet-start"),
  killCell(CONTROL_PLANE, "service:restart:kubelet"),
  killCell(CONTROL_PLANE, "phase:etcd-join"),
  killCell(CONTROL_PLANE, "etcd:member-add", true),
  killCell(CONTROL_PLANE, "write:/etc/kubernetes/manifests/etcd.yaml"),
  killCell(CONTROL_PLANE, "etcd:member-promote"),
  killCell(CONTROL_PLANE, "phase:control-plane-join/mark-control-plane"),
  killCell(CONTROL_PLANE, "phase:wait-control-plane"),
  {
    operation: CONTROL_PLANE,
    fault: "API server restart (at etcd-join)",
    kind: "api-restart",
    point: "phase:etcd-join",
  },
  {
    operation: CONTROL_PLANE,
    fault: `network partition (${
      SHORT.etcdAPICall + 20
    } s from etcd-join, API and etcd timeouts ${SHORT.etcdAPICall} s)`,
    kind: "partition",
    point: "phase:etcd-join",
  },
];

const RESET_CELLS: JoinCell[] = [
  killCell(RESET, "phase:remove-etcd-member"),
  killCell(RESET, "etcd:member-remove"),
  killCell(RESET, "service:stop:kubelet"),
  killCell(RESET, "phase:cleanup-node"),
];

const cells = {
  worker: selectCells(WORKER_CELLS),
  controlPlane: selectCells(CONTROL_PLANE_CELLS),
  reset: selectCells(RESET_CELLS),
};
const count = cells.worker.length + cells.controlPlane.length + cells.reset.length;

/** A JoinConfiguration for `args`' discovery with short timeouts (the partition cells). */
async function shortTimeoutsConfig(
  node: ClusterNode,
  endpoint: string,
  pin: string,
  controlPlane?: { key: string },
): Promise<string> {
  const file = `${node.machine.dir}/join-short.yaml`;
  await Deno.writeTextFile(
    file,
    [
      "apiVersion: kubeadm.k8s.io/v1beta4",
      "kind: JoinConfiguration",
      "discovery:",
      "  bootstrapToken:",
      `    apiServerEndpoint: ${endpoint}`,
      `    token: ${TEST_TOKEN}`,
      "    caCertHashes:",
      `    - ${pin}`,
      "nodeRegistration:",
      `  name: ${node.name}`,
      "  ignorePreflightErrors:",
      `  - ${PREFLIGHT_IGNORED_WORKER}`,
      ...(controlPlane
        ? [
          "controlPlane:",
          `  certificateKey: ${controlPlane.key}`,
          "  localAPIEndpoint:",
          `    advertiseAddress: ${node.ip}`,
        ]
        : []),
      "timeouts:",
      `  discovery: ${SHORT.discovery}s`,
      ...(controlPlane ? [`  kubernetesAPICall: ${SHORT.kubernetesAPICall}s`] : []),
      `  etcdAPICall: ${SHORT.etcdAPICall}s`,
      `  tlsBootstrap: ${SHORT.tlsBootstrap}s`,
      "",
    ].join("\n"),
  );
  return file;
}

if (count > 0) {
  Deno.test({
    name: `fault matrix: join (worker, control plane) and reset × ${count} faults`,
    ...e2e,
    async fn(t) {
      const nodes: ClusterNode[] = [];
      try {
        const cp1 = await createClusterNode("cp1");
        nodes.push(cp1);
        const { endpoint, pin } = await initForJoin(cp1);
        await assertOk(
          cp1,
          "the marker",
          await cp1.kubectl(["-n", "default", "create", "cm", MARKER, "--from-literal=k=v"]),
        );
        const key = certificateKey();
        await uploadCerts(cp1, key, `controlPlaneEndpoint: ${endpoint}\n`);

        /**
         * `reset` of a joined node and its Node deleted (reset leaves the Node object). No
         * etcd member of the node may be left, voter or learner (k/kubeadm#3269): whatever a
         * killed join added, reset removes.
         */
        const resetNode = async (node: ClusterNode) => {
          await assertOk(node, "reset", await node.kubeadm(["reset", "--force"]));
          const del = await cp1.kubectl(["delete", "node", node.name, "--ignore-not-found"]);
          await assertOk(cp1, "delete the Node", del);
          const left = (await etcdMembers(cp1)).filter((m) =>
            m.peerURLs.includes(`https://${node.ip}:2380`)
          );
          assert.deepEqual(left, [], `${node.name}'s etcd member left after its reset`);
        };

        /** Runs the join cells on `node` (joined with `args` first, as the reference). */
        const joinCells = async (
          node: ClusterNode,
          args: string[],
          list: JoinCell[],
          shape: () => Parameters<typeof assertNothingLost>[0],
          partitionArgs: () => Promise<string[]>,
        ) => {
          await assertOk(node, "join", await node.kubeadm(args));
          await waitNodeReady(cp1, node.name);
          const state = async () => ({
            files: await nodeFiles(node),
            objects: await clusterObjects(cp1, cp1),
          });
          const reference = await state();
          const assertConverged = async () => {
            await waitNodeReady(cp1, node.name);
            assert.deepEqual(await state(), reference);
            await assertNothingLost(shape());
          };
          const again = (a: string[]) =>
            rerun(node, a, {
              advice: RESET_ADVICE,
              recover: () => resetNode(node),
              recoverWords: "kubeadm reset",
            });
          for (const cell of list) {
            await runCell(t, cell, async () => {
              await resetNode(node);
              let outcome: string;
              if (cell.kind === "kill") {
                await killedAt(node, args, cell.point);
                outcome = (await again(args)).outcome;
              } else if (cell.kind === "api-restart") {
                const r = await stoppedAt(node, args, cell.point, () => crashApiServer(cp1));
                if (r.code === 0) outcome = "completed (its calls retried through the restart)";
                else {
                  const error = r.stderr.match(/^error: (.{0,100})/m)?.[1] ?? "";
                  outcome = `failed clean (${error}…); ${(await again(args)).outcome}`;
                }
              } else if (cell.kind === "partition") {
                outcome = await partitioned(node, cp1, await partitionArgs(), cell.point, again);
              } else {
                outcome = await skewedClock(node, args);
              }
              await assertConverged();
              return outcome;
            });
          }
        };

        // ---- a worker ---------------------------------------------------------------------
        if (cells.worker.length > 0) {
          const worker = await createClusterNode("worker1", { linkTo: [cp1], role: "worker" });
          nodes.push(worker);
          await joinCells(
            worker,
            workerJoinArgs(endpoint, pin, worker.name),
            cells.worker,
            () => ({ apiNode: cp1, controlPlanes: [cp1], workers: [worker], marker: MARKER }),
            async () => ["join", "--config", await shortTimeoutsConfig(worker, endpoint, pin)],
          );
          await resetNode(worker);
        }

        // ---- a second control plane, then its reset --------------------------------------
        if (cells.controlPlane.length + cells.reset.length > 0) {
          const cp2 = await createClusterNode("cp2", { linkTo: [cp1] });
          nodes.push(cp2);
          const args = controlPlaneJoinArgs(endpoint, pin, cp2, key);
          const shape = () => ({
            apiNode: cp1,
            controlPlanes: [cp1, cp2],
            marker: MARKER,
          });
          await joinCells(
            cp2,
            args,
            cells.controlPlane,
            shape,
            // The configuration's controlPlane section makes it a control-plane join
            // (`--control-plane` may not be given with `--config`).
            async () => [
              "join",
              "--config",
              await shortTimeoutsConfig(cp2, endpoint, pin, { key }),
            ],
          );
          if (cells.reset.length > 0) {
            // The reference: cp1 alone, as an undisturbed reset of cp2 leaves it.
            await resetNode(cp2);
            const reference = {
              files: await nodeFiles(cp2),
              objects: await clusterObjects(cp1, cp1),
            };
            for (const cell of cells.reset) {
              await runCell(t, cell, async () => {
                await assertOk(cp2, "join", await cp2.kubeadm(args));
                await waitNodeReady(cp1, cp2.name);
                const point = (cell as { point: string }).point;
                await killedAt(cp2, ["reset", "--force"], point);
                const r = await cp2.kubeadm(["reset", "--force"]);
                await assertOk(cp2, "reset (re-run)", r);
                await assertOk(
                  cp1,
                  "delete the Node",
                  await cp1.kubectl(["delete", "node", "cp2"]),
                );
                assert.deepEqual(
                  { files: await nodeFiles(cp2), objects: await clusterObjects(cp1, cp1) },
                  reference,
                );
                await assertNothingLost({ apiNode: cp1, controlPlanes: [cp1], marker: MARKER });
                return "converged on re-run (its etcd member removed, its files gone)";
              });
            }
          }
        }
      } finally {
        await stopAll(nodes);
      }
    },
  });
}

/**
 * The joining node cut off from the control plane longer than the join's timeout (the short
 * timeouts of `args`' configuration): a bounded failure with a clear error; once healed, the
 * same join (after what the error says, if anything) converges. With `point`, the cut comes
 * when the join reaches it, else before it starts.
 */
async function partitioned(
  node: ClusterNode,
  cp1: ClusterNode,
  args: string[],
  point: string | undefined,
  again: (args: string[]) => Promise<{ outcome: string }>,
): Promise<string> {
  let failure = { seconds: 0, error: "" };
  let cut: Partition | undefined;
  const t0 = performance.now();
  try {
    const r = point
      ? await stoppedAt(node, args, point, async () => {
        cut = await partition(node, [cp1.ip]);
      })
      : await (async () => {
        cut = await partition(node, [cp1.ip]);
        return await node.kubeadm(args);
      })();
    const seconds = (performance.now() - t0) / 1000;
    assert.notEqual(r.code, 0, `joined through a partition:\n${r.stdout}`);
    const timeout = point ? SHORT.kubernetesAPICall + SHORT.etcdAPICall : SHORT.discovery;
    // Bounded: the timeout, plus start-up and the steps before (not the default minutes).
    assert.ok(seconds < timeout + 60, `failed only after ${seconds.toFixed(0)} s`);
    assert.match(r.stderr, point ? /etcd/ : /discovery|cluster-info/, r.stderr);
    assert.match(r.stderr, /timed out|timeout|deadline/, r.stderr);
    assert.ok(r.stderr.includes(cp1.ip), `the error does not name the endpoint:\n${r.stderr}`);
    failure = { seconds, error: r.stderr.match(/^error: (.*)$/m)?.[1] ?? "" };
  } finally {
    await cut?.heal();
  }
  const { outcome } = await again(args);
  return `bounded failure after ${failure.seconds.toFixed(0)} s (${
    failure.error.slice(0, 60)
  }…); healed: ${outcome}`;
}

/**
 * The joining node's clock 5 hours behind (`faketime` under kubeadm): the cluster CA is not
 * valid yet for it, so discovery must fail clearly, saying to check the clock, and write
 * nothing; with the clock right, the same join converges.
 */
async function skewedClock(node: ClusterNode, args: string[]): Promise<string> {
  const before = await node.machine.files();
  const r = await node.exec(["faketime", "-f", "-5h", kubeadmLauncher(), ...args], {
    timeoutMs: 10 * 60_000,
  });
  assert.notEqual(r.code, 0, `joined with a clock 5 h behind:\n${r.stdout}`);
  assert.match(
    r.stderr,
    /the cluster CA certificate \(CN=kubernetes\) is valid only from \S+, and this node's clock says \S+: the node's clock is behind/,
    r.stderr,
  );
  assert.match(r.stderr, /^hint: set this node's clock right/m);
  assert.deepEqual(await node.machine.files(), before, "the failed join wrote files");
  const again = await node.kubeadm(args);
  await assertOk(node, "join with the clock right", again);
  return "refused at once at discovery (the CA not valid yet by its clock, says so), nothing written; converged with the clock right";
}
