/**
 * `planWorker` and `planControlPlaneJoin`: what `kubeadm join` would write on a new node, as
 * data.
 *
 * They run the join workflow itself (`core/phases/join/workflow.ts`) in dry-run mode against
 * an offline cluster that serves the objects the caller knows the cluster has: a control-plane
 * plan's objects, or `cluster-info`, `kubeadm-config` and `kubelet-config` fetched from a live
 * cluster. Discovery is the real one: the `cluster-info` JWS must verify for the token and the
 * CA must match a pin. A control-plane join also reads the `kubeadm-certs` Secret (certificates
 * uploaded with `--upload-certs`) and decrypts it with the certificate key.
 *
 * @module
 */
import {
  KubeconfigFile,
  KUBELET_RUN_DIR,
  KUBERNETES_DIR,
  MANIFESTS_DIR,
} from "../core/constants.ts";
import { resolveJoinConfig } from "../core/config/join.ts";
import { marshalJoinConfiguration } from "../core/config/print.ts";
import type { KubeObject } from "../core/kube/client.ts";
import { KubeadmError } from "../core/errors.ts";
import { createJoinData } from "../core/phases/join/data.ts";
import { joinWorkflow } from "../core/phases/join/workflow.ts";
import { keyPoolFor } from "../core/pki/key_pool.ts";
import { resolveSkipPhases, runWorkflow } from "../core/workflow/runner.ts";
import {
  filesReader,
  type PlanFile,
  planFiles,
  planPorts,
  type PlanRunOptions,
  provideKeys,
} from "./node_plan.ts";
import { RecordingFileSystem } from "../adapters/offline/files.ts";
import * as offline from "../adapters/offline/cluster.ts";
import { webHashing } from "./adapters.ts";
import type { Hashing } from "../core/ports/crypto.ts";
import { planNode, planPreflight } from "../adapters/offline/node.ts";
import {
  type BringUp,
  type ControlPlanePlan,
  isManifest,
  preflightIgnoresFor,
} from "./control_plane.ts";

/**
 * The cluster as the bootstrap signer leaves it: `cluster-info` signed for every bootstrap
 * token Secret among `objects` that allows signing (`crypto` computes the signatures; default
 * WebCrypto).
 */
export function withBootstrapSignatures(
  objects: readonly KubeObject[],
  crypto: Hashing = webHashing,
): Promise<KubeObject[]> {
  return offline.withBootstrapSignatures(objects, crypto);
}

/** Input of {@link planWorker} and {@link planControlPlaneJoin}. */
export interface JoinPlanOptions extends PlanRunOptions {
  /**
   * The cluster to join: a control-plane plan (its objects, endpoint, token, CA pin and
   * certificate key are the defaults below), or the objects its API server serves: the
   * `kube-public/cluster-info` ConfigMap (signed for the token, as a live cluster's is, or
   * with the bootstrap token Secrets beside it so the bootstrap signer's signatures are added),
   * `kube-system/kubeadm-config` and `kubelet-config`, and for a control-plane join
   * `kubeadm-certs`.
   */
  cluster: ControlPlanePlan | { objects: readonly KubeObject[] };
  /** A `kubeadm join --config` file (JoinConfiguration YAML); the options below override it. */
  config?: string;
  /** `host:port` of the API server (the join command's argument). */
  apiServerEndpoint?: string;
  /** The bootstrap token (`--token`): secret. */
  token?: string;
  /** `--discovery-token-ca-cert-hash` values. */
  caCertHashes?: string[];
  /** `--discovery-token-unsafe-skip-ca-verification`. */
  unsafeSkipCAVerification?: boolean;
  /** `--certificate-key` (control-plane join with uploaded certificates): secret. */
  certificateKey?: string;
}

/** What `kubeadm join` writes on the node. */
export interface JoinPlan {
  /** Which plan this is. */
  kind: "worker" | "control-plane-join";
  /** The node's files (bootstrap kubeconfig, CA, kubelet files; and for a control plane its PKI, kubeconfigs and manifests). */
  files: PlanFile[];
  /** How to bring the node up from the files. */
  bringUp: BringUp;
  /** kubeadm's progress lines for this run. */
  log: string[];
}

/** Where a join plan's bring-up writes kubeadm's configuration. */
export const JOIN_CONFIG_PATH = "/run/kubeadm/join.yaml";

function isPlan(c: JoinPlanOptions["cluster"]): c is ControlPlanePlan {
  return (c as ControlPlanePlan).kind === "control-plane";
}

