/**
 * What an upgrade does on a node after (or besides) its control plane (upstream
 * `phases/upgrade/postupgrade.go`):
 *
 * - whether every control-plane instance runs the new kube-apiserver image yet (the addons are
 *   upgraded only then, on the last control-plane node);
 * - the kubelet's files: `config.yaml` backed up to
 *   `/etc/kubernetes/tmp/kubeadm-kubelet-config-<timestamp>/` and rewritten from the cluster's
 *   KubeletConfiguration (`kubeletconfiguration` patches, then `instance-config.yaml` merged in);
 *   a missing `instance-config.yaml` is recreated from the node's CRI socket, with a warning;
 * - `kubelet.conf` pointed at this node's own API server when it points at the control-plane
 *   endpoint;
 * - removing kubelet flags a release no longer wants from `kubeadm-flags.env` (none in v1.37).
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import {
  KUBELET_CONFIG_FILE,
  KUBELET_ENV_FILE,
  KUBELET_INSTANCE_CONFIG_FILE,
} from "../constants.ts";
import type { KubeletConfiguration } from "../config/types.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { FileSystem } from "../ports/files.ts";
import type { LogFn, Printer } from "../ports/printer.ts";
import { utf8 } from "../text/utf8.ts";
import type { KubeClient } from "../kube/client.ts";
import { writeKubeletConfigFile, writeKubeletInstanceConfig } from "../kubelet/files.ts";
import { kubeletFlagsEnvContent } from "../kubelet/flags_env.ts";
import { lookupContext, parseKubeconfig, serializeKubeconfig } from "../kubeconfig/kubeconfig.ts";
import {
  controlPlaneEndpointURL,
  localAPIEndpointURL,
  type LocalEndpoint,
} from "../net/endpoint.ts";
import { createTempDir, createTimestampDir, type UpgradeNodeOps } from "./static_pods.ts";
import type { RandomSource } from "../ports/random.ts";

/**
 * The control-plane nodes whose kube-apiserver image differs from this node's (upstream
 * `UnupgradedControlPlaneInstances`), sorted; empty when every one is upgraded. Only meaningful
 * after this node's control plane was upgraded.
 */
export async function unupgradedControlPlaneInstances(
  client: KubeClient,
  nodeName: string,
): Promise<string[]> {
  const selector = "component=kube-apiserver";
  let pods: Pod[];
  try {
    pods = await client.list<Pod>("Pod", { namespace: "kube-system", labelSelector: selector });
  } catch (e) {
    throw new KubeadmError(`failed to list kube-apiserver Pod from cluster: ${errorMessage(e)}`, {
      cause: e,
    });
  }
  if (pods.length === 0) {
    throw new KubeadmError(`cannot find kube-apiserver Pod by label selector: ${selector}`);
  }
  const images = new Map<string, string>();
  for (const pod of pods) {
    const container = pod.spec?.containers.find((c) => c.name === "kube-apiserver");
    if (!container) {
      throw new KubeadmError(
        `cannot find container by name "kube-apiserver" for Pod kube-system/${pod.metadata?.name}`,
      );
    }
    images.set(pod.spec?.nodeName ?? "", container.image ?? "");
  }
  const mine = images.get(nodeName);
  if (mine === undefined) {
    throw new KubeadmError(
      `cannot find kube-apiserver image for current control plane instance ${nodeName}`,
    );
  }
  return [...new Set([...images].filter(([, image]) => image !== mine).map(([n]) => n))].sort();
}

/** Input of {@link writeKubeletConfigFiles}. */
export interface KubeletConfigFilesInput {
  files: FileSystem;
  node: UpgradeNodeOps;
  out: Printer;
  /** The cluster's KubeletConfiguration. */
  kubelet: KubeletConfiguration;
  /** This node's CRI socket (for a missing `instance-config.yaml`). */
  criSocket: string;
  patchesDir?: string;
  /** `/etc/kubernetes` (the backup goes under its `tmp/`). */
  kubernetesDir: string;
  dryRun: boolean;
  now: Date;
}

/** The printable files a dry run would have written, in order. */
export interface DryRunFile {
  path: string;
  content: string;
}

