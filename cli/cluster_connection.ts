/**
 * The CLI's connection to a cluster through a kubeconfig file (upstream's
 * `kubeconfigutil.ClientSetFromFile`), shared by the commands that read or change the cluster
 * outside the init/join workflows: `upgrade`, `certs renew`/`check-expiration` and `reset`.
 *
 * Paths: an explicit `--kubeconfig` is a path on this machine whose file references resolve
 * from `/`; the default (`/etc/kubernetes/<file>`) is a node path under `--rootfs`, and so are
 * its references, as upstream's chroot sees them.
 *
 * @module
 */
import { KUBERNETES_DIR } from "../core/constants.ts";
import { errorMessage, KubeadmError } from "../core/errors.ts";
import type { KubeClient } from "../core/kube/client.ts";
import type { Transport } from "../core/ports/transport.ts";
import { isNotFound, readFileCapped } from "../adapters/deno/fs/capped_read.ts";
import { underRoot } from "../adapters/deno/files.ts";
import { connectTransport, nodeFiles, platform } from "./adapters.ts";

/** A client and the transport under it; `close()` releases the transport's connections. */
export interface Connection {
  client: KubeClient;
  transport: Transport;
  close(): void;
}

/** Where a command's kubeconfig is (see the module documentation). */
export interface KubeconfigLocation {
  /** The file's path on this machine. */
  path: string;
  /** The root the file's references (certificate files) resolve under. */
  refsRoot: string;
  /** The path as the node sees it (for messages, as upstream's chroot shows it). */
  nodePath: string;
}

/** The kubeconfig of a command: `--kubeconfig`, else `/etc/kubernetes/<file>` under the root. */
export function kubeconfigLocation(
  kubeconfigFlag: string | undefined,
  rootfs: string,
  file: string,
): KubeconfigLocation {
  if (kubeconfigFlag) return { path: kubeconfigFlag, refsRoot: "/", nodePath: kubeconfigFlag };
  const nodePath = `${KUBERNETES_DIR}/${file}`;
  return { path: underRoot(rootfs, nodePath), refsRoot: rootfs, nodePath };
}

/** Options of {@link connect}. */
export interface ConnectOptions {
  /** One deadline per request (connect, TLS, headers and body). */
  timeoutMs: number;
  /** Parse the file with `clientcmd.Load`'s rules (lenient, as the certs commands read it). */
  clientcmd?: boolean;
}

/**
 * A client for the cluster a kubeconfig file names. A file that cannot be read or does not
 * load is a {@link KubeadmError} naming it; nothing is contacted until the first request.
 */
export async function connect(
  location: Pick<KubeconfigLocation, "path" | "refsRoot">,
  options: ConnectOptions,
): Promise<Connection> {
  const [{ parseKubeconfig }, { connectionFromKubeconfig }, { KubeClient }] = await Promise.all([
    import("../core/kubeconfig/kubeconfig.ts"),
    import("../core/kube/kubeconfig_connection.ts"),
    import("../core/kube/client.ts"),
  ]);
  const { path, refsRoot } = location;
  let raw: Uint8Array;
  try {
    raw = await readFileCapped(path);
  } catch (e) {
    throw new KubeadmError(
      `couldn't create a Kubernetes client from file ${JSON.stringify(path)}: ${
        isNotFound(e)
          ? `failed to load admin kubeconfig: open ${path}: no such file or directory`
          : errorMessage(e)
      }`,
      { field: "--kubeconfig", value: path, cause: e },
    );
  }
  const kubeconfig = parseKubeconfig(raw, path, { clientcmd: options.clientcmd });
  const params = await connectionFromKubeconfig(kubeconfig, { files: await nodeFiles(refsRoot) });
  const handle = await connectTransport(params, { timeoutMs: options.timeoutMs });
  return {
    client: new KubeClient({
      server: params.server,
      transport: handle.transport,
      clock: platform.clock,
      sleep: platform.sleep,
    }),
    transport: handle.transport,
    close: () => handle.close(),
  };
}

/** Whether the node under `rootfs` runs a control plane (upstream `IsControlPlaneNode`). */
export async function isControlPlaneNode(rootfs: string): Promise<boolean> {
  const upgrade = await import("../core/upgrade/cluster_config.ts");
  return await upgrade.isControlPlaneNode(await nodeFiles(rootfs));
}
