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
import type { JoinData } from "./data.ts";

/** The kubeconfig files a joining control-plane node gets, in upstream's order. */
const JOIN_CONTROL_PLANE_KUBECONFIGS = ["admin", "controller-manager", "scheduler"] as const;

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
      crypto: d.crypto,
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
  const ctx = await d.nodeContext();
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
  d.out.info(
    `[certs] Valid certificates and keys now exist in ${
      JSON.stringify(ctx.cfg.cluster.certificatesDir)
    }`,
  );
  await ensureCert(ctx, "sa");
}

/** `control-plane-prepare/kubeconfig`: admin, controller-manager and scheduler kubeconfigs. */
export async function runJoinKubeconfigs(d: JoinData): Promise<void> {
  if (!d.cfg.controlPlane) return;
  const ctx = await d.nodeContext();
  d.out.info("[kubeconfig] Generating kubeconfig files");
  d.out.info(kubeconfigDirLine(d.kubeconfigDir));
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
export async function runJoinControlPlaneManifests(d: JoinData): Promise<void> {
  if (!d.cfg.controlPlane) return;
  const ctx = await d.nodeContext();
  d.out.info(manifestDirLine(ctx.manifestDir));
  for (const component of CONTROL_PLANE_COMPONENTS) {
    await writeControlPlaneManifest(ctx, component);
  }
}
