// Fault matrix, `upgrade apply`, `upgrade node` and a control-plane `join` on an HA cluster
// (tests/support/faults.ts): three stacked-etcd control planes and a worker at v1.36.3 behind
// HAProxy (as tests/e2e/upgrade_test.ts), a marker ConfigMap written; the v1.37.2 images
// imported. An upgrade changes the cluster once, so each node's upgrade is one chain of cells:
// `upgrade apply v1.37.2` on cp1 SIGKILLed inside the etcd swap (its manifest taken out for the
// kubelet to restart it), the re-run killed inside the kube-apiserver swap, the next at later
// phase boundaries, the last one through an API server crash — each re-run got past the point
// the previous run died at, and the last converges. `upgrade node` on cp2 with cp3's etcd
// member stopped (quorum kept), on cp3 killed inside its etcd swap (the new manifest renamed
// over the old one: a joined member's regenerated manifest differs from its join's, whose
// `--initial-cluster` named every member), on the worker killed inside the kubelet config
// write; then a fourth control plane joins while cp3's etcd member is stopped (once the load
// balancer's checks have taken cp3's API server, which cannot answer without it, out of
// rotation): etcd refuses any member add while a voter is down, so the join must refuse at once,
// naming the member, having written nothing, and converge once the member is back. Converged: every node's files as before the upgrade (kubeadm's backups aside),
// upstream kubeadm v1.37.2's `upgrade diff` finds nothing to change in any manifest, every static
// Pod runs the v1.37.2 images, the cluster's objects as before, nothing lost.
import assert from "node:assert/strict";
import {
  assertOk,
  assertStaticPodsMirrored,
  type ClusterNode,
  controlPlaneJoinArgs,
  createClusterNode,
  etcdMembers,
  importImages,
  PREFLIGHT_IGNORED_CONTROL_PLANE,
  PREFLIGHT_IGNORED_WORKER,
  readyz,
  uploadCerts,
  waitNodeReady,
} from "../support/cluster.ts";
import {
  assertNothingLost,
  type Cell,
  clusterObjects,
  crashApiServer,
  killedAt,
  nodeFiles,
  rerun,
  RESET_ADVICE,
  runCell,
  selectCells,
  startEtcd,
  stopEtcd,
  stoppedAt,
} from "../support/faults.ts";
import { createHaCluster, type HaCluster } from "../support/ha_cluster.ts";
import { waitFor } from "../support/commands.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const FROM = "v1.36.3";
const TO = "v1.37.2";
const MARKER = "before-faults";
const IGNORE_CP = `--ignore-preflight-errors=${PREFLIGHT_IGNORED_CONTROL_PLANE}`;
const APPLY = ["upgrade", "apply", TO, "--yes", IGNORE_CP];
const NODE_CP = ["upgrade", "node", IGNORE_CP];
const NODE_WORKER = ["upgrade", "node", `--ignore-preflight-errors=${PREFLIGHT_IGNORED_WORKER}`];

const apply = (fault: string): Cell => ({ operation: "upgrade apply", fault });
const node = (fault: string): Cell => ({ operation: "upgrade node", fault });

/** The apply chain on cp1: each run killed at its point, the last through an API crash. */
const APPLY_KILLS: [Cell, string][] = [
  [
    apply("kill at removed:/etc/kubernetes/manifests/etcd.yaml (etcd swap)"),
    "removed:/etc/kubernetes/manifests/etcd.yaml",
  ],
  [
    apply("kill at moved:/etc/kubernetes/manifests/kube-apiserver.yaml (swap)"),
    "moved:/etc/kubernetes/manifests/kube-apiserver.yaml",
  ],
  [apply("kill at phase:upload-config/kubeadm"), "phase:upload-config/kubeadm"],
  [apply("kill at phase:kubelet-config"), "phase:kubelet-config"],
  [apply("kill at phase:addon/coredns"), "phase:addon/coredns"],
];
const APPLY_API = apply("API server restart (at upload-config; the last re-run)");
const NODE_ETCD_STOPPED = node("etcd member stopped (another control plane's; quorum kept)");
const NODE_KILL_SWAP = node("kill at moved:/etc/kubernetes/manifests/etcd.yaml (etcd swap)");
const NODE_KILL_WORKER = node("kill at write:/var/lib/kubelet/config.yaml (worker)");
const NODE_API = node("API server restart (at kubelet-config, worker)");
const JOIN_ETCD_STOPPED: Cell = {
  operation: "join (control plane)",
  fault: "etcd member stopped (quorum kept)",
};

const ALL = [
  ...APPLY_KILLS.map(([c]) => c),
  APPLY_API,
  NODE_ETCD_STOPPED,
  NODE_KILL_SWAP,
  NODE_KILL_WORKER,
  NODE_API,
  JOIN_ETCD_STOPPED,
];
const cells = new Set(selectCells(ALL));

