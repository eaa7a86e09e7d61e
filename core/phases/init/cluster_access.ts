/**
 * The admin connection of `kubeadm init`: {@link ClusterAccess} over `admin.conf`.
 *
 * Mirrors upstream's `initData.Client()`: on first use the admin kubeconfig is read (through
 * the node's file port), turned into connection parameters, and handed to a transport factory
 * the runtime injects (the Deno mTLS transport in a real run, the dry-run transport in
 * `--dry-run`). Since v1.35 every client talks to this node's own API server (the local API
 * endpoint), not the control-plane endpoint, while `kubeconfig()` keeps the file as written
 * (cluster-info and the join command use it). In a real run the `kubeadm:cluster-admins`
 * ClusterRoleBinding is then ensured once, with the super-admin.conf fallback; a dry run skips
 * that bootstrap, as upstream does.
 *
 * @module
 */
import { KubeconfigFile } from "../../constants.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import type { Clock, Sleep } from "../../ports/clock.ts";
import type { FileReader } from "../../ports/files.ts";
import { KubeClient } from "../../kube/client.ts";
import { connectionFromKubeconfig } from "../../kube/kubeconfig_connection.ts";
import { API_CALL_RETRY_INTERVAL_MS, poll } from "../../kube/retry.ts";
import { isForbidden, isTransient } from "../../kube/status.ts";
import type { ConnectionParams, TransportFactory } from "../../ports/transport.ts";
import { type Kubeconfig, withServer } from "../../kubeconfig/kubeconfig.ts";
import { readKubeconfigFile } from "../../kubeconfig/files.ts";
import { adminKubeconfigPath } from "../../kubeconfig/specs.ts";
import { localAPIEndpointURL } from "../../net/endpoint.ts";
import { ensureClusterAdminsBinding } from "../../cluster/cluster_admins.ts";
import type { ClusterAccess } from "./data.ts";

/** Options of {@link createClusterAccess}. */
export interface ClusterAccessOptions {
  /** Reads admin.conf, super-admin.conf and files they reference. */
  files: FileReader;
  /** `/etc/kubernetes`. */
  kubeconfigDir: string;
  /**
   * `--kubeconfig`: when it names another file than `<kubeconfigDir>/admin.conf`, that file is
   * used as it is, without the `kubeadm:cluster-admins` bootstrap (as upstream).
   */
  kubeconfigPath?: string;
  /** Transport factory (real or dry-run). */
  transportFor: TransportFactory;
  /** Ensure the `kubeadm:cluster-admins` binding on first use (false in dry-run). */
  bootstrapClusterAdmins: boolean;
  clock: Clock;
  sleep: Sleep;
  /** `timeouts.kubernetesAPICall` in milliseconds: the retry bound of every call. */
  apiCallTimeoutMs: number;
  /**
   * This node's API endpoint: admin.conf and super-admin.conf clients are pointed at it
   * (upstream `PointKubeConfigToLocalAPIEndpoint`); absent, they use the file's server.
   */
  localAPIEndpoint?: { advertiseAddress: string; bindPort: number };
}

/** A {@link ClusterAccess} for `<kubeconfigDir>/admin.conf` (or `--kubeconfig`). */
export function createClusterAccess(o: ClusterAccessOptions): ClusterAccess {
  const dir = o.kubeconfigDir.replace(/\/+$/, "");
  const defaultPath = adminKubeconfigPath(dir);
  const adminPath = adminKubeconfigPath(dir, o.kubeconfigPath);
  const bootstrap = o.bootstrapClusterAdmins && adminPath === defaultPath;
  const superAdminPath = `${dir}/${KubeconfigFile.superAdmin}`;
  let kubeconfig: Promise<Kubeconfig> | undefined;
  let client: Promise<KubeClient> | undefined;

  const loadAdmin = async (): Promise<Kubeconfig> => {
    const cfg = await readKubeconfigFile(o.files, adminPath);
    if (!cfg) {
      throw new KubeadmError(
        `couldn't create a Kubernetes client from file ${
          JSON.stringify(adminPath)
        }: failed to load admin kubeconfig: open ${adminPath}: no such file or directory`,
        { hint: 'generate it with "kubeadm init phase kubeconfig admin"' },
      );
    }
    return cfg;
  };

  const clientFor = async (file: Kubeconfig, path: string): Promise<KubeClient> => {
    let params: ConnectionParams;
    try {
      const cfg = o.localAPIEndpoint
        ? withServer(file, localAPIEndpointURL(o.localAPIEndpoint))
        : file;
      params = await connectionFromKubeconfig(cfg, { files: o.files });
    } catch (e) {
      throw new KubeadmError(
        `couldn't create a Kubernetes client from file ${JSON.stringify(path)}: ${errorMessage(e)}`,
        { cause: e },
      );
    }
    return new KubeClient({
      server: params.server,
      transport: await o.transportFor(params),
      clock: o.clock,
      sleep: o.sleep,
      retry: { timeoutMs: o.apiCallTimeoutMs },
    });
  };

  const connect = async (): Promise<KubeClient> => {
    const admin = await clientFor(await access.kubeconfig(), adminPath);
    if (!bootstrap) return admin;
    const superCfg = await readKubeconfigFile(o.files, superAdminPath);
    const superAdmin = superCfg ? await clientFor(superCfg, superAdminPath) : undefined;
    await ensureClusterAdminsBinding(admin, superAdmin);
    // A binding created through super-admin.conf reaches the authorizer's cache a moment
    // later (milliseconds): wait until admin.conf is no longer forbidden before handing the
    // client out, polling from 25ms up (every 500ms only while it takes longer).
    await poll<true>(async (window) => {
      try {
        await admin.tryGet({ kind: "Namespace", name: "kube-system" }, window.limits());
        return { done: true, value: true };
      } catch (e) {
        // A transient failure comes back only once the client's retries reached the wait's
        // end: reported as the wait's.
        if (isForbidden(e) || isTransient(e)) return { done: false, error: e };
        throw e;
      }
    }, {
      clock: o.clock,
      sleep: o.sleep,
      intervalMs: API_CALL_RETRY_INTERVAL_MS,
      firstIntervalMs: 25,
      timeoutMs: o.apiCallTimeoutMs,
    });
    return admin;
  };

  const access: ClusterAccess = {
    kubeconfigPath: adminPath,
    kubeconfig() {
      kubeconfig ??= loadAdmin().catch((e) => {
        kubeconfig = undefined;
        throw e;
      });
      return kubeconfig;
    },
    client() {
      client ??= connect().catch((e) => {
        client = undefined;
        throw e;
      });
      return client;
    },
  };
  return access;
}

/** The admin client of a phase, or a clear error when the runtime provides no cluster. */
export async function clusterClient(cluster: ClusterAccess | undefined): Promise<KubeClient> {
  if (!cluster) {
    throw new KubeadmError("this phase needs access to the cluster, but none is configured", {
      hint: "run it through the kubeadm command line, which connects with admin.conf",
    });
  }
  return await cluster.client();
}

/** The admin kubeconfig of a phase (see {@link clusterClient}). */
export async function adminKubeconfig(cluster: ClusterAccess | undefined): Promise<Kubeconfig> {
  if (!cluster) {
    throw new KubeadmError("this phase needs the admin kubeconfig, but no cluster is configured", {
      hint: "run it through the kubeadm command line",
    });
  }
  return await cluster.kubeconfig();
}
