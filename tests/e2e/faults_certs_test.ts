// Fault matrix, the certificates' lifecycle (tests/support/faults.ts): on a real control plane by
// our `init` (its `/etc/kubernetes` on a tmpfs of its own, to be filled), a marker ConfigMap
// written; per cell a command that a fault interrupts, and the same command again.
//
// - `certs renew all --restart` (the components restarted in place through the CRI, etcd last),
//   SIGKILLed right after kube-apiserver's container was stopped, between two components (inside
//   the write of controller-manager.conf, kube-apiserver back on its renewed files), right after
//   etcd's container was stopped.
// - `certs auto-renewal run` (what the schedule runs: renews only what expires within its window)
//   on certificates re-issued to expire in 10 days, SIGKILLed after it wrote
//   controller-manager.conf and before it restarted the controller-manager: that file is not due
//   any more when it runs again.
// - `certs rotate-ca` (the cluster CA, in one run on a single control plane), as one chain of runs
//   each killed a step further: inside trust's write of the `ca.crt` bundle, inside trust's
//   restarts (the controller-manager's new manifest written), in reissue right after the new
//   signing key was written, before finish; the last run converges.
// - `certs renew all` (no restart) SIGKILLed inside a key write, between a certificate's key and
//   the certificate, inside a kubeconfig write, between two certificates; the API server (which
//   renew reads the cluster's configuration from) crashing; a full disk.
//
// Converged: the node's files as before (same names, same modes), every certificate renewed (a
// new serial) or, for the rotation, only the new CA trusted (ca.crt, every kubeconfig,
// cluster-info) and the API server serving a certificate it signed; each certificate paired with
// its key and chained to its CA, every kubeconfig works, nothing lost. With restarts, every
// component runs on the files on disk (its container created after their last write) and the
// API server serves the certificate on disk; without, once the static Pods restart on the
// renewed files the API server serves the renewed certificate.
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
  assertComponentsOnTheirFiles,
  assertNothingLost,
  assertServesOnDisk,
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
import { fileTrust, fingerprints, trustOf } from "../support/ca_trust.ts";
import { CONTROL_PLANE_KUBECONFIGS } from "../support/ca_rotation.ts";
import { kubectlJson } from "../support/cluster.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const OP = "certs renew all";
const OP_RESTART = "certs renew all --restart";
const OP_AUTO = "certs auto-renewal run";
const OP_ROTATE = "certs rotate-ca";
const MARKER = "before-faults";
const RENEW = ["certs", "renew", "all"];
const RENEW_RESTART = [...RENEW, "--restart"];
const AUTO_RUN = ["certs", "auto-renewal", "run"];
const ROTATE = ["certs", "rotate-ca"];