if (cells.size > 0) {
  Deno.test({
    name:
      `fault matrix: upgrade apply, upgrade node, control-plane join on HA × ${cells.size} faults`,
    ...e2e,
    async fn(t) {
      let ha: HaCluster | undefined;
      try {
        ha = await createHaCluster(FROM);
        const { cps, worker, nodes, lb, endpoint, pin, key } = ha;
        const [cp1, cp2, cp3] = cps;
        await assertOk(
          cp1,
          "the marker",
          await cp1.kubectl(["-n", "default", "create", "cm", MARKER, "--from-literal=k=v"]),
        );
        for (const n of nodes) await importImages(n, TO, n === worker ? "worker" : "control-plane");
        const filesBefore = new Map<ClusterNode, string[]>();
        for (const n of nodes) filesBefore.set(n, await nodeFiles(n));
        const objectsBefore = await clusterObjects(cp1, cp1);
        const shape = { apiNode: cp1, controlPlanes: cps, workers: [worker], marker: MARKER };

        /** A node converged: its files as before, its manifests upstream's v1.37.2 ones. */
        const assertUpgraded = async (n: ClusterNode) => {
          assert.deepEqual(await nodeFiles(n), filesBefore.get(n), `${n.name}'s files`);
          if (n === worker) return;
          const diff = await n.exec([`${n.binDir}/kubeadm`, "upgrade", "diff", TO]);
          await assertOk(n, "upstream upgrade diff", diff);
          assert.doesNotMatch(diff.stdout, /^(---|\+\+\+|@@) /m, diff.stdout);
          await assertStaticPodsMirrored(cp1, n);
          for (const c of ["kube-apiserver", "kube-controller-manager", "kube-scheduler"]) {
            const m = await Deno.readTextFile(n.path(`/etc/kubernetes/manifests/${c}.yaml`));
            assert.match(m, new RegExp(`image: registry\\.k8s\\.io/${c}:v1\\.37\\.2\\n`));
          }
        };
        /** The kubelet restarts a crashed API server after a back-off growing with each crash. */
        const apiServerBack = (n: ClusterNode) =>
          waitFor(`${n.name}'s API server ready`, async () => await readyz(n) === "ok", 180_000);
        const again = (n: ClusterNode, args: string[]) =>
          rerun(n, args, {
            advice: RESET_ADVICE,
            recover: () => Promise.reject(new Error("an upgrade refused to re-run")),
          });

        // ---- upgrade apply on cp1: a chain of killed runs ---------------------------------
        for (const [i, [cell, point]] of APPLY_KILLS.entries()) {
          if (!cells.has(cell)) continue;
          await runCell(t, cell, async () => {
            if (i === 0) {
              await killedAt(cp1, APPLY, point);
              return "killed; the re-run went on (killed at the next point)";
            }
            // This run is the previous cell's re-run: it got past the previous point.
            await killedAt(cp1, APPLY, point);
            return "re-run of the previous cell got past it; killed here; the next re-run went on";
          });
        }
        if (cells.has(APPLY_API)) {
          await runCell(t, APPLY_API, async () => {
            const r = await stoppedAt(
              cp1,
              APPLY,
              "phase:upload-config/kubeadm",
              () => crashApiServer(cp1),
            );
            await assertOk(cp1, "upgrade apply through an API server crash", r);
            await apiServerBack(cp1);
            assert.match(
              r.stdout,
              /\[upgrade\] SUCCESS! A control plane node of your cluster was upgraded to "v1\.37\.2"\./,
            );
            await assertUpgraded(cp1);
            await assertNothingLost(shape);
            return "completed through the restart (the API answered through the other control planes); the chain converged";
          });
        } else {
          await assertOk(cp1, "upgrade apply", await cp1.kubeadm(APPLY));
        }

        // ---- upgrade node on cp2 with cp3's etcd member stopped ---------------------------
        if (cells.has(NODE_ETCD_STOPPED)) {
          await runCell(t, NODE_ETCD_STOPPED, async () => {
            await stopEtcd(cp3);
            let outcome: string;
            try {
              const r = await cp2.kubeadm(NODE_CP);
              if (r.code === 0) outcome = "completed (2 of 3 members kept quorum)";
              else {
                assert.match(r.stderr, /etcd/, r.stderr);
                outcome = `refused (${r.stderr.match(/^error: (.{0,80})/m)?.[1]}…)`;
              }
            } finally {
              await startEtcd(cp3);
            }
            if (!outcome.startsWith("completed")) {
              outcome += `; with the member back: ${(await again(cp2, NODE_CP)).outcome}`;
            }
            await assertUpgraded(cp2);
            await assertNothingLost(shape);
            return outcome;
          });
        } else {
          await assertOk(cp2, "upgrade node", await cp2.kubeadm(NODE_CP));
        }

        // ---- upgrade node on cp3, killed inside its etcd swap -----------------------------
        if (cells.has(NODE_KILL_SWAP)) {
          await runCell(t, NODE_KILL_SWAP, async () => {
            await killedAt(cp3, NODE_CP, "moved:/etc/kubernetes/manifests/etcd.yaml");
            const { outcome } = await again(cp3, NODE_CP);
            await assertUpgraded(cp3);
            await assertNothingLost(shape);
            return outcome;
          });
        } else {
          await assertOk(cp3, "upgrade node", await cp3.kubeadm(NODE_CP));
        }

        // ---- upgrade node on the worker ---------------------------------------------------
        if (cells.has(NODE_KILL_WORKER)) {
          await runCell(t, NODE_KILL_WORKER, async () => {
            await killedAt(worker, NODE_WORKER, "write:/var/lib/kubelet/config.yaml");
            const { outcome } = await again(worker, NODE_WORKER);
            await assertUpgraded(worker);
            return outcome;
          });
        }
        if (cells.has(NODE_API)) {
          await runCell(t, NODE_API, async () => {
            const r = await stoppedAt(
              worker,
              NODE_WORKER,
              "phase:kubelet-config",
              () => crashApiServer(cp1),
            );
            await assertOk(worker, "upgrade node through an API server crash", r);
            await apiServerBack(cp1);
            await assertUpgraded(worker);
            return "completed through the restart";
          });
        }
        assert.deepEqual(await clusterObjects(cp1, cp1), objectsBefore);
        await assertNothingLost(shape);

        // ---- a fourth control plane joins while cp3's etcd member is stopped --------------
        if (cells.has(JOIN_ETCD_STOPPED)) {
          await runCell(t, JOIN_ETCD_STOPPED, async () => {
            const cp4 = await createClusterNode("cp4", { linkTo: cps });
            nodes.push(cp4);
            await lb.addClient(cp4);
            await uploadCerts(cp1, key, `controlPlaneEndpoint: ${endpoint}\n`);
            const join = controlPlaneJoinArgs(endpoint, pin, cp4, key);
            const cp4Before = await nodeFiles(cp4);
            await stopEtcd(cp3);
            let refused: string;
            try {
              // cp3's API server holds what it is sent until its member is back (up to its
              // 60 s request timeout): the balancer's /readyz checks take it out within
              // seconds; a join started before they did could be sent there, as upstream's.
              await waitFor(
                "the load balancer's checks taking cp3 out",
                async () => /^DOWN/.test(await lb.status(cp3)),
                60_000,
              );
              // etcd refuses any member add while a voting member is down: the join must
              // refuse at once, naming the member, before it writes anything.
              const started = Date.now();
              const r = await cp4.kubeadm(join);
              const seconds = Math.round((Date.now() - started) / 1000);
              assert.notEqual(r.code, 0, `joined with cp3's member down:\n${r.stdout}`);
              const cp3URL = `https://${cp3.ip}:2379`.replaceAll(".", "\\.");
              assert.match(
                r.stderr,
                new RegExp(
                  `the etcd member cp3 \\(${cp3URL}\\) does not answer, and etcd refuses to add a member while a voting member is down`,
                ),
                r.stderr,
              );
              assert.match(r.stderr, /^hint: bring it back .*, then run the join again$/m);
              assert.ok(seconds < 60, `refused after ${seconds} s`);
              assert.deepEqual(await nodeFiles(cp4), cp4Before, "cp4's files after the refusal");
              const members = await etcdMembers(cp1);
              assert.deepEqual(
                members.map((m) => `${m.name} ${m.isLearner ? "learner" : "voter"}`).sort(),
                ["cp1 voter", "cp2 voter", "cp3 voter"],
              );
              refused = `refused in ${seconds} s, in preflight, naming cp3's member ` +
                "(etcd refuses a member add while a voter is down), nothing written, no learner";
            } finally {
              await startEtcd(cp3);
            }
            await waitFor(
              "cp3 back in the load balancer's rotation",
              async () => await lb.status(cp3) === "UP",
              120_000,
            );
            const started = Date.now();
            await assertOk(cp4, "the same join, cp3's member back", await cp4.kubeadm(join));
            const outcome = `${refused}; member back: the same join converged without a reset (${
              Math.round((Date.now() - started) / 1000)
            } s)`;
            await waitNodeReady(cp1, cp4.name);
            await assertNothingLost({ ...shape, controlPlanes: [...cps, cp4] });
            // Back to three control planes.
            await assertOk(cp4, "reset", await cp4.kubeadm(["reset", "--force"]));
            await assertOk(cp1, "delete the Node", await cp1.kubectl(["delete", "node", "cp4"]));
            await assertNothingLost(shape);
            return outcome;
          });
        }
      } finally {
        await ha?.stop();
      }
    },
  });
}