/**
 * Prints a file an upgrade dry run would write, as upstream's `PrintDryRunFiles`: the
 * `[dryrun] Would write file` line (after `prefix`, which upstream's control-plane dry run
 * leaves unterminated), then the content unindented.
 */
export function printDryRunFile(out: Printer, f: DryRunFile, prefix = ""): void {
  out.info(`${prefix}[dryrun] Would write file ${JSON.stringify(f.path)} with content:`);
  out.info(f.content.replace(/\n$/, ""));
}

/**
 * Upstream's `WriteKubeletConfigFiles`: backs up `config.yaml`, recreates a missing
 * `instance-config.yaml`, and rewrites `config.yaml`. In dry-run nothing is copied, the files
 * go to `files` (a recording overlay) and each is printed once written, in upstream's order
 * (`instance-config.yaml`, then the patched `config.yaml`); they are also returned.
 */
export async function writeKubeletConfigFiles(
  input: KubeletConfigFilesInput,
): Promise<DryRunFile[]> {
  const { files, out } = input;
  const printed: DryRunFile[] = [];
  let dest: string;
  if (input.dryRun) {
    dest = `${input.kubernetesDir}/tmp/kubeadm-kubelet-config-<timestamp>/config.yaml`;
    out.info(`[dryrun] Would back up kubelet config file to ${dest}`);
  } else {
    const backupDir = await createTimestampDir(
      input.node,
      input.kubernetesDir,
      "kubeadm-kubelet-config",
      input.now,
    );
    dest = `${backupDir}/config.yaml`;
    out.info(`[upgrade] Backing up kubelet config file to ${dest}`);
    try {
      await input.node.copyTree(KUBELET_CONFIG_FILE, dest);
    } catch (e) {
      throw new KubeadmError(`error backing up the kubelet config file: ${errorMessage(e)}`, {
        cause: e,
      });
    }
  }
  let instance = await files.read(KUBELET_INSTANCE_CONFIG_FILE);
  if (instance === undefined) {
    out.warn(
      `The kubelet instance configuration file ${KUBELET_INSTANCE_CONFIG_FILE} was not found. Creating a new one with defaults. Please verify its contents!`,
    );
    try {
      await writeKubeletInstanceConfig(files, out, input.criSocket);
    } catch (e) {
      throw new KubeadmError(`error writing kubelet instance configuration: ${errorMessage(e)}`, {
        cause: e,
      });
    }
    instance = await files.read(KUBELET_INSTANCE_CONFIG_FILE);
  }
  const instanceConfig = instance === undefined ? undefined : utf8(instance);
  if (input.dryRun && instanceConfig !== undefined) {
    printed.push({ path: KUBELET_INSTANCE_CONFIG_FILE, content: instanceConfig });
    printDryRunFile(out, printed[printed.length - 1]);
  }
  try {
    await writeKubeletConfigFile(files, out, input.kubelet, {
      patchesDir: input.patchesDir,
      instanceConfig,
    });
  } catch (e) {
    throw new KubeadmError(`error writing kubelet configuration to file: ${errorMessage(e)}`, {
      cause: e,
      hint: e instanceof KubeadmError ? e.hint : undefined,
    });
  }
  if (input.dryRun) {
    const written = await files.read(KUBELET_CONFIG_FILE);
    if (written) {
      printed.push({ path: KUBELET_CONFIG_FILE, content: utf8(written) });
      printDryRunFile(out, printed[printed.length - 1]);
    }
  }
  return printed;
}

/** What {@link updateKubeletKubeconfigServer} decided. */
export type KubeconfigServerChange =
  | { changed: false }
  | { changed: true; from: string; to: string };

/**
 * Upstream's `UpdateKubeletKubeconfigServer`: when `kubelet.conf` points at the control-plane
 * endpoint and that is not this node's own API server, it is pointed at the local endpoint
 * (written unless `dryRun`). A missing `kubelet.conf` is left alone. What it decides is logged
 * as upstream's (`-v=2` when nothing changes, `-v=1` the change).
 */
