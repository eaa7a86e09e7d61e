/**
 * The local etcd member's data directory, created before its manifest is written (init's
 * `etcd local` phase, a control-plane join), as upstream's `CreateDataDirectory` does.
 *
 * @module
 */
import { ETCD_DATA_DIR_MODE } from "../constants.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { NodeHost } from "../ports/node.ts";

/** Creates `dir` (and its parents) with mode 0700, failing with upstream's message. */
export async function createEtcdDataDir(
  node: Pick<NodeHost, "ensureDir">,
  dir: string,
): Promise<void> {
  try {
    await node.ensureDir(dir, ETCD_DATA_DIR_MODE);
  } catch (e) {
    throw new KubeadmError(
      `failed to create the etcd data directory: ${JSON.stringify(dir)}: ${errorMessage(e)}`,
      { cause: e, field: "etcd.local.dataDir", value: dir },
    );
  }
}
