// Fault matrix, `certs renew all` (tests/support/faults.ts): on a real control plane by our
// `init` (its `/etc/kubernetes` on a tmpfs of its own, to be filled), a marker ConfigMap written;
// per cell a `certs renew all` that a fault interrupts — SIGKILL inside a key write, between a
// certificate's key and the certificate, inside a kubeconfig write, between two certificates;
// the API server (which renew reads the cluster's configuration from) crashing; a full disk —
// and the same command again. Converged: the node's files as before (same names, same modes),
// every certificate renewed (a new serial), paired with its key and chained to
// its CA, every kubeconfig works, nothing lost; after the static Pods restart on the renewed
// files the API server serves the renewed certificate.
import assert from "node:assert/strict";
import {
  assertOk,
  type ClusterNode,
  CONTROL_PLANE_PODS,
  createClusterNode,
  initControlPlane,
  readyz,
  restartStaticPod,
} from "../support/cluster.ts";
import { waitFor } from "../support/commands.ts";
import {
  allFaults,
  assertNothingLost,
  type Cell,
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
import { checkPkiDir } from "../support/pki_checks.ts";
import { KUBEADM_CERTS } from "../../core/certs/certlist.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const OP = "certs renew all";
const MARKER = "before-faults";
const RENEW = ["certs", "renew", "all"];

type CertsCell =
  & Cell
  & (
    | { kind: "kill"; point: string }
    | { kind: "api-restart"; point: string }
    | { kind: "disk" }
  );

const kill = (point: string, ci = false): CertsCell => ({
  operation: OP,
  fault: `kill at ${point}`,
  kind: "kill",
  point,
  ci,
});

const CELLS: CertsCell[] = [
  kill("write:/etc/kubernetes/pki/apiserver.key"),
  kill("wrote:/etc/kubernetes/pki/apiserver.key", true),
  kill("write:/etc/kubernetes/admin.conf"),
  kill("wrote:/etc/kubernetes/pki/etcd/server.crt"),
  {
    operation: OP,
    fault: "API server restart (before the first write)",
    kind: "api-restart",
    point: "write:/etc/kubernetes/pki/apiserver.key",
  },
  { operation: OP, fault: "full disk (/etc/kubernetes)", kind: "disk" },
];

const cells = selectCells(CELLS);

/** The PKI files `renew all` renews (a PKI pair's certificate), as node paths. */
const RENEWED_CERTS = KUBEADM_CERTS.filter((s) => s.caName).map((s) =>
  `/etc/kubernetes/pki/${s.baseName}.crt`
);

/** The serial numbers of the certificates `renew all` renews. */
async function serials(node: ClusterNode): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const crt of RENEWED_CERTS) {
    out.set(crt, await openssl(["x509", "-noout", "-serial", "-in", node.path(crt)]));
  }
  return out;
}

if (cells.length > 0) {
  Deno.test({
    name: `fault matrix: certs renew all × ${cells.length} faults`,
    ...e2e,
    async fn(t) {
      const node = await createClusterNode("cp1", { tmpfs: { "/etc/kubernetes": 64 << 20 } });
      try {
        await initControlPlane(node);
        await assertOk(
          node,
          "the marker",
          await node.kubectl(["-n", "default", "create", "cm", MARKER, "--from-literal=k=v"]),
        );
        const reference = await nodeFiles(node);
        const shape = { apiNode: node, controlPlanes: [node], marker: MARKER };
        const again = () =>
          rerun(node, RENEW, {
            advice: RESET_ADVICE,
            recover: () => Promise.reject(new Error("certs renew refused to re-run")),
          });

        for (const cell of cells) {
          await runCell(t, cell, async () => {
            const before = await serials(node);
            let outcome: string;
            if (cell.kind === "kill") {
              await killedAt(node, RENEW, cell.point);
              outcome = (await again()).outcome;
            } else if (cell.kind === "api-restart") {
              const r = await stoppedAt(node, RENEW, cell.point, () => crashApiServer(node));
              if (r.code === 0) outcome = "completed (it had read the configuration before)";
              else outcome = `failed clean; ${(await again()).outcome}`;
              await waitFor(
                "the API server back",
                async () => await readyz(node) === "ok",
                180_000,
              );
            } else {
              outcome = await fullDisk(node);
            }
            assert.deepEqual(await nodeFiles(node), reference);
            const after = await serials(node);
            for (const crt of RENEWED_CERTS) {
              assert.notEqual(after.get(crt), before.get(crt), `${crt} was not renewed`);
            }
            await assertNothingLost(shape);
            return outcome;
          });
        }

        // The full matrix only: tests/e2e/certs_renew_test.ts checks this in every run.
        if (!allFaults()) return;
        await t.step("the renewed certificates serve once the static Pods restart", async () => {
          for (const c of CONTROL_PLANE_PODS) await restartStaticPod(node, c);
          await waitFor("the API server ready", async () => await readyz(node) === "ok", 180_000);
          const served = await node.exec([
            "sh",
            "-c",
            `openssl s_client -connect ${node.ip}:6443 </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256`,
          ]);
          const onDisk = await openssl([
            "x509",
            "-noout",
            "-fingerprint",
            "-sha256",
            "-in",
            node.path("/etc/kubernetes/pki/apiserver.crt"),
          ]);
          assert.equal(served.stdout, onDisk);
          await assertNothingLost(shape);
        });
      } finally {
        await node.stop();
      }
    },
  });
}

/**
 * `/etc/kubernetes` full when `renew all` writes: a clear error naming the file; no file half
 * written (each certificate still pairs with its key, no temp file left); once space is freed
 * the same command converges.
 */
async function fullDisk(node: ClusterNode): Promise<string> {
  // Full: renew replaces each file in place (a temp file, renamed over it), and every file here
  // fits in a page, so any free page would do for all of them.
  const free = await fillDisk(node, "/etc/kubernetes", 0);
  const r = await node.kubeadm(RENEW);
  assert.notEqual(r.code, 0, "renewed everything on a full disk");
  assert.match(r.stderr, /unable to write \/etc\/kubernetes\/\S+: No space left on device/);
  const left = [...(await node.machine.files()).keys()].filter((p) =>
    p.startsWith("/etc/kubernetes/") && p.endsWith(".tmp")
  );
  assert.deepEqual(left, [], "temp files left");
  // Each certificate still pairs with its key: no pair half renewed.
  await checkPkiDir(node.path("/etc/kubernetes/pki"));
  await free();
  const { outcome } = await rerun(node, RENEW, {
    advice: RESET_ADVICE,
    recover: () => Promise.reject(new Error("certs renew refused to re-run")),
  });
  return `failed clean (the full file named, no temp file); after freeing space: ${outcome}`;
}
