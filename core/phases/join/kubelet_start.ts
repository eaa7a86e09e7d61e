/**
 * `kubeadm join phase kubelet-start` and the hidden `kubelet-wait-bootstrap` (upstream
 * `cmd/phases/join/kubelet.go`).
 *
 * kubelet-start writes `bootstrap-kubelet.conf` (for control-plane joins with
 * `ControlPlaneKubeletLocalMode`, pointing at this node's own API server) and `pki/ca.crt`
 * (only when absent), refuses to go on when a Ready Node of the same name exists, stops the
 * kubelet, writes `instance-config.yaml` (`NodeLocalCRISocket`), `config.yaml` (the cluster's
 * KubeletConfiguration, patched) and `kubeadm-flags.env` (with `--register-with-taints` for
 * workers), and starts the kubelet. Without `ControlPlaneKubeletLocalMode` it then waits for the
 * bootstrap itself; with it (the 1.34 default) `kubelet-wait-bootstrap` does: wait for the
 * kubelet's healthz, then for `kubelet.conf` and the credentials it refers to, and remove
 * `bootstrap-kubelet.conf` whatever happens.
 *
 * @module
 */
import type { Node } from "kubernetes-types/core/v1.d.ts";
import { Feature, featureEnabled } from "../../config/features.ts";
import { parseDuration } from "../../text/duration.ts";
import {
  KUBELET_HEALTHZ_OFF,
  kubeletHealthzURL,
  kubeletHelpLines,
  waitForKubelet,
} from "../../controlplane/health.ts";
import { SYSTEMD_RESOLV_CONF } from "../../config/kubelet_config.ts";
import type { KubeletConfiguration, ResolvedConfig } from "../../config/types.ts";
import { CRI_SOCKET_ANNOTATION } from "../../cluster/upload_config.ts";
import { patchNode } from "../../cluster/node_patch.ts";
import { KubeadmError } from "../../errors.ts";
import { utf8 } from "../../host/ports.ts";
import { connectionFromKubeconfig } from "../../kube/kubeconfig_connection.ts";
import { poll } from "../../kube/retry.ts";
import { isNotFound } from "../../kube/status.ts";
import { KUBELET_CONFIGURATION_TARGET } from "../../kubelet/config_file.ts";
import { kubeletNodeName } from "../../kubelet/flags_env.ts";
import {
  certificateAuthorityPem,
  clusterFromKubeconfig,
  type Kubeconfig,
  parseKubeconfig,
  serializeKubeconfig,
} from "../../kubeconfig/kubeconfig.ts";
import { pauseImage } from "../../manifests/images.ts";
import { kubeletControl } from "../../kubelet/service.ts";
import { localAPIEndpointURL } from "../../net/endpoint.ts";
import {
  wrapKubeletError as wrap,
  writeKubeletConfigFile,
  writeKubeletEnvFile,
  writeKubeletInstanceConfig,
} from "../../kubelet/files.ts";
import { patchManagerFor } from "../../patches/patch_manager.ts";
import { kubeletConfigurationSchema } from "../../patches/patch_schemas.ts";
import { BOOTSTRAP_KUBELET_CONF, KUBELET_CONF } from "../../tlsbootstrap/kubelet_conf.ts";
import type { JoinData } from "./data.ts";

/** Upstream's help text when the kubelet does not come up. */
function printKubeletHelp(d: JoinData): void {
  for (
    const line of [
      "",
      "Unfortunately, an error has occurred, likely caused by:",
      ...kubeletHelpLines(),
    ]
  ) d.out.info(line);
}

/** Interval of the wait for kubelet.conf (upstream `TLSBootstrapRetryInterval`). */
export const TLS_BOOTSTRAP_RETRY_INTERVAL_MS = 1_000;

/** Whether the cluster runs with `ControlPlaneKubeletLocalMode` (on by default in 1.34). */
export function kubeletLocalMode(cfg: ResolvedConfig): boolean {
  return featureEnabled(cfg.cluster.featureGates, Feature.ControlPlaneKubeletLocalMode);
}

/** The node name the kubelet registers with. */
export function joinNodeName(d: JoinData): string {
  return kubeletNodeName(d.cfg.nodeRegistration, d.host.hostname);
}

