/**
 * `kubeadm join phase control-plane-prepare` (upstream `controlplaneprepare.go`): for a
 * control-plane join, download the shared certificates from `kubeadm-certs` (with
 * `--certificate-key`), generate this node's certificates, write `admin.conf`,
 * `controller-manager.conf` and `scheduler.conf` (upstream writes no `super-admin.conf` on
 * join), and the control-plane static Pod manifests. Every sub-phase is a no-op for worker
 * joins.
 *
 * The certificates, kubeconfig files and manifests come from the same domain modules as
 * init's (`core/certs/tree.ts`, `core/kubeconfig/files.ts`, `core/manifests/write.ts`), on
 * the cluster's configuration for this node.
 *
 * @module
 */
import { certListFor } from "../../certs/certlist.ts";
import {
  certificateDirLine,
  checkExistingCerts,
  ensureCert,
  prefetchKeys,
} from "../../certs/tree.ts";
import { downloadCerts } from "../../cluster/upload_certs.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import {
  checkExistingKubeconfigs,
  ensureKubeconfigFile,
  kubeconfigDirLine,
} from "../../kubeconfig/files.ts";
import { kubeconfigSpec } from "../../kubeconfig/specs.ts";
import { CONTROL_PLANE_COMPONENTS } from "../../manifests/manifest_file.ts";
import { manifestDirLine, writeControlPlaneManifest } from "../../manifests/write.ts";
import { API_SERVER_ENDPOINT, DISCOVERY_INPUTS, type JoinData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** The kubeconfig files a joining control-plane node gets, in upstream's order. */
const JOIN_CONTROL_PLANE_KUBECONFIGS = ["admin", "controller-manager", "scheduler"] as const;

/** `control-plane-prepare/download-certs`. */
export async function runDownloadCerts(data: JoinData): Promise<void> {
  const key = data.cfg.controlPlane?.certificateKey ?? "";
  if (!data.cfg.controlPlane || key === "") return;
  const cfg = await data.initCfg();
  const client = await data.bootstrapClient();
  let files;
  try {
    files = await downloadCerts(client, {
      certificateKey: key,
      certificatesDir: cfg.cluster.certificatesDir,
      externalEtcd: cfg.cluster.etcd.external,
      crypto: data.crypto,
    }, data.out);
  } catch (e) {
    throw new KubeadmError(`error downloading certs: ${errorMessage(e)}`, {
      cause: e,
      hint: e instanceof KubeadmError ? e.hint : undefined,
    });
  }
  for (const f of files) await data.files.write(f);
}

/** `control-plane-prepare/certs`: every certificate this node needs, then the SA key pair. */
export async function runJoinCerts(data: JoinData): Promise<void> {
  if (!data.cfg.controlPlane) return;
  const ctx = await data.nodeContext();
  const certs = certListFor(ctx.cfg);
  ctx.out.info(certificateDirLine(ctx));
  const names = [...certs.map((s) => s.name), "sa"];
  // Every existing file this phase would refuse is refused before it writes any.
  await checkExistingCerts(ctx, names);
  await prefetchKeys(ctx, {
    certs: names,
    kubeconfigs: JOIN_CONTROL_PLANE_KUBECONFIGS.map((k) => kubeconfigSpec(k).fileName),
    kubeconfigDir: ctx.kubeconfigDir,
  });
  for (const spec of certs) await ensureCert(ctx, spec.name);
  data.out.info(
    `[certs] Valid certificates and keys now exist in ${
      JSON.stringify(ctx.cfg.cluster.certificatesDir)
    }`,
  );
  await ensureCert(ctx, "sa");
}

/** `control-plane-prepare/kubeconfig`: admin, controller-manager and scheduler kubeconfigs. */
export async function runJoinKubeconfigs(data: JoinData): Promise<void> {
  if (!data.cfg.controlPlane) return;
  const ctx = await data.nodeContext();
  data.out.info("[kubeconfig] Generating kubeconfig files");
  data.out.info(kubeconfigDirLine(data.kubeconfigDir));
  try {
    await checkExistingKubeconfigs(ctx, JOIN_CONTROL_PLANE_KUBECONFIGS);
    for (const name of JOIN_CONTROL_PLANE_KUBECONFIGS) await ensureKubeconfigFile(ctx, name);
  } catch (e) {
    throw new KubeadmError(`error generating kubeconfig files: ${errorMessage(e)}`, {
      cause: e,
      hint: e instanceof KubeadmError ? e.hint : undefined,
    });
  }
}

/** `control-plane-prepare/control-plane`: the three control-plane static Pod manifests. */
export async function runJoinControlPlaneManifests(data: JoinData): Promise<void> {
  if (!data.cfg.controlPlane) return;
  const ctx = await data.nodeContext();
  data.out.info(manifestDirLine(ctx.manifestDir));
  for (const component of CONTROL_PLANE_COMPONENTS) {
    await writeControlPlaneManifest(ctx, component);
  }
}

/** `join phase control-plane-prepare`: what a new control-plane instance needs on disk. */
export const controlPlanePreparePhase: Phase<JoinData> = {
  name: "control-plane-prepare",
  short: "Prepare the machine for serving a control plane",
  phases: [
    {
      name: "all",
      short: "Prepare the machine for serving a control plane",
      runAllSiblings: true,
      argsUsage: API_SERVER_ENDPOINT,
      inputs: [
        "advertiseAddress",
        "bindPort",
        "controlPlane",
        "nodeName",
        ...DISCOVERY_INPUTS,
        "certificateKey",
        "patchesDir",
        "dryRun",
      ],
    },
    {
      name: "download-certs",
      short: "Download certificates shared among control-plane nodes from the kubeadm-certs Secret",
      argsUsage: API_SERVER_ENDPOINT,
      run: runDownloadCerts,
      inputs: ["controlPlane", ...DISCOVERY_INPUTS, "certificateKey", "dryRun"],
    },
    {
      name: "certs",
      short: "Generate the certificates for the new control plane components",
      argsUsage: API_SERVER_ENDPOINT,
      run: runJoinCerts,
      inputs: ["advertiseAddress", "controlPlane", "nodeName", ...DISCOVERY_INPUTS, "dryRun"],
    },
    {
      name: "kubeconfig",
      short: "Generate the kubeconfig for the new control plane components",
      argsUsage: API_SERVER_ENDPOINT,
      run: runJoinKubeconfigs,
      inputs: ["controlPlane", ...DISCOVERY_INPUTS, "certificateKey", "dryRun"],
    },
    {
      name: "control-plane",
      short: "Generate the manifests for the new control plane components",
      run: runJoinControlPlaneManifests,
      inputs: [
        "advertiseAddress",
        "bindPort",
        "config",
        "controlPlane",
        "patchesDir",
        "dryRun",
      ],
    },
  ],
};