export async function updateKubeletKubeconfigServer(input: {
  files: FileSystem;
  /** `/etc/kubernetes/kubelet.conf`. */
  path: string;
  controlPlaneEndpoint?: string;
  localAPIEndpoint: LocalEndpoint;
  dryRun: boolean;
  log?: LogFn;
}): Promise<KubeconfigServerChange> {
  const say = (level: number, m: string) => input.log?.(level, "post_upgrade.ts", m);
  const raw = await input.files.read(input.path);
  if (raw === undefined) {
    say(
      2,
      `Could not mutate the Server URL in ${input.path}: stat ${input.path}: no such file or directory`,
    );
    return { changed: false };
  }
  const config = parseKubeconfig(utf8(raw), input.path);
  const { context, cluster } = lookupContext(config);
  if (!context || !cluster) {
    throw new KubeadmError(
      `cannot find cluster for active context in kubeconfig ${JSON.stringify(input.path)}`,
    );
  }
  const local = localAPIEndpointURL(input.localAPIEndpoint);
  const cpe = controlPlaneEndpointURL(input.controlPlaneEndpoint, input.localAPIEndpoint);
  if (cluster.server !== cpe || cpe === local) {
    say(
      2,
      `Skipping update of the Server URL in ${input.path}, because it's already not equal to ${
        JSON.stringify(cpe)
      } or already matches the localAPIEndpoint`,
    );
    return { changed: false };
  }
  const from = cluster.server;
  if (!input.dryRun) {
    say(
      1,
      `Changing the Server URL from ${JSON.stringify(from)} to ${
        JSON.stringify(local)
      } in ${input.path}`,
    );
    cluster.server = local;
    await input.files.write({
      path: input.path,
      data: serializeKubeconfig(config),
      mode: 0o600,
      kind: "kubeconfig",
      keepExistingMode: true,
    });
  }
  return { changed: true, from, to: local };
}

/** Kubelet flags kubeadm v1.37 removes from `kubeadm-flags.env` during an upgrade: none. */
export const UNWANTED_KUBELET_FLAGS: readonly string[] = [];

/** Splits `KUBELET_KUBEADM_ARGS="--a=b --c"` into its flags. */
function kubeletEnvFlags(content: string): string[] {
  const m = /KUBELET_KUBEADM_ARGS="((?:[^"\\]|\\.)*)"/.exec(content);
  if (!m) return [];
  return m[1].replace(/\\(.)/g, "$1").split(" ").filter((f) => f !== "");
}

/**
 * Upstream's `RemoveKubeletArgsFromFile`: with flags to remove, backs up `kubeadm-flags.env`
 * to `/etc/kubernetes/tmp/kubeadm-kubelet-env<random>/` and rewrites it without them (only
 * when one was present). Nothing to remove: nothing happens.
 */
export async function removeKubeletFlags(input: {
  files: FileSystem;
  node: UpgradeNodeOps;
  out: Printer;
  kubernetesDir: string;
  unwanted: readonly string[];
  dryRun: boolean;
  random: RandomSource;
}): Promise<void> {
  const { unwanted, out } = input;
  if (unwanted.length === 0) return;
  if (input.dryRun) {
    out.info(
      `[dryrun] Would remove unwanted kubelet flags [${unwanted.join(" ")}] from kubeadm-flags.env`,
    );
    return;
  }
  const dir = await createTempDir(
    input.node,
    input.kubernetesDir,
    "kubeadm-kubelet-env",
    input.random,
  );
  const dest = `${dir}/kubeadm-flags.env`;
  out.info(`[upgrade] Backing up kubelet env file to ${dest}`);
  try {
    await input.node.copyTree(KUBELET_ENV_FILE, dest);
  } catch (e) {
    throw new KubeadmError(`error backing up the kubelet env file: ${errorMessage(e)}`, {
      cause: e,
    });
  }
  const raw = await input.files.read(KUBELET_ENV_FILE);
  if (raw === undefined) {
    throw new KubeadmError(
      `error reading kubelet env file: open ${KUBELET_ENV_FILE}: no such file or directory`,
    );
  }
  const flags = kubeletEnvFlags(utf8(raw));
  const kept = flags.filter((f) => !unwanted.includes(f.replace(/^--/, "").split("=")[0]));
  if (kept.length === flags.length) return;
  await input.files.write({
    path: KUBELET_ENV_FILE,
    data: kubeletFlagsEnvContent(kept),
    mode: 0o644,
    kind: "env",
  });
}