/** The cluster's KubeletConfiguration with upstream's `Mutate` (systemd-resolved). */
function mutatedKubeletConfig(d: JoinData, cfg: ResolvedConfig): KubeletConfiguration {
  const kubelet = structuredClone(cfg.kubelet);
  if (d.host.systemdResolvedActive) {
    if (kubelet.resolvConf === undefined || kubelet.resolvConf === null) {
      kubelet.resolvConf = SYSTEMD_RESOLV_CONF;
    } else if (kubelet.resolvConf !== SYSTEMD_RESOLV_CONF) {
      d.out.warn(
        `[kubelet-start] WARNING: The KubeletConfiguration field "resolvConf" is ${
          JSON.stringify(kubelet.resolvConf)
        }; ${JSON.stringify(SYSTEMD_RESOLV_CONF)} is expected with systemd-resolved`,
      );
    }
  }
  return kubelet;
}

/** Fails with upstream's message when a Ready Node of this name exists. */
async function checkNoReadyNode(d: JoinData, nodeName: string): Promise<void> {
  const client = await d.bootstrapClient();
  let node: Node | undefined;
  try {
    node = await client.get<Node>({ kind: "Node", name: nodeName });
  } catch (e) {
    if (isNotFound(e)) return;
    throw wrap(`cannot get Node ${JSON.stringify(nodeName)}`, e);
  }
  const ready = node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
  if (ready) {
    throw new KubeadmError(
      `a Node with name ${
        JSON.stringify(nodeName)
      } and status "Ready" already exists in the cluster. You must delete the existing Node or change the name of this new joining Node`,
      { hint: `delete it with "kubectl delete node ${nodeName}" or join with another --node-name` },
    );
  }
}

/** Runs `join phase kubelet-start`. */
export async function runKubeletStart(d: JoinData): Promise<void> {
  const initCfg = await d.initCfg();
  const localMode = kubeletLocalMode(initCfg);
  const bootstrapPath = `${d.kubeconfigDir}/${BOOTSTRAP_KUBELET_CONF.split("/").pop()}`;
  let ok = false;
  try {
    const tls: Kubeconfig = structuredClone(await d.tlsBootstrapCfg());
    if (localMode && d.cfg.controlPlane) {
      const server = localAPIEndpointURL(d.cfg.controlPlane.localAPIEndpoint);
      for (const c of tls.clusters) c.cluster = { ...c.cluster, server };
    }
    await d.files.write({
      path: bootstrapPath,
      data: serializeKubeconfig(tls, { nullEmptyLists: true }),
      mode: 0o600,
      kind: "kubeconfig",
    }).catch((e) => {
      throw wrap("couldn't save bootstrap-kubelet.conf to disk", e);
    });

    const caPath = d.cfg.caCertPath;
    if ((await d.files.read(caPath)) === undefined) {
      let caPem: string;
      try {
        caPem = certificateAuthorityPem(clusterFromKubeconfig(tls).cluster);
      } catch (e) {
        throw wrap("couldn't save the CA certificate to disk", e);
      }
      await d.files.write({ path: caPath, data: caPem, mode: 0o644, kind: "certificate" });
    }

    const nodeName = joinNodeName(d);
    await checkNoReadyNode(d, nodeName);

    if (d.dryRun) d.out.info("[kubelet-start] Would stop the kubelet");
    else await kubeletControl(d.node, d.out).stop();

    const nodeLocalCRISocket = featureEnabled(
      initCfg.cluster.featureGates,
      Feature.NodeLocalCRISocket,
    );
    const instanceConfig = nodeLocalCRISocket
      ? await writeKubeletInstanceConfig(d.files, d.out, d.cfg.nodeRegistration.criSocket)
      : undefined;
    await writeKubeletConfigFile(d.files, d.out, mutatedKubeletConfig(d, initCfg), {
      patchesDir: d.patchesDir,
      instanceConfig,
    });
    await writeKubeletEnvFile(d.files, d.out, {
      nodeRegistration: d.cfg.nodeRegistration,
      pauseImage: pauseImage(initCfg.cluster),
      hostname: d.host.hostname,
      registerTaintsUsingFlags: d.cfg.controlPlane === undefined,
      nodeLocalCRISocket,
    });

    if (d.dryRun) {
      d.out.info("[kubelet-start] Would start the kubelet");
      ok = true;
      return;
    }
    d.out.info("[kubelet-start] Starting the kubelet");
    await kubeletControl(d.node, d.out).restart();
    if (!localMode) await waitForBootstrap(d, initCfg);
    ok = true;
  } finally {
    // Without the local mode the bootstrap credential leaves the disk now, success or not;
    // with it, kubelet-wait-bootstrap removes it.
    if (!d.dryRun && (!localMode || !ok)) await d.node.removeFile(bootstrapPath);
  }
}

