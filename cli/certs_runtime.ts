/**
 * The runtime side of `kubeadm certs …` and `kubeadm kubeconfig user`: which configuration
 * they work with and the node's files they read and write.
 *
 * Configuration, as upstream (`getInternalCfg`, `LoadOrDefaultInitConfiguration`):
 * - `certs renew` and `check-expiration` without `--config` first read the cluster's
 *   `kubeadm-config` (and component configs) through `--kubeconfig` (default
 *   `/etc/kubernetes/admin.conf`) with a short retry, printing upstream's
 *   `[<prefix>] Reading configuration …` lines; `--cert-dir` (defaulted as `certificatesDir`
 *   is) then replaces the cluster's `certificatesDir`. A kubeconfig that does not load skips the
 *   cluster silently; a cluster that cannot be read prints `Error reading configuration from
 *   the Cluster. Falling back to default configuration`.
 * - otherwise `--config` (which then decides `certificatesDir`; `--cert-dir` is ignored, as
 *   upstream), or the defaults with `--cert-dir`.
 *
 * Paths: `--config` and an explicit `--kubeconfig` are paths on this machine; node paths
 * (`--cert-dir`, `--kubeconfig-dir`, `/etc/kubernetes`) resolve under `--rootfs`.
 *
 * @module
 */
import { loadConfigFile } from "./config_file.ts";
import { consolePrinter } from "./output.ts";
import { KubeconfigFile, KUBERNETES_DIR } from "../core/constants.ts";
import { certificatesDirOrDefault } from "../core/config/defaults.ts";
import { CURRENT_KUBERNETES_VERSION } from "../core/versions.ts";
import { errorMessage } from "../core/errors.ts";
import type { Printer } from "../core/ports/printer.ts";
import type { ResolvedConfig } from "../core/config/types.ts";
import { resolveInitConfig } from "../core/config/resolve.ts";
import { underRoot } from "../adapters/deno/files.ts";
import { detectDefaultAddress, readHostFacts } from "../adapters/deno/host/facts.ts";
import { envGet } from "../adapters/deno/process.ts";
import { connect } from "./cluster_connection.ts";
import type { FlagValues } from "./flags.ts";
import { platform } from "./adapters.ts";

/** The registry's flags the certs commands that read a configuration use. */
export type CertsConfigFlags = Pick<FlagValues, "config" | "cert-dir" | "kubeconfig" | "rootfs">;

/** A printer that prints nothing (structured output keeps stdout for the object). */
export const silentPrinter: Printer = { info: () => {}, warn: () => {} };

function hostFacts(rootfs: string | undefined) {
  return {
    hostname: readHostFacts(rootfs ?? "/").hostname,
    defaultAdvertiseAddress: detectDefaultAddress() ?? "",
  };
}

/**
 * Upstream's `LoadOrDefaultInitConfiguration`: the `--config` file, or the defaults with the
 * given overrides (a `--config` file ignores them).
 */
export async function loadOrDefaultConfig(
  configPath: string | undefined,
  overrides: { certificatesDir?: string; kubernetesVersion?: string },
  warn: (line: string) => void,
): Promise<ResolvedConfig> {
  const text = configPath ? await loadConfigFile(configPath) : undefined;
  const { config, warnings } = resolveInitConfig({
    text,
    source: configPath,
    inputs: configPath ? {} : overrides,
    host: hostFacts(undefined),
    random: platform.random,
    log: consolePrinter.log,
  });
  for (const w of warnings) warn(w);
  return config;
}

async function fromCluster(
  kubeconfigPath: string,
  refsRoot: string,
  out: Printer,
  logPrefix: string,
): Promise<ResolvedConfig | undefined> {
  // Like upstream's ClientSetFromFile: a kubeconfig that does not load means no cluster.
  let connection;
  try {
    connection = await connect({ path: kubeconfigPath, refsRoot }, {
      timeoutMs: 10_000,
      clientcmd: true,
    });
  } catch {
    return undefined;
  }
  const { fetchClusterConfigDocuments, resolveClusterDocuments } = await import(
    "../core/config/cluster_config.ts"
  );
  try {
    // Upstream's GetConfigMapWithShortRetry: every 50ms for at most 350ms.
    const client = connection.client.withRetry({
      timeoutMs: 350,
      initialDelayMs: 50,
      maxDelayMs: 50,
      factor: 1,
    });
    const docs = await fetchClusterConfigDocuments(client, out, logPrefix);
    return resolveClusterDocuments(docs, {}, hostFacts(undefined), platform.random);
  } catch (e) {
    if (envGet("KUBEADM_TS_DEBUG")) out.warn(`[${logPrefix}] ${errorMessage(e)}`);
    out.info(
      `[${logPrefix}] Error reading configuration from the Cluster. Falling back to default configuration`,
    );
    out.info("");
    return undefined;
  } finally {
    connection.close();
  }
}

/**
 * The configuration of `certs renew` and `certs check-expiration` (see the module
 * documentation). `out` receives upstream's progress lines (a silent printer for `-o json`).
 */
export async function loadCertsConfig(
  flags: CertsConfigFlags,
  out: Printer,
  logPrefix: string,
  warn: (line: string) => void,
): Promise<ResolvedConfig> {
  if (!flags.config) {
    const kubeconfigPath = flags.kubeconfig ??
      underRoot(flags.rootfs ?? "/", `${KUBERNETES_DIR}/${KubeconfigFile.admin}`);
    const refsRoot = flags.kubeconfig ? "/" : flags.rootfs ?? "/";
    const cfg = await fromCluster(kubeconfigPath, refsRoot, out, logPrefix);
    if (cfg) {
      out.info("");
      // As upstream: the flag (or the default it has) replaces the cluster's directory.
      const certificatesDir = flags["cert-dir"] ?? certificatesDirOrDefault();
      return { ...cfg, cluster: { ...cfg.cluster, certificatesDir } };
    }
  }
  return await loadOrDefaultConfig(
    flags.config,
    { certificatesDir: flags["cert-dir"], kubernetesVersion: CURRENT_KUBERNETES_VERSION },
    warn,
  );
}
