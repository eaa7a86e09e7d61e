/**
 * The runtime side of the restarts after a renewal (`certs renew … --restart`,
 * `certs auto-renewal run`): the cluster through `--kubeconfig` (default
 * `/etc/kubernetes/admin.conf` under `--rootfs`), this node's name (the client certificate of
 * `kubelet.conf`, else the hostname), its files, health probes, etcd client and container
 * runtime (the CRI socket the kubelet's `instance-config.yaml` names, else the default), and
 * the stacked etcd cluster found through the API server, this node's restart lock
 * (`adapters/deno/host/node_lock.ts`; `core/controlplane/restart.ts` does the rest), and the
 * kubelet restarted after kubelet.conf's embedded certificate was renewed.
 *
 * @module
 */
import {
  DEFAULT_CRI_SOCKET,
  DefaultTimeouts,
  KubeconfigFile,
  KUBERNETES_DIR,
  MANIFESTS_DIR,
} from "../core/constants.ts";
import type { ResolvedConfig } from "../core/config/types.ts";
import type { RenewedFiles, RestartContext } from "../core/controlplane/restart.ts";
import type { RenewalPlan } from "../core/certs/renewal.ts";
import { KUBELET_CONF_TARGET } from "../core/certs/kubelet_conf.ts";
import type { Printer } from "../core/ports/printer.ts";
import { readHostFacts } from "../adapters/deno/host/facts.ts";
import { nodeRestartLock } from "../adapters/deno/host/node_lock.ts";
import { nodeFiles, nodeHost, platform } from "./adapters.ts";
import { connect, kubeconfigLocation } from "./cluster_connection.ts";
import type { FlagValues } from "./flags.ts";

/** A restart context and what releases its connections. */
export interface RestartRuntime {
  ctx: RestartContext;
  /** Restarts this node's kubelet and waits for it to be healthy (kubelet.conf renewed). */
  restartKubelet(): Promise<void>;
  /** The API client the restarts use (the serving-certificate approval uses it too). */
  close(): void;
}

/** Builds the restarts' context for this node (see the module documentation). */
export async function restartRuntime(
  flags: Pick<FlagValues, "kubeconfig" | "rootfs">,
  cfg: ResolvedConfig,
  out: Printer,
): Promise<RestartRuntime> {
  const rootfs = flags.rootfs ?? "/";
  const { path, refsRoot } = kubeconfigLocation(flags.kubeconfig, rootfs, KubeconfigFile.admin);
  const connection = await connect({ path, refsRoot }, { timeoutMs: 30_000 });
  try {
    const files = await nodeFiles(rootfs);
    const node = await nodeHost(rootfs, {});
    const [
      { instanceConfigCRISocket, nodeNameFromKubeletConf },
      { stackedEtcdClient },
      { etcdTiming },
      { restartKubeletAndWait },
    ] = await Promise.all([
      import("../core/upgrade/cluster_config.ts"),
      import("../core/etcd/endpoints.ts"),
      import("../core/etcd/timing.ts"),
      import("../core/kubelet/service.ts"),
    ]);
    const nodeName = await nodeNameFromKubeletConf(
      files,
      `${KUBERNETES_DIR}/${KubeconfigFile.kubelet}`,
      readHostFacts(rootfs).hostname,
    );
    const timing = etcdTiming({ clock: platform.clock, sleep: platform.sleep });
    const client = connection.client;
    const ctx: RestartContext = {
      files,
      node,
      kubernetesDir: KUBERNETES_DIR,
      manifestDir: MANIFESTS_DIR,
      nodeName,
      client,
      runtime: node.machine.containerRuntime(
        (await instanceConfigCRISocket(files)) || DEFAULT_CRI_SOCKET,
      ),
      health: node.health,
      etcd: cfg.cluster.etcd.external ? undefined : {
        timing,
        connect: () =>
          stackedEtcdClient({
            client,
            files,
            certificatesDir: cfg.cluster.certificatesDir,
            etcdClient: (endpoints, tls) => node.etcdClient(endpoints, tls),
            timing,
            apiTimeoutMs: DefaultTimeouts.kubernetesAPICall,
            log: out.log,
          }),
      },
      timeoutMs: DefaultTimeouts.upgradeManifests,
      out,
      now: platform.clock.now(),
      lockNode: nodeRestartLock(rootfs),
    };
    return {
      ctx,
      restartKubelet: () =>
        restartKubeletAndWait({
          node,
          kubelet: cfg.kubelet,
          timing: client.timing,
          timeoutMs: DefaultTimeouts.kubeletHealthCheck,
        }),
      close: () => connection.close(),
    };
  } catch (e) {
    connection.close();
    throw e;
  }
}

/** What a renewal plan renewed, as the restarts take it. */
export function renewedFiles(plan: RenewalPlan): RenewedFiles[] {
  return plan.outcomes.flatMap((o) =>
    o.status === "renewed"
      ? [{ name: o.target.name, files: o.files, readers: o.target.readers }]
      : []
  );
}

function renewsKubeletConf(plan: RenewalPlan): boolean {
  return plan.outcomes.some((o) =>
    o.status === "renewed" && o.target.name === KUBELET_CONF_TARGET.name
  );
}

/** What {@link renewAndRestartAll} would do, as `[dryrun]` lines. */
export async function restartPreview(plan: RenewalPlan): Promise<string[]> {
  const { planRestarts, restartPlanLines } = await import("../core/controlplane/restart.ts");
  return [
    ...restartPlanLines(planRestarts(renewedFiles(plan)), KUBERNETES_DIR),
    ...(renewsKubeletConf(plan)
      ? ["[dryrun] Would then restart the kubelet and wait for it to be healthy"]
      : []),
  ];
}

/**
 * Writes a renewal's files restarting what reads them: the static Pods one at a time, then the
 * kubelet when kubelet.conf was renewed. After a run that was interrupted (its backup folder
 * left: `core/controlplane/restart.ts`), every component and the kubelet restart, whatever is
 * renewed now: that run may have written files whose readers it never restarted, and which are
 * not due again. Without a renewal (`undefined`: nothing due) only that; returns whether it
 * restarted anything.
 */
export async function renewAndRestartAll(
  runtime: RestartRuntime,
  plan: RenewalPlan | undefined,
): Promise<boolean> {
  const { interruptedRuns, planRestarts, renewAndRestart } = await import(
    "../core/controlplane/restart.ts"
  );
  const { ctx } = runtime;
  // Nothing due and no folder left: nothing to do (a folder made after this look is a live
  // run's). Whether a folder is an interrupted run's is decided under the node's lock.
  if (!plan && (await interruptedRuns(ctx)).length === 0) return false;
  const resumed = await renewAndRestart(ctx, {
    ...planRestarts(plan ? renewedFiles(plan) : []),
    resumeInterrupted: true,
  });
  if (!plan && resumed.length === 0) return false;
  if ((plan && renewsKubeletConf(plan)) || resumed.length > 0) {
    ctx.out.info(
      `[restart] Restarting the kubelet (${
        plan && renewsKubeletConf(plan)
          ? "its kubelet.conf was renewed"
          : "after an interrupted run"
      })`,
    );
    await runtime.restartKubelet();
  }
  return true;
}
