/**
 * An HA cluster on real nodes: three control planes with stacked etcd (the smallest etcd
 * cluster that survives the loss of a member) and workers (one by default), built by our `init` and `join`
 * (`--upload-certs`, `--certificate-key`) behind a `controlPlaneEndpoint` served by HAProxy on
 * the host (load_balancer.ts); every Node Ready.
 *
 * @module
 */
import {
  assertOk,
  certificateKey,
  type ClusterNode,
  controlPlaneJoinArgs,
  createClusterNode,
  initForJoin,
  readyz,
  stopAll,
  uploadCerts,
  waitNodeReady,
  workerJoinArgs,
} from "./cluster.ts";
import { waitFor } from "./commands.ts";
import { type LoadBalancer, startLoadBalancer } from "./load_balancer.ts";

/** A running HA cluster. */
export interface HaCluster {
  cps: [ClusterNode, ClusterNode, ClusterNode];
  /** The first worker (`worker1`). */
  worker: ClusterNode;
  /** Every worker (`worker1`, `worker2`, …). */
  workers: ClusterNode[];
  /** Every node (control planes first); {@link HaCluster.stop} stops them. */
  nodes: ClusterNode[];
  lb: LoadBalancer;
  /** The `controlPlaneEndpoint` (the load balancer's). */
  endpoint: string;
  /** The CA's pin for discovery. */
  pin: string;
  /** The certificate key the control planes joined with (`kubeadm-certs`). */
  key: string;
  /** The ClusterConfiguration lines of the cluster's init (for `uploadCerts`). */
  clusterLines: string;
  /** Tears every node and the load balancer down. */
  stop(): Promise<void>;
}

/**
 * Builds the cluster at Kubernetes `version` (the nodes' kubelets and images too), with
 * `workers` workers.
 */
export async function createHaCluster(version: string, workers = 1): Promise<HaCluster> {
  const nodes: ClusterNode[] = [];
  let lb: LoadBalancer | undefined;
  const stop = async () => {
    try {
      await stopAll(nodes);
    } finally {
      await lb?.close();
    }
  };
  try {
    for (const name of ["cp1", "cp2", "cp3"]) {
      nodes.push(await createClusterNode(name, { version, linkTo: [...nodes] }));
    }
    const cps = nodes.slice() as HaCluster["cps"];
    for (let i = 1; i <= workers; i++) {
      nodes.push(await createClusterNode(`worker${i}`, { version, role: "worker", linkTo: cps }));
    }
    const joined = nodes.slice(3);
    lb = await startLoadBalancer(cps, nodes);
    const versionLine = `kubernetesVersion: ${version}\n`;
    const { endpoint, pin } = await initForJoin(cps[0], versionLine, lb.endpoint);
    const clusterLines = `${versionLine}controlPlaneEndpoint: ${endpoint}\n`;
    const key = certificateKey();
    await uploadCerts(cps[0], key, clusterLines);
    for (const cp of cps.slice(1)) {
      await assertOk(
        cp,
        `${cp.name}'s control-plane join`,
        await cp.kubeadm(controlPlaneJoinArgs(endpoint, pin, cp, key)),
      );
    }
    for (const w of joined) {
      await assertOk(w, `${w.name}'s join`, await w.kubeadm(workerJoinArgs(endpoint, pin, w.name)));
    }
    for (const n of nodes) await waitNodeReady(cps[0], n.name);
    return {
      cps,
      worker: joined[0],
      workers: joined,
      nodes,
      lb,
      endpoint,
      pin,
      key,
      clusterLines,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * Runs `fn`, maintenance that restarts control plane `cp`'s static Pods (an upgrade, a kubelet
 * swap, renewed certificates), with `cp` out of the load balancer's rotation, as an admin does:
 * an API server holds the requests it was sent while its local etcd member restarts (kubeadm's
 * upgrade documentation, "Considerations when upgrading etcd"), and the balancer's checks only
 * notice after the member has gone. Back in once `fn` is done and `cp`'s API server is ready.
 */
export async function inMaintenance<T>(
  lb: LoadBalancer,
  cp: ClusterNode,
  fn: () => Promise<T>,
): Promise<T> {
  await lb.drain(cp);
  try {
    const out = await fn();
    await waitFor(`${cp.name}'s API server ready`, async () => await readyz(cp) === "ok", 180_000);
    return out;
  } finally {
    await lb.undrain(cp);
  }
}
