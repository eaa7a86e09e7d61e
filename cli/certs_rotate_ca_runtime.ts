/**
 * The runtime side of `kubeadm certs rotate-ca` (beyond upstream): its flags checked before
 * anything is read (`--ca`, the `--ca-cert`/`--ca-key` pair), the cluster's configuration as
 * `certs renew` reads it, and the rotation's data (`core/phases/rotate_ca/data.ts`) on this
 * node: its files under `--rootfs`, the restarts' context through `--kubeconfig` (default
 * admin.conf), the kubelet's own client through kubelet.conf, and an anonymous client (for
 * cluster-info), each opened afresh by a phase.
 *
 * @module
 */
import {
  DefaultTimeouts,
  DISCOVERY_MAX_BODY_BYTES,
  KubeconfigFile,
  KUBERNETES_DIR,
} from "../core/constants.ts";
import { errorMessage, KubeadmError } from "../core/errors.ts";
import type { Printer } from "../core/ports/printer.ts";
import type { RotateCaData } from "../core/phases/rotate_ca/data.ts";
import { parseNewCA, type RotatedCA, rotatedCA } from "../core/certs/ca_rotation.ts";
import { PkiDirectory } from "../core/certs/pki_dir.ts";
import { readHostFacts } from "../adapters/deno/host/facts.ts";
import { underRoot } from "../adapters/deno/files.ts";
import { readFileCapped } from "../adapters/deno/fs/capped_read.ts";
import { connectTransport, nodeFiles, nodeHost, platform } from "./adapters.ts";
import { connect } from "./cluster_connection.ts";
import { restartRuntime } from "./certs_restart_runtime.ts";
import { loadCertsConfig } from "./certs_runtime.ts";
import type { FlagValues } from "./flags.ts";
import { stderr } from "./output.ts";

/**
 * Refuses bad flags before any read (an unknown or unsupported `--ca`, half a CA pair); returns
 * the CA `--ca` names.
 */
export function checkRotateCaFlags(flags: FlagValues): RotatedCA {
  const ca = rotatedCA(flags.ca ?? "ca");
  if ((flags["ca-cert"] === undefined) !== (flags["ca-key"] === undefined)) {
    const missing = flags["ca-cert"] === undefined ? "--ca-cert" : "--ca-key";
    throw new KubeadmError(`${missing} is missing: --ca-cert and --ca-key go together`, {
      field: missing,
      hint: "give both (the new CA and its key), or neither to have a new CA generated",
    });
  }
  return ca;
}

async function readFlagFile(flag: "ca-cert" | "ca-key", path: string): Promise<Uint8Array> {
  try {
    return await readFileCapped(path);
  } catch (e) {
    throw new KubeadmError(`cannot read ${path}: ${errorMessage(e)}`, {
      field: `--${flag}`,
      value: path,
      cause: e,
    });
  }
}

/** The rotation's data for this node (see the module documentation). */
export async function rotateCaData(flags: FlagValues, out: Printer): Promise<RotateCaData> {
  const ca = checkRotateCaFlags(flags);
  const rootfs = flags.rootfs ?? "/";
  const newCA = flags["ca-cert"] && flags["ca-key"]
    ? await parseNewCA(
      await readFlagFile("ca-cert", flags["ca-cert"]),
      await readFlagFile("ca-key", flags["ca-key"]),
      platform.crypto,
      { cert: flags["ca-cert"], key: flags["ca-key"] },
    )
    : undefined;
  const cfg = await loadCertsConfig(flags, out, "rotate-ca", stderr);
  const files = await nodeFiles(rootfs);
  const node = await nodeHost(rootfs, {});
  const { nodeNameFromKubeletConf } = await import("../core/upgrade/cluster_config.ts");
  const kubeletConf = `${KUBERNETES_DIR}/${KubeconfigFile.kubelet}`;
  return {
    out,
    ca,
    dryRun: flags["dry-run"] === true,
    cfg,
    pki: PkiDirectory.of({ files, cfg, crypto: platform.crypto }),
    kubernetesDir: KUBERNETES_DIR,
    node,
    newCA,
    random: platform.random,
    now: platform.clock.now(),
    nodeName: await nodeNameFromKubeletConf(files, kubeletConf, readHostFacts(rootfs).hostname),
    controlPlane: async () => {
      const runtime = await restartRuntime(flags, cfg, out);
      return { value: runtime.ctx, close: runtime.close };
    },
    kubelet: async () => {
      const connection = await connect(
        { path: underRoot(rootfs, kubeletConf), refsRoot: rootfs },
        { timeoutMs: 30_000 },
      );
      return { value: connection.client, close: () => connection.close() };
    },
    anonymous: async (connection) => {
      const { KubeClient } = await import("../core/kube/client.ts");
      const handle = await connectTransport(connection, {
        timeoutMs: 30_000,
        maxBodyBytes: DISCOVERY_MAX_BODY_BYTES,
      });
      return {
        value: new KubeClient({
          server: connection.server,
          transport: handle.transport,
          clock: platform.clock,
          sleep: platform.sleep,
        }),
        close: () => handle.close(),
      };
    },
    timing: { clock: platform.clock, sleep: platform.sleep },
    timeoutMs: DefaultTimeouts.upgradeManifests,
  };
}
