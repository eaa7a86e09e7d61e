/**
 * `kubeadm join phase kubelet-start` and `kubelet-wait-bootstrap` (upstream
 * `cmd/phases/join/kubelet.go`, v1.37).
 *
 * kubelet-start writes `bootstrap-kubelet.conf` (for control-plane joins pointing at this
 * node's own API server) and `pki/ca.crt` (only when absent), refuses to go on when a Ready
 * Node of the same name exists, stops the kubelet, writes `instance-config.yaml` (the CRI
 * socket), `config.yaml` (the cluster's KubeletConfiguration for this node, patched) and
 * `kubeadm-flags.env` (with `--register-with-taints` for workers), and starts the kubelet; it
 * never waits. `kubelet-wait-bootstrap` waits for the kubelet's healthz, then for
 * `kubelet.conf` and the credentials it refers to, and removes `bootstrap-kubelet.conf`
 * whatever happens. (Unlike upstream, a failed kubelet-start removes it too, so the bootstrap
 * credential does not outlive a failed join.)
 *
 * @module
 */
import type { Node } from "kubernetes-types/core/v1.d.ts";
import { parseDuration } from "../../text/duration.ts";
import {
  KUBELET_HEALTHZ_OFF,
  kubeletHealthzURL,
  kubeletHelpLines,
  waitForKubelet,
} from "../../controlplane/health.ts";
import type { KubeletConfiguration, ResolvedConfig } from "../../config/types.ts";
import { KubeadmError } from "../../errors.ts";
import { utf8 } from "../../text/utf8.ts";
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
  withServer,
} from "../../kubeconfig/kubeconfig.ts";
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
import { KubeconfigFile, KUBERNETES_DIR } from "../../constants.ts";
import { API_SERVER_ENDPOINT, DISCOVERY_INPUTS, type JoinData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** Upstream's help text when the kubelet does not come up. */
function printKubeletHelp(data: JoinData): void {
  for (
    const line of [
      "",
      "Unfortunately, an error has occurred, likely caused by:",
      ...kubeletHelpLines(),
    ]
  ) data.out.info(line);
}

/**
 * Interval of the wait for kubelet.conf: a local file read, so 100ms (upstream's
 * `TLSBootstrapRetryInterval`, 1s, adds half a second on average to every join).
 */
const TLS_BOOTSTRAP_RETRY_INTERVAL_MS = 100;

/** The node name the kubelet registers with. */
function joinNodeName(data: JoinData): string {
  return kubeletNodeName(data.cfg.nodeRegistration, data.host.hostname);
}

/** Fails with upstream's message when a Ready Node of this name exists. */
async function checkNoReadyNode(data: JoinData, nodeName: string): Promise<void> {
  const client = await data.bootstrapClient();
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
export async function runKubeletStart(data: JoinData): Promise<void> {
  const initCfg = await data.initCfg();
  const bootstrapPath = `${data.kubeconfigDir}/${KubeconfigFile.bootstrapKubelet}`;
  let ok = false;
  try {
    let tls: Kubeconfig = structuredClone(await data.tlsBootstrapCfg());
    if (data.cfg.controlPlane) {
      let server: string;
      try {
        server = localAPIEndpointURL(data.cfg.controlPlane.localAPIEndpoint);
      } catch (e) {
        throw wrap("could not get LocalAPIEndpoint", e);
      }
      tls = withServer(tls, server);
    }
    const log = (m: string) => data.out.log?.(1, "kubelet_start.ts", `[kubelet-start] ${m}`);
    log(`writing bootstrap kubelet config file at ${bootstrapPath}`);
    await data.files.write({
      path: bootstrapPath,
      data: serializeKubeconfig(tls, { nullEmptyLists: true }),
      mode: 0o600,
      kind: "kubeconfig",
    }).catch((e) => {
      throw wrap("couldn't save bootstrap-kubelet.conf to disk", e);
    });

    const caPath = data.cfg.caCertPath;
    if ((await data.files.read(caPath)) === undefined) {
      let caPem: string;
      try {
        caPem = certificateAuthorityPem(clusterFromKubeconfig(tls).cluster);
      } catch (e) {
        throw wrap("couldn't save the CA certificate to disk", e);
      }
      log(`writing CA certificate at ${caPath}`);
      await data.files.write({ path: caPath, data: caPem, mode: 0o644, kind: "certificate" });
    }

    const nodeName = joinNodeName(data);
    log(
      `Checking for an existing Node in the cluster with name ${
        JSON.stringify(nodeName)
      } and status "Ready"`,
    );
    await checkNoReadyNode(data, nodeName);

    if (data.dryRun) data.out.info("[kubelet-start] Would stop the kubelet");
    else {
      log("Stopping the kubelet");
      await kubeletControl(data.node, data.out).stop();
    }

    const instanceConfig = await writeKubeletInstanceConfig(
      data.files,
      data.out,
      data.cfg.nodeRegistration.criSocket,
    );
    await writeKubeletConfigFile(data.files, data.out, initCfg.kubelet, {
      patchesDir: data.patchesDir,
      instanceConfig,
      systemdResolvedActive: data.host.systemdResolvedActive,
    });
    await writeKubeletEnvFile(data.files, data.out, {
      nodeRegistration: data.cfg.nodeRegistration,
      hostname: data.host.hostname,
      registerTaintsUsingFlags: data.cfg.controlPlane === undefined,
    });

    if (data.dryRun) {
      data.out.info("[kubelet-start] Would start the kubelet");
      ok = true;
      return;
    }
    data.out.info("[kubelet-start] Starting the kubelet");
    await kubeletControl(data.node, data.out).restart();
    ok = true;
  } finally {
    // kubelet-wait-bootstrap removes the bootstrap credential; a failed start removes it now.
    if (!data.dryRun && !ok) await data.node.removeFile(bootstrapPath);
  }
}

/** The kubelet's health URL after `--patches` (for the wait); none when its port is 0. */
async function kubeletHealthz(data: JoinData, cfg: ResolvedConfig): Promise<string | undefined> {
  let kubelet: KubeletConfiguration = cfg.kubelet;
  if (data.patchesDir) {
    const manager = await patchManagerFor(data.files, data.patchesDir, () => {});
    kubelet = manager.apply(
      KUBELET_CONFIGURATION_TARGET,
      kubelet,
      kubeletConfigurationSchema,
    ) as KubeletConfiguration;
  }
  return kubeletHealthzURL(kubelet);
}

/** Whether a usable kubelet.conf exists: parseable, with its credentials readable. */
async function kubeletConfReady(data: JoinData): Promise<boolean> {
  const path = `${data.kubeconfigDir}/${KubeconfigFile.kubelet}`;
  const raw = await data.files.read(path);
  if (raw === undefined) return false;
  try {
    const config = parseKubeconfig(utf8(raw), path);
    const params = await connectionFromKubeconfig(config, { files: data.files });
    return Boolean(params.token || (params.certPem && params.keyPem));
  } catch {
    return false;
  }
}

/** Waits for the kubelet and its TLS bootstrap; removes bootstrap-kubelet.conf afterwards. */
async function waitForBootstrap(data: JoinData, cfg: ResolvedConfig): Promise<void> {
  const url = await kubeletHealthz(data, cfg);
  if (url === undefined) {
    data.out.info(KUBELET_HEALTHZ_OFF);
  } else {
    const ctx = { health: data.node.health, clock: data.clock, sleep: data.sleep, out: data.out };
    const outcome = await waitForKubelet(
      ctx,
      url,
      parseDuration(data.cfg.timeouts.kubeletHealthCheck),
    );
    if (outcome.pending.length > 0) {
      printKubeletHelp(data);
      throw wrap(
        "failed while waiting for the kubelet to start",
        new KubeadmError([...outcome.errors.values()].join("; ")),
      );
    }
  }
  data.out.info("[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap");
  try {
    await poll<true>(
      async () => (await kubeletConfReady(data)) ? { done: true, value: true } : { done: false },
      {
        clock: data.clock,
        sleep: data.sleep,
        intervalMs: TLS_BOOTSTRAP_RETRY_INTERVAL_MS,
        timeoutMs: parseDuration(data.cfg.timeouts.tlsBootstrap),
        timeoutError: () =>
          new KubeadmError(
            `timed out after ${data.cfg.timeouts.tlsBootstrap} waiting for ${KUBERNETES_DIR}/${KubeconfigFile.kubelet} and its client certificate`,
          ),
      },
    );
  } catch (e) {
    printKubeletHelp(data);
    throw wrap("failed while waiting for TLS bootstrap", e);
  }
}

/**
 * Runs `kubelet-wait-bootstrap`. In dry-run it only says what it would do, before reading
 * any configuration (as upstream).
 */
export async function runKubeletWaitBootstrap(data: JoinData): Promise<void> {
  if (data.dryRun) {
    data.out.info("[kubelet-wait] Would wait for the kubelet to be bootstrapped");
    return;
  }
  const cfg = await data.initCfg();
  const bootstrapPath = `${data.kubeconfigDir}/${KubeconfigFile.bootstrapKubelet}`;
  try {
    await waitForBootstrap(data, cfg);
  } finally {
    await data.node.removeFile(bootstrapPath);
  }
}

/** `join phase kubelet-start`. */
export const kubeletStartPhase: Phase<JoinData> = {
  name: "kubelet-start",
  short: "Write kubelet settings, certificates and (re)start the kubelet",
  long:
    "Write a file with KubeletConfiguration and an environment file with node specific kubelet settings, and then (re)start kubelet.",
  argsUsage: API_SERVER_ENDPOINT,
  run: runKubeletStart,
  inputs: [
    "config",
    "criSocket",
    "nodeName",
    ...DISCOVERY_INPUTS.filter((input) => input !== "config"),
    "patchesDir",
    "dryRun",
  ],
};

/** `join phase kubelet-wait-bootstrap`. */
export const kubeletWaitBootstrapPhase: Phase<JoinData> = {
  name: "kubelet-wait-bootstrap",
  short: "Wait for the kubelet to bootstrap itself",
  run: runKubeletWaitBootstrap,
  inputs: ["config", "criSocket", "dryRun"],
};
