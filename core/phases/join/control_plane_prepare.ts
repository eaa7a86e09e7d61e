/**
 * `kubeadm join phase control-plane-prepare` (upstream `controlplaneprepare.go`): for a
 * control-plane join, download the shared certificates from `kubeadm-certs` (with
 * `--certificate-key`), generate this node's certificates, write `admin.conf`,
 * `controller-manager.conf` and `scheduler.conf` (upstream writes no `super-admin.conf` on
 * join), and the control-plane static Pod manifests. Every sub-phase is a no-op for worker
 * joins.
 *
 * The certificate, kubeconfig and manifest work reuses the init phases, run on the cluster's
 * configuration for this node.
 *
 * @module
 */
import { certListFor } from "../../certs/certlist.ts";
import { downloadCerts } from "../../cluster/upload_certs.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import { CONTROL_PLANE_COMPONENTS } from "../../manifests/manifest_file.ts";
import type { InitData } from "../init/data.ts";
import type { JoinData } from "./data.ts";

/** The kubeconfig files a joining control-plane node gets, in upstream's order. */
export const JOIN_CONTROL_PLANE_KUBECONFIGS = ["admin", "controller-manager", "scheduler"] as const;

/** The init view restricted to what a control-plane join generates. */
async function joinInitData(d: JoinData): Promise<InitData> {
  const view = await d.initData();
  view.willRun ??= (path) =>
    path.startsWith("certs/") ||
    JOIN_CONTROL_PLANE_KUBECONFIGS.some((k) => path === `kubeconfig/${k}`);
  return view;
}

/** `control-plane-prepare/download-certs`. */
export async function runDownloadCerts(d: JoinData): Promise<void> {
  const key = d.cfg.controlPlane?.certificateKey ?? "";
  if (!d.cfg.controlPlane || key === "") return;
  const cfg = await d.initCfg();
  const client = await d.bootstrapClient();
  let files;
  try {
    files = await downloadCerts(client, {
      certificateKey: key,
      certificatesDir: cfg.cluster.certificatesDir,
      externalEtcd: cfg.cluster.etcd.external,
    }, d.out);
  } catch (e) {
    throw new KubeadmError(`error downloading certs: ${errorMessage(e)}`, {
      cause: e,
      hint: e instanceof KubeadmError ? e.hint : undefined,
    });
  }
  for (const f of files) await d.files.write(f);
}

/** `control-plane-prepare/certs`: every certificate this node needs, then the SA key pair. */
export async function runJoinCerts(d: JoinData): Promise<void> {
  if (!d.cfg.controlPlane) return;
  const view = await joinInitData(d);
  const certs = await import("../init/certs.ts");
  await certs.runCertsHeader(view);
  for (const spec of certListFor(view.cfg)) await certs.runCert(view, spec.name);
  d.out.info(
    `[certs] Valid certificates and keys now exist in ${
      JSON.stringify(view.cfg.cluster.certificatesDir)
    }`,
  );
  await certs.runCert(view, "sa");
}

/** `control-plane-prepare/kubeconfig`: admin, controller-manager and scheduler kubeconfigs. */
export async function runJoinKubeconfigs(d: JoinData): Promise<void> {
  if (!d.cfg.controlPlane) return;
  const view = await joinInitData(d);
  const kubeconfigs = await import("../init/kubeconfig.ts");
  d.out.info("[kubeconfig] Generating kubeconfig files");
  d.out.info(`[kubeconfig] Using kubeconfig folder ${JSON.stringify(d.kubeconfigDir)}`);
  try {
    for (const name of JOIN_CONTROL_PLANE_KUBECONFIGS) await kubeconfigs.runKubeconfig(view, name);
  } catch (e) {
    throw new KubeadmError(`error generating kubeconfig files: ${errorMessage(e)}`, {
      cause: e,
      hint: e instanceof KubeadmError ? e.hint : undefined,
    });
  }
}

/** `control-plane-prepare/control-plane`: the three control-plane static Pod manifests. */
export async function runJoinControlPlaneManifests(d: JoinData): Promise<void> {
  if (!d.cfg.controlPlane) return;
  const view = await joinInitData(d);
  const controlPlane = await import("../init/control_plane.ts");
  await controlPlane.runControlPlaneHeader(view);
  for (const component of CONTROL_PLANE_COMPONENTS) {
    await controlPlane.runControlPlane(view, component);
  }
}
