/**
 * One reproducible planning scenario, run against any build of the library (the sources, or
 * `dist/kubeadm-core.js` in Node, Bun, Chromium and workerd): a control plane with uploaded
 * certificates, a worker and a second control plane, all from seeded randomness and a fixed
 * clock. The output is one JSON text; every runtime must produce the same bytes.
 *
 * It imports nothing at run time (the library comes in as an argument), so it bundles to a
 * standalone `.mjs`.
 *
 * @module
 */
import type * as Lib from "../../web/core_entry.ts";

/** The scenario's seed (a test value: real seeds are secret). */
export const SCENARIO_SEED = "kubeadm-ts cross-runtime scenario";
/** The scenario's clock. */
export const SCENARIO_TIME = "2026-03-01T12:00:00Z";
/** The control plane's configuration. */
export const SCENARIO_CONFIG = [
  "apiVersion: kubeadm.k8s.io/v1beta4",
  "kind: ClusterConfiguration",
  "encryptionAlgorithm: ECDSA-P256",
  "controlPlaneEndpoint: cp.example.test:6443",
  "",
].join("\n");
/** The first control plane's host. */
export const SCENARIO_HOST = { hostname: "cp1", advertiseAddress: "192.0.2.10" };

/** The body of the example Worker's request that plans the scenario's control plane. */
export const SCENARIO_WORKER_REQUEST = {
  ...SCENARIO_HOST,
  config: SCENARIO_CONFIG,
  seed: `${SCENARIO_SEED}/cp`,
  time: SCENARIO_TIME,
};

/** Runs the scenario with `lib`; returns every plan as one JSON text. */
export async function runPlanScenario(lib: typeof Lib): Promise<string> {
  const time = new Date(SCENARIO_TIME);
  const clock = { now: () => time };
  const seeded = (name: string) => lib.seededRandom(`${SCENARIO_SEED}/${name}`);
  const cp = await lib.planControlPlane({
    config: SCENARIO_CONFIG,
    uploadCerts: true,
    host: SCENARIO_HOST,
    random: seeded("cp"),
    clock,
  });
  const worker = await lib.planWorker({
    cluster: cp,
    host: { hostname: "w1", advertiseAddress: "192.0.2.21" },
    random: seeded("w1"),
    clock,
  });
  const cp2 = await lib.planControlPlaneJoin({
    cluster: cp,
    host: { hostname: "cp2", advertiseAddress: "192.0.2.11" },
    random: seeded("cp2"),
    clock,
  });
  return JSON.stringify({
    controlPlane: {
      files: cp.files,
      objects: cp.objects,
      joinCommand: cp.joinCommand,
      controlPlaneJoinCommand: cp.controlPlaneJoinCommand,
      caCertHash: cp.caCertHash,
      cloudInit: lib.toCloudInit(cp),
    },
    worker: { files: worker.files, cloudInit: lib.toCloudInit(worker) },
    controlPlaneJoin: { files: cp2.files, cloudInit: lib.toCloudInit(cp2) },
  });
}
