/**
 * `planControlPlane`: everything `kubeadm init` would write on the first control-plane node
 * and create in its cluster, as data.
 *
 * It runs the init workflow itself (`core/phases/init/workflow.ts`) in dry-run mode: the
 * files land on a recording file system (`adapters/offline/files.ts`), the API calls on an
 * offline cluster (`adapters/offline/cluster.ts`); only preflight (which inspects a machine) is
 * skipped. The result is what `kubeadm init --dry-run` plans, plus the join commands.
 *
 * @module
 */
import { DefaultTimeouts, KUBERNETES_DIR, MANIFESTS_DIR } from "../core/constants.ts";
import { resolveInitConfig } from "../core/config/resolve.ts";
import { marshalInitConfiguration } from "../core/config/print.ts";
import type { ResolvedConfig } from "../core/config/types.ts";
import type { DocumentInfo } from "../core/config/parse.ts";
import type { KubeObject } from "../core/kube/client.ts";
import { keyPoolFor } from "../core/pki/key_pool.ts";
import { certificatePin } from "../core/pki/pin.ts";
import { PkiDirectory } from "../core/certs/pki_dir.ts";
import { flattenJoinCommand, joinCommandFromKubeconfig } from "../core/cluster/join_command.ts";
import { createClusterAccess } from "../core/phases/init/cluster_access.ts";
import type { InitData } from "../core/phases/init/data.ts";
import { initWorkflowWith } from "../core/phases/init/workflow.ts";
import { preflightPhaseWith } from "../core/phases/init/preflight.ts";
import { resolveSkipPhases, runWorkflow } from "../core/workflow/runner.ts";
import { parseKubeYaml, toKubeYaml } from "../core/yaml/kube_yaml.ts";
import { KubeadmError } from "../core/errors.ts";
import { pathCheckName } from "../core/preflight/check.ts";
import {
  filesReader,
  type PlanFile,
  planFiles,
  planPorts,
  type PlanRunOptions,
  provideKeys,
} from "./node_plan.ts";
import { RecordingFileSystem } from "../adapters/offline/files.ts";
import { offlineCluster, writtenObjects } from "../adapters/offline/cluster.ts";
import { planPreflight } from "../adapters/offline/node.ts";

/** Input of {@link planControlPlane}. */
export interface ControlPlanePlanOptions extends PlanRunOptions {
  /**
   * kubeadm configuration, as a `kubeadm init --config` file holds it (YAML documents:
   * InitConfiguration, ClusterConfiguration, KubeletConfiguration, KubeProxyConfiguration).
   * Default: kubeadm's defaults.
   */
  config?: string;
  /**
   * `--upload-certs`: put the shared certificates and keys, encrypted with the certificate key,
   * in the `kubeadm-certs` Secret so that other control-plane nodes can join with it.
   */
  uploadCerts?: boolean;
}

/** How a node is brought up from its plan (what `toCloudInit` runs after writing the files). */
export interface BringUp {
  /** Files the commands need besides the plan's (the kubeadm configuration), written first. */
  files: PlanFile[];
  /** Commands, each an argument vector, run in order. */
  commands: string[][];
}

/** Everything `kubeadm init` writes on the node and creates in the cluster. */
export interface ControlPlanePlan {
  /** Which plan this is. */
  kind: "control-plane";
  /** The node's files: certificates, keys, kubeconfigs, static Pod manifests, kubelet files. */
  files: PlanFile[];
  /** The objects init creates in the cluster (ConfigMaps, Secrets, RBAC, addons), in order. */
  objects: KubeObject[];
  /** `kubeadm join …` for workers (the form `kubeadm token create --print-join-command` prints). */
  joinCommand: string;
  /** `kubeadm join … --control-plane …` when `controlPlaneEndpoint` is set. */
  controlPlaneJoinCommand?: string;
  /** `sha256:<hex>` of the cluster CA's public key (`--discovery-token-ca-cert-hash`). */
  caCertHash: string;
  /** The first bootstrap token (`<id>.<secret>`): secret. */
  token: string;
  /** `host:port` of the API server the join commands use. */
  apiServerEndpoint: string;
  /** The key of the `kubeadm-certs` Secret when certificates are uploaded: secret. */
  certificateKey?: string;
  /** The Kubernetes version the plan is for. */
  kubernetesVersion: string;
  /** How to bring the node up from the files. */
  bringUp: BringUp;
  /** kubeadm's progress lines for this run. */
  log: string[];
}

/** Where a control-plane bring-up writes kubeadm's configuration. */
export const INIT_CONFIG_PATH = "/run/kubeadm/kubeadm.yaml";

const COMPONENT_KINDS = new Set(["KubeletConfiguration", "KubeProxyConfiguration"]);

/**
 * The configuration file `kubeadm init` on the node must read to reuse the plan: the resolved
 * InitConfiguration (with the plan's tokens and node name) and ClusterConfiguration, then the
 * component configurations given in the input (`documents`: its documents), unchanged.
 */