async function planJoin(o: JoinPlanOptions, controlPlane: boolean): Promise<JoinPlan> {
  const ports = planPorts(o);
  const plan = isPlan(o.cluster) ? o.cluster : undefined;
  const token = o.token ?? plan?.token;
  const endpoint = o.apiServerEndpoint ?? plan?.apiServerEndpoint;
  const certificateKey = o.certificateKey ?? (controlPlane ? plan?.certificateKey : undefined);
  const caCertHashes = o.caCertHashes ?? (plan ? [plan.caCertHash] : undefined);
  const { config, warnings } = resolveJoinConfig({
    text: o.config,
    source: "config",
    inputs: {
      apiServerEndpoint: o.config && !o.apiServerEndpoint ? undefined : endpoint,
      token: o.config && !o.token ? undefined : token,
      caCertHashes: o.config && !o.caCertHashes ? undefined : caCertHashes,
      unsafeSkipCAVerification: o.unsafeSkipCAVerification,
      controlPlane: controlPlane || undefined,
      certificateKey,
      advertiseAddress: controlPlane ? o.host.advertiseAddress : undefined,
    },
    host: {
      hostname: o.host.hostname,
      defaultAdvertiseAddress: o.host.advertiseAddress ?? "",
    },
  });
  for (const w of warnings) ports.out.warn(w);
  if (controlPlane !== Boolean(config.controlPlane)) {
    throw new KubeadmError(
      controlPlane
        ? "a control-plane join plan needs a controlPlane section or none at all in its JoinConfiguration"
        : "the JoinConfiguration has a controlPlane section: plan it with planControlPlaneJoin",
      { field: "controlPlane" },
    );
  }
  const objects = await withBootstrapSignatures(
    isPlan(o.cluster) ? o.cluster.objects : o.cluster.objects,
    ports.crypto,
  );
  const cluster = offline.offlineCluster(objects);
  const files = new RecordingFileSystem(filesReader(o.existingFiles));
  const transportFor = () => cluster.transport;
  const data = createJoinData({
    cfg: config,
    files,
    out: ports.out,
    clock: ports.clock,
    sleep: ports.sleep,
    random: ports.random,
    crypto: ports.crypto,
    startTime: ports.clock.now(),
    dryRun: true,
    kubeconfigDir: KUBERNETES_DIR,
    manifestDir: MANIFESTS_DIR,
    kubeletDir: KUBELET_RUN_DIR,
    patchesDir: config.patches?.directory,
    host: {
      hostname: o.host.hostname.toLowerCase(),
      existingDirs: new Set(o.host.existingDirs ?? []),
      proxyEnv: o.host.proxyEnv ?? {},
      defaultAdvertiseAddress: o.host.advertiseAddress,
      systemdResolvedActive: o.host.systemdResolved ?? false,
    },
    node: planNode,
    ports: {
      transportFor,
      clientTransportFor: transportFor,
      hostFiles: filesReader(o.existingFiles),
      fetchUrl: () =>
        Promise.reject(
          new KubeadmError("a plan cannot fetch a discovery URL", {
            field: "discovery.file.kubeConfigPath",
            hint: "use token discovery (token and CA hashes) with the cluster's objects",
          }),
        ),
      preflight: planPreflight,
    },
  });
  await provideKeys(keyPoolFor(data), o.keys, ports.crypto);
  const workflow = joinWorkflow();
  await runWorkflow(workflow, data, {
    skip: resolveSkipPhases(workflow, ["preflight", ...config.skipPhases ?? []]),
  });
  const planned = planFiles(files.planned);
  // Both bring-ups run `kubeadm join` with the planned files in place (their `FileAvailable`
  // checks ignored): its discovery waits for the cluster, so a node booted with its control
  // plane starts its kubelet only once the bootstrap token works. A worker's kubelet started
  // before that bootstraps its certificate on client-go's back-off (2, 4, 8, 16 s, then every
  // 32 s): in fleets booted at once the last worker was Ready 21–36 s after its control plane.
  const bringUp: BringUp = {
    files: [{ path: JOIN_CONFIG_PATH, mode: 0o600, content: marshalJoinConfiguration(config) }],
    commands: [[
      "kubeadm",
      "join",
      "--config",
      JOIN_CONFIG_PATH,
      `--ignore-preflight-errors=${
        preflightIgnoresFor(
          planned,
          (p) =>
            isManifest(p) || p === `${KUBERNETES_DIR}/${KubeconfigFile.bootstrapKubelet}` ||
            p === config.caCertPath,
        ).join(",")
      }`,
    ]],
  };
  return {
    kind: controlPlane ? "control-plane-join" : "worker",
    files: planned,
    bringUp,
    log: ports.log,
  };
}

/**
 * Plans a worker node: runs kubeadm's join workflow (every phase but preflight) offline
 * against the cluster's objects. No I/O.
 *
 * Its bring-up runs `kubeadm join` with the planned files in place: its discovery retries
 * until the cluster answers, so the worker may boot with its control plane. On a machine
 * without kubeadm, `toCloudInit`'s `commands` can start the kubelet alone
 * (`systemctl restart kubelet`); it then bootstraps on its own back-off.
 */
export function planWorker(o: JoinPlanOptions): Promise<JoinPlan> {
  return planJoin(o, false);
}

/**
 * Plans another control-plane node (`kubeadm join --control-plane`): its certificates come
 * from the `kubeadm-certs` Secret (needs the certificate key) and its own leaves are signed by
 * those CAs. No I/O.
 *
 * Its bring-up runs `kubeadm join` with the planned files in place; finding the planned
 * `admin.conf`, join reads the cluster through it instead of discovering it (as upstream's
 * does), with a short retry only: start the node once the first control plane's API server
 * answers (workers may boot with it: their discovery waits).
 */
export function planControlPlaneJoin(o: JoinPlanOptions): Promise<JoinPlan> {
  return planJoin(o, true);
}
