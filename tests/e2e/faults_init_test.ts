// Fault matrix, `init` (tests/support/faults.ts): on one real node, an undisturbed `init` first
// (the reference: its files, the objects it made, etcd's members), then per cell a `reset` and an
// `init` that a fault interrupts — SIGKILL at a phase boundary or inside a step (a file write
// half done, a certificate's key written without its certificate, the kubelet just restarted),
// the API server crashing while init talks to it, a full `/etc/kubernetes` — and the same
// command again: it converges to the reference, or refuses saying what to do (then done, it
// converges). Nothing may be lost: every certificate pairs with its key and chains to its CA,
// every kubeconfig works, etcd has one voter.
import assert from "node:assert/strict";
import {
  assertOk,
  type ClusterNode,
  createClusterNode,
  PREFLIGHT_IGNORED_CONTROL_PLANE,
  writeInitConfig,
} from "../support/cluster.ts";
import {
  assertManifestsComplete,
  assertNothingLost,
  type Cell,
  clusterObjects,
  crashApiServer,
  fillDisk,
  killedAt,
  nodeFiles,
  rerun,
  RESET_ADVICE,
  runCell,
  selectCells,
  stoppedAt,
} from "../support/faults.ts";
import { openssl } from "../support/openssl.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const OP = "init";

/** A cell: a kill point, an API server crash at a point, or a full disk. */
type InitCell =
  & Cell
  & (
    | { kind: "kill"; point: string; advice?: RegExp; recoverWords?: string }
    | { kind: "api-restart"; point: string }
    | { kind: "disk" }
  );

const kill = (point: string, extra: Partial<InitCell> = {}): InitCell => ({
  operation: OP,
  fault: `kill at ${point}`,
  kind: "kill",
  point,
  ...extra,
} as InitCell);

const CELLS: InitCell[] = [
  // Phase boundaries.
  kill("phase:certs/ca"),
  kill("phase:kubeconfig/admin"),
  kill("phase:etcd/local"),
  kill("phase:control-plane/apiserver"),
  kill("phase:kubelet-start"),
  kill("phase:wait-control-plane"),
  kill("phase:upload-config/kubeadm"),
  kill("phase:mark-control-plane"),
  kill("phase:bootstrap-token"),
  kill("phase:kubelet-finalize/enable-client-cert-rotation"),
  kill("phase:addon/coredns"),
  kill("phase:show-join-command"),
  // Inside the risky steps.
  kill("write:/etc/kubernetes/pki/apiserver.key"),
  kill("wrote:/etc/kubernetes/pki/apiserver.key", {
    advice:
      /apiserver\.key exists without its certificate: restore .*apiserver\.crt or remove the key/,
    recoverWords: "remove the key",
  }),
  kill("write:/etc/kubernetes/manifests/etcd.yaml"),
  kill("service:restart:kubelet"),
  kill("service:restart:kubelet#2"),
  {
    operation: OP,
    fault: "API server restart (at upload-config)",
    kind: "api-restart",
    point: "phase:upload-config/kubeadm",
  },
  { operation: OP, fault: "full disk (/etc/kubernetes)", kind: "disk" },
];

const cells = selectCells(CELLS);

if (cells.length > 0) {
  Deno.test({
    name: `fault matrix: init × ${cells.length} faults`,
    ...e2e,
    async fn(t) {
      const node = await createClusterNode("cp1", { tmpfs: { "/etc/kubernetes": 64 << 20 } });
      try {
        const config = await writeInitConfig(node);
        const args = [
          "init",
          "--config",
          config,
          `--ignore-preflight-errors=${PREFLIGHT_IGNORED_CONTROL_PLANE}`,
        ];
        const reset = async () =>
          await assertOk(node, "reset", await node.kubeadm(["reset", "--force"]));
        const state = async () => ({
          files: await nodeFiles(node),
          objects: await clusterObjects(node, node),
        });

        // The reference: an undisturbed init.
        await assertOk(node, "init", await node.kubeadm(args));
        const reference = await state();
        assert.ok(reference.objects.includes("configmaps kube-system/kubeadm-config"));
        assert.ok(reference.files.includes("/etc/kubernetes/pki/apiserver.key 600"));

        /** The converged state: the reference's, nothing lost. */
        const assertConverged = async () => {
          assert.deepEqual(await state(), reference);
          await assertManifestsComplete(node);
          await assertNothingLost({ apiNode: node, controlPlanes: [node] });
        };

        for (const cell of cells) {
          await runCell(t, cell, async () => {
            await reset();
            let outcome: string;
            if (cell.kind === "kill") {
              await killedAt(node, args, cell.point);
              outcome = (await rerun(node, args, {
                advice: cell.advice ?? RESET_ADVICE,
                recover: cell.advice
                  ? () => Deno.remove(node.path("/etc/kubernetes/pki/apiserver.key"))
                  : reset,
                recoverWords: cell.recoverWords ?? "kubeadm reset",
              })).outcome;
            } else if (cell.kind === "api-restart") {
              const r = await stoppedAt(node, args, cell.point, () => crashApiServer(node));
              await assertOk(node, "init through an API server restart", r);
              outcome = "completed (its calls retried through the restart)";
            } else {
              outcome = await fullDisk(node, args);
            }
            await assertConverged();
            return outcome;
          });
        }
      } finally {
        await node.stop();
      }
    },
  });
}

/**
 * `/etc/kubernetes` full during `init`'s certificates: a clear error naming the file, no file
 * half written (every file there is whole, no temp file left); the same init once space is
 * freed converges.
 */
async function fullDisk(node: ClusterNode, args: string[]): Promise<string> {
  // Room for the CAs' files and a few more pages, not for the whole tree.
  const free = await fillDisk(node, "/etc/kubernetes", 6 * 4096);
  const r = await node.kubeadm(args);
  assert.notEqual(r.code, 0, "init succeeded on a full disk");
  assert.match(
    r.stderr,
    /unable to write \/etc\/kubernetes\/\S+: No space left on device/,
    r.stderr,
  );
  const written = [...(await node.machine.files()).keys()].filter((p) =>
    p.startsWith("/etc/kubernetes/")
  );
  assert.ok(written.length > 1, `nothing was written before the disk filled: ${written}`);
  for (const path of written) {
    assert.doesNotMatch(path, /\.tmp$/, "a temp file was left");
    if (path.endsWith(".filler")) continue;
    const host = node.path(path);
    if (path.endsWith(".crt")) await openssl(["x509", "-noout", "-in", host]);
    else if (path.endsWith(".key")) await openssl(["pkey", "-noout", "-in", host]);
    else if (path.endsWith(".pub")) await openssl(["pkey", "-pubin", "-noout", "-in", host]);
  }
  await free();
  const again = await node.kubeadm(args);
  await assertOk(node, "init after freeing space", again);
  return "failed clean (the full file named, nothing half-written); converged on re-run after freeing space";
}