function initConfigFile(
  cfg: ResolvedConfig,
  input: string | undefined,
  documents: readonly DocumentInfo[],
): string {
  let out = marshalInitConfiguration(cfg.init, cfg.cluster);
  // The input is parsed again only for the component documents it holds (most have none).
  const components = documents.some((d) => COMPONENT_KINDS.has(d.kind));
  for (const doc of input && components ? parseKubeYaml(input) : []) {
    const kind = (doc.value as { kind?: string } | null)?.kind;
    if (kind && COMPONENT_KINDS.has(kind)) out += `---\n${toKubeYaml(doc.value)}`;
  }
  return out;
}

/**
 * The `FileAvailable-*` preflight checks the plan's own files would fail on the node (kubeadm
 * checks that these files do not exist yet): one per planned file that `checked` selects.
 */
export function preflightIgnoresFor(
  files: readonly PlanFile[],
  checked: (path: string) => boolean,
): string[] {
  return files.filter((f) => checked(f.path)).map((f) => pathCheckName("FileAvailable", f.path));
}

/** Whether a path is a static Pod manifest (init and a control-plane join check them). */
export function isManifest(path: string): boolean {
  return path.startsWith(`${MANIFESTS_DIR}/`);
}

/**
 * Plans a first control-plane node: runs kubeadm's init workflow (every phase but preflight)
 * offline and returns what it would write and create. No I/O.
 */
export async function planControlPlane(o: ControlPlanePlanOptions): Promise<ControlPlanePlan> {
  const ports = planPorts(o);
  const { config, warnings, documents } = resolveInitConfig({
    text: o.config,
    source: "config",
    host: {
      hostname: o.host.hostname,
      defaultAdvertiseAddress: o.host.advertiseAddress ?? "",
    },
    random: ports.random,
    inputs: { uploadCerts: o.uploadCerts },
  });
  for (const w of warnings) ports.out.warn(w);
  const files = new RecordingFileSystem(filesReader(o.existingFiles));
  const cluster = offlineCluster();
  const data: InitData = {
    cfg: config,
    files,
    out: ports.out,
    clock: ports.clock,
    random: ports.random,
    crypto: ports.crypto,
    startTime: ports.clock.now(),
    dryRun: true,
    kubeconfigDir: KUBERNETES_DIR,
    manifestDir: MANIFESTS_DIR,
    patchesDir: config.init.patches?.directory,
    host: {
      hostname: o.host.hostname.toLowerCase(),
      existingDirs: new Set(o.host.existingDirs ?? []),
      proxyEnv: o.host.proxyEnv ?? {},
      systemdResolvedActive: o.host.systemdResolved ?? false,
    },
    sleep: ports.sleep,
    cluster: createClusterAccess({
      files,
      kubeconfigDir: KUBERNETES_DIR,
      transportFor: () => cluster.transport,
      bootstrapClusterAdmins: false,
      clock: ports.clock,
      sleep: ports.sleep,
      apiCallTimeoutMs: DefaultTimeouts.kubernetesAPICall,
    }),
  };
  await provideKeys(keyPoolFor(data), o.keys, ports.crypto);
  const workflow = initWorkflowWith(preflightPhaseWith(planPreflight));
  await runWorkflow(workflow, data, {
    skip: resolveSkipPhases(workflow, ["preflight", ...config.init.skipPhases ?? []]),
  });

  const admin = await data.cluster!.kubeconfig();
  const token = config.init.bootstrapTokens[0]?.token;
  if (!token) {
    throw new KubeadmError("the plan needs a bootstrap token for its join commands", {
      field: "bootstrapTokens",
      hint: "leave bootstrapTokens out to have one generated, or give one",
    });
  }
  const certificateKey = config.uploadCerts ? config.init.certificateKey : undefined;
  const joinCommand = flattenJoinCommand(
    await joinCommandFromKubeconfig(admin, { token }, ports.crypto),
  ).trim();
  const controlPlaneJoinCommand = config.cluster.controlPlaneEndpoint
    ? flattenJoinCommand(
      await joinCommandFromKubeconfig(admin, {
        token,
        controlPlane: true,
        certificateKey: certificateKey ?? "",
      }, ports.crypto),
    ).trim()
    : undefined;
  const pki = PkiDirectory.of({ files, cfg: config, crypto: ports.crypto });
  if (!(await pki.hasCert("ca"))) throw new KubeadmError("the plan has no cluster CA certificate");
  const planned = planFiles(files.planned);
  return {
    kind: "control-plane",
    files: planned,
    objects: writtenObjects(cluster.actions),
    joinCommand,
    controlPlaneJoinCommand,
    caCertHash: await certificatePin(await pki.loadCert("ca"), ports.crypto),
    token,
    apiServerEndpoint: joinCommand.split(" ")[2],
    certificateKey,
    kubernetesVersion: config.cluster.kubernetesVersion,
    bringUp: {
      files: [{
        path: INIT_CONFIG_PATH,
        mode: 0o600,
        content: initConfigFile(config, o.config, documents),
      }],
      commands: [[
        "kubeadm",
        "init",
        "--config",
        INIT_CONFIG_PATH,
        ...(config.uploadCerts ? ["--upload-certs"] : []),
        `--ignore-preflight-errors=${preflightIgnoresFor(planned, isManifest).join(",")}`,
      ]],
    },
    log: ports.log,
  };
}