/** The kubelet's health URL after `--patches` (for the wait); none when its port is 0. */
async function kubeletHealthz(d: JoinData, cfg: ResolvedConfig): Promise<string | undefined> {
  let kubelet: KubeletConfiguration = cfg.kubelet;
  if (d.patchesDir) {
    const manager = await patchManagerFor(d.files, d.patchesDir, () => {});
    kubelet = manager.apply(
      KUBELET_CONFIGURATION_TARGET,
      kubelet,
      kubeletConfigurationSchema,
    ) as KubeletConfiguration;
  }
  return kubeletHealthzURL(kubelet);
}

/** Whether a usable kubelet.conf exists: parseable, with its credentials readable. */
async function kubeletConfReady(d: JoinData): Promise<boolean> {
  const path = `${d.kubeconfigDir}/${KUBELET_CONF.split("/").pop()}`;
  const raw = await d.files.read(path);
  if (raw === undefined) return false;
  try {
    const config = parseKubeconfig(utf8(raw), path);
    const params = await connectionFromKubeconfig(config, { files: d.files });
    return Boolean(params.token || (params.certPem && params.keyPem));
  } catch {
    return false;
  }
}

/** Waits for the kubelet and its TLS bootstrap; removes bootstrap-kubelet.conf afterwards. */
async function waitForBootstrap(d: JoinData, cfg: ResolvedConfig): Promise<void> {
  const url = await kubeletHealthz(d, cfg);
  if (url === undefined) {
    d.out.info(KUBELET_HEALTHZ_OFF);
  } else {
    const ctx = { health: d.node.health, clock: d.clock, sleep: d.sleep, out: d.out };
    const outcome = await waitForKubelet(
      ctx,
      url,
      parseDuration(d.cfg.timeouts.kubeletHealthCheck),
    );
    if (outcome.pending.length > 0) {
      printKubeletHelp(d);
      throw wrap(
        "failed while waiting for the kubelet to start",
        new KubeadmError([...outcome.errors.values()].join("; ")),
      );
    }
  }
  d.out.info("[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap");
  try {
    await poll<true>(
      async () => (await kubeletConfReady(d)) ? { done: true, value: true } : { done: false },
      {
        clock: d.clock,
        sleep: d.sleep,
        intervalMs: TLS_BOOTSTRAP_RETRY_INTERVAL_MS,
        timeoutMs: parseDuration(d.cfg.timeouts.tlsBootstrap),
        timeoutError: () =>
          new KubeadmError(
            `timed out after ${d.cfg.timeouts.tlsBootstrap} waiting for ${KUBELET_CONF} and its client certificate`,
          ),
      },
    );
  } catch (e) {
    printKubeletHelp(d);
    throw wrap("failed while waiting for TLS bootstrap", e);
  }
  if (!featureEnabled(cfg.cluster.featureGates, Feature.NodeLocalCRISocket)) {
    const path = `${d.kubeconfigDir}/${KUBELET_CONF.split("/").pop()}`;
    const raw = await d.files.read(path);
    const client = await d.clientFor(parseKubeconfig(utf8(raw!), path));
    try {
      await patchNode(client, d.cfg.nodeRegistration.name, (n) => {
        n.metadata = {
          ...n.metadata,
          annotations: {
            ...n.metadata?.annotations,
            [CRI_SOCKET_ANNOTATION]: d.cfg.nodeRegistration.criSocket,
          },
        };
      });
    } catch (e) {
      throw wrap("error writing CRISocket for this node", e);
    }
  }
}

/** Runs the hidden `kubelet-wait-bootstrap` phase (only with `ControlPlaneKubeletLocalMode`). */
export async function runKubeletWaitBootstrap(d: JoinData): Promise<void> {
  const cfg = await d.initCfg();
  if (!kubeletLocalMode(cfg)) return;
  if (d.dryRun) {
    d.out.info("[kubelet-wait] Would wait for the kubelet to be bootstrapped");
    return;
  }
  const bootstrapPath = `${d.kubeconfigDir}/${BOOTSTRAP_KUBELET_CONF.split("/").pop()}`;
  try {
    await waitForBootstrap(d, cfg);
  } finally {
    await d.node.removeFile(bootstrapPath);
  }
}
