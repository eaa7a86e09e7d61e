/**
 * `kubeadm init phase etcd local`: the local etcd static Pod manifest.
 *
 * Skipped when `etcd.external` is set (a line at `-v=1` says so, as upstream's). Creates the
 * data directory (0700) first, as upstream does, through the node's port (when there is a
 * node); in dry-run it says `[etcd] Would ensure ...` instead.
 *
 * @module
 */
import { errorMessage, KubeadmError } from "../../errors.ts";
import { DEFAULT_ETCD_DATA_DIR } from "../../constants.ts";
import { createEtcdDataDir } from "../../etcd/data_dir.ts";
import { etcdPod } from "../../manifests/etcd.ts";
import { nodeManifestInput, writeLocalEtcdManifest } from "../../manifests/write.ts";
import type { InitData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** Writes `<manifestDir>/etcd.yaml` for a local etcd; does nothing with external etcd. */
export async function runLocalEtcd(data: InitData): Promise<void> {
  const cluster = data.cfg.cluster;
  if (cluster.etcd.external) {
    data.out.log?.(
      1,
      "etcd.ts",
      "[etcd] External etcd mode. Skipping the creation of a manifest for local etcd",
    );
    return;
  }
  const dataDir = cluster.etcd.local?.dataDir || DEFAULT_ETCD_DATA_DIR;
  if (data.dryRun) {
    data.out.info(`[etcd] Would ensure that ${JSON.stringify(dataDir)} directory is present`);
  } else {
    if (data.node) await createEtcdDataDir(data.node, dataDir);
  }
  data.out.info(
    `[etcd] Creating static Pod manifest for local etcd in ${JSON.stringify(data.manifestDir)}`,
  );
  try {
    await writeLocalEtcdManifest(data, etcdPod(await nodeManifestInput(data)));
  } catch (e) {
    throw new KubeadmError(
      `error creating local etcd static pod manifest file: ${errorMessage(e)}`,
      { cause: e, hint: e instanceof KubeadmError ? e.hint : undefined },
    );
  }
}

/** `init phase etcd`: the local etcd's manifest (none with an external etcd). */
export const etcdPhase: Phase<InitData> = {
  name: "etcd",
  short: "Generate static Pod manifest file for local etcd",
  phases: [{
    name: "local",
    short: "Generate the static Pod manifest file for a local, single-node local etcd instance",
    runIf: (data) => data.cfg.cluster.etcd.external === undefined,
    run: runLocalEtcd,
    inputs: ["certificatesDir", "config", "dryRun", "imageRepository", "patchesDir"],
  }],
};