type CertsCell =
  & Cell
  & (
    | { kind: "kill"; point: string }
    | { kind: "restart-kill"; point: string }
    | { kind: "auto-kill"; point: string }
    | { kind: "rotate-kill"; point: string }
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

// The lifecycle's cells come first: they check that every component runs on the files on disk,
// which `certs renew all` without `--restart` leaves otherwise. The first kills kube-apiserver's
// stop: the kubelet restarts a container in place only while it has not restarted it in the last
// 10 minutes (else the restart makes a new Pod, and no container is stopped).
const CELLS: CertsCell[] = [
  {
    operation: OP_RESTART,
    fault: "kill at container:stop:kube-apiserver",
    kind: "restart-kill",
    point: "container:stop:kube-apiserver",
  },
  {
    operation: OP_RESTART,
    fault: "kill at write:/etc/kubernetes/controller-manager.conf (kube-apiserver restarted)",
    kind: "restart-kill",
    point: "write:/etc/kubernetes/controller-manager.conf",
  },
  {
    operation: OP_RESTART,
    fault: "kill at container:stop:etcd",
    kind: "restart-kill",
    point: "container:stop:etcd",
  },
  {
    operation: OP_AUTO,
    fault: "kill at wrote:/etc/kubernetes/controller-manager.conf (before its restart)",
    kind: "auto-kill",
    point: "wrote:/etc/kubernetes/controller-manager.conf",
    ci: true,
  },
  {
    operation: OP_ROTATE,
    fault: "kill at write:/etc/kubernetes/pki/ca.crt (trust: the bundle)",
    kind: "rotate-kill",
    point: "write:/etc/kubernetes/pki/ca.crt",
  },
  {
    operation: OP_ROTATE,
    fault:
      "kill at wrote:/etc/kubernetes/manifests/kube-controller-manager.yaml (trust's restarts)",
    kind: "rotate-kill",
    point: "wrote:/etc/kubernetes/manifests/kube-controller-manager.yaml",
  },
  {
    operation: OP_ROTATE,
    fault: "kill at wrote:/etc/kubernetes/pki/ca.key (reissue: the new signing key)",
    kind: "rotate-kill",
    point: "wrote:/etc/kubernetes/pki/ca.key",
  },
  {
    operation: OP_ROTATE,
    fault: "kill at phase:finish",
    kind: "rotate-kill",
    point: "phase:finish",
  },
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
        const again = (args = RENEW) =>
          rerun(node, args, {
            advice: RESET_ADVICE,
            recover: () => Promise.reject(new Error(`${args.join(" ")} refused to re-run`)),
          });
        const rotateCells = cells.filter((c) => c.kind === "rotate-kill");
        let newCA = "";

        for (const cell of cells) {
          await runCell(t, cell, async () => {
            const before = await serials(node);
            let outcome: string;
            if (cell.kind === "rotate-kill") {
              await killedAt(node, ROTATE, cell.point);
              newCA ||= await Deno.readTextFile(
                node.path("/etc/kubernetes/pki/ca-rotation/new-ca.crt"),
              );
              outcome = cell === rotateCells[0]
                ? "killed here"
                : "the re-run resumed past the previous point; killed here";
              if (cell !== rotateCells.at(-1)) return outcome;
              outcome = `${outcome}; ${(await again(ROTATE)).outcome}`;
              await assertRotated(node, newCA);
              await assertComponentsOnTheirFiles(node);
              assert.deepEqual(await nodeFiles(node), reference);
              await assertNothingLost(shape);
              return `${outcome}: only the new CA trusted, the API server serving its certificate`;
            }
            if (cell.kind === "kill") {
              await killedAt(node, RENEW, cell.point);
              outcome = (await again()).outcome;
            } else if (cell.kind === "restart-kill") {
              await killedAt(node, RENEW_RESTART, cell.point);
              outcome = (await again(RENEW_RESTART)).outcome;
            } else if (cell.kind === "auto-kill") {
              outcome = await autoRenewal(node, cell.point, again);
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
            if (cell.kind === "restart-kill" || cell.kind === "auto-kill") {
              await assertComponentsOnTheirFiles(node);
              await assertServesOnDisk(node);
              outcome += ", every component on the renewed files";
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
          await assertServesOnDisk(node);
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

/**
 * `certs auto-renewal run` killed at `point` (after a renewal with a 10-day validity made every
 * certificate due), then run again: it must restart whatever the killed run left on its previous
 * certificates, even what is not due any more, and leave nothing due.
 */
async function autoRenewal(
  node: ClusterNode,
  point: string,
  again: (args: string[]) => Promise<{ outcome: string }>,
): Promise<string> {
  const short = `${node.machine.dir}/short-validity.yaml`;
  await Deno.writeTextFile(
    short,
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\ncertificateValidityPeriod: 240h\n",
  );
  await assertOk(node, "renew for 10 days", await node.kubeadm([...RENEW, "--config", short]));
  const due = await node.kubeadm([
    "certs",
    "check-expiration",
    "--fail-if-expiring-within",
    "720h",
  ]);
  assert.equal(due.code, 4, `every certificate due: ${due.stdout}\n${due.stderr}`);
  await killedAt(node, AUTO_RUN, point);
  const { outcome } = await again(AUTO_RUN);
  const left = await node.kubeadm([
    "certs",
    "check-expiration",
    "--fail-if-expiring-within",
    "720h",
  ]);
  assert.equal(left.code, 0, `nothing due any more: ${left.stdout}\n${left.stderr}`);
  return outcome;
}

/**
 * The cluster CA rotation ended: `ca.crt`, every kubeconfig and cluster-info trust the new CA
 * alone, the rotation's folder is gone, and the API server's certificate verifies against it.
 */
async function assertRotated(node: ClusterNode, newCA: string): Promise<void> {
  const only = fingerprints(newCA);
  assert.equal(only.length, 1);
  assert.deepEqual(
    fingerprints(await Deno.readTextFile(node.path("/etc/kubernetes/pki/ca.crt"))),
    only,
    "ca.crt",
  );
  for (const f of CONTROL_PLANE_KUBECONFIGS) {
    assert.deepEqual(await fileTrust(node, f), only, f);
  }
  const info = await kubectlJson(node, ["-n", "kube-public", "get", "cm", "cluster-info"]) as {
    data: Record<string, string>;
  };
  assert.deepEqual(trustOf(info.data.kubeconfig), only, "cluster-info");
  await assert.rejects(Deno.lstat(node.path("/etc/kubernetes/pki/ca-rotation")));
  const served = await node.exec([
    "sh",
    "-c",
    `openssl s_client -connect ${node.ip}:6443 -CAfile /etc/kubernetes/pki/ca.crt -verify_return_error </dev/null 2>&1 | grep "Verify return code:"`,
  ]);
  const codes = served.stdout.trim().split("\n");
  assert.ok(codes.length >= 1 && codes[0] !== "", served.stdout);
  for (const line of codes) assert.match(line, /^\s*Verify return code: 0 \(ok\)$/, served.stdout);
}
