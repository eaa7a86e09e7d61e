/**
 * Assembles an init run on this host: reads the config file, detects host facts, resolves the
 * configuration, and plugs in the command line's adapters (`./adapters.ts`): the node's files
 * (real, under `--rootfs`, or a dry-run recording), the node, and the admin connection over
 * `<rootfs>/etc/kubernetes/admin.conf` (the Deno mTLS transport, or the recording dry-run
 * transport).
 *
 * @module
 */
import { loadConfigFile, systemdResolvedActive } from "./config_file.ts";
import { DefaultTimeouts, KUBERNETES_DIR, MANIFESTS_DIR } from "../core/constants.ts";
import type { ClusterAccessOptions } from "../core/phases/init/cluster_access.ts";
import { adminKubeconfigPath } from "../core/kubeconfig/specs.ts";
import type { ClusterAccess, InitData } from "../core/phases/init/data.ts";
import { parseDuration } from "../core/text/duration.ts";
import { defaultAdvertiseAddress, readHostFacts } from "../adapters/deno/host/facts.ts";
import type { CommandDeps, Invocation, WorkflowRun } from "./workflow_command.ts";
import { autoRenewalRequest, preflightOutput } from "./flags.ts";
import { deferred } from "../adapters/deno/host/deferred.ts";
import { dryRunTransport, lazyTransports, nodeHost, platform, runFiles } from "./adapters.ts";

/**
 * The admin connection ({@link ClusterAccessOptions}), its client stack (kubeconfig parsing,
 * the API client, the RBAC bootstrap) loaded on first use: offline phases never load it.
 */
function lazyClusterAccess(o: ClusterAccessOptions): ClusterAccess {
  return deferred(
    () => import("../core/phases/init/cluster_access.ts").then((m) => m.createClusterAccess(o)),
    { kubeconfig: true, client: true },
    { kubeconfigPath: adminKubeconfigPath(o.kubeconfigDir, o.kubeconfigPath) },
  );
}

/**
 * Resolves the inputs, the config file and host facts into an init run: the {@link InitData} and
 * its ports (the node, the admin connection, the dry-run report).
 */
export async function prepareInit(
  inv: Invocation,
  deps: CommandDeps,
): Promise<WorkflowRun<InitData>> {
  const { inputs, out, rootfs } = inv;
  const preflight = preflightOutput(inputs);
  const { resolveInitConfig } = await import("../core/config/resolve.ts");
  const text = inputs.config ? await loadConfigFile(inputs.config) : undefined;
  const facts = readHostFacts(rootfs);
  let detected: string | undefined;
  const { config, warnings } = resolveInitConfig({
    text,
    source: inputs.config,
    inputs,
    host: {
      hostname: facts.hostname,
      // Looked for (the default route's interface) only when the configuration and the flag
      // leave the address unset or unspecified, as upstream's dynamic defaults do.
      get defaultAdvertiseAddress() {
        return detected ??= defaultAdvertiseAddress(inputs.advertiseAddress) ?? "";
      },
    },
    random: platform.random,
    log: out.log,
  });
  for (const w of warnings) out.warn(w);
  const dryRun = config.init.dryRun ?? false;
  const node = await nodeHost(rootfs, deps);
  const certificateAutoRenewal = await autoRenewalRequest(inv, {
    controlPlane: true,
    foreignRoot: node.foreignRoot,
    certificateValidityPeriod: config.cluster.certificateValidityPeriod,
  });
  const { files, recording } = await runFiles(rootfs, dryRun);
  let report: import("./dry_run_report.ts").DryRunReport | undefined;
  let transports: ReturnType<typeof lazyTransports>;
  if (recording) {
    const { DryRunReport } = await import("./dry_run_report.ts");
    report = new DryRunReport(recording, out, { command: "init", announceWrites: true });
    // One recording transport for the whole run: later GETs see earlier "created" objects.
    const dry = await dryRunTransport({ out });
    transports = { transportFor: () => dry.transport, close: () => {} };
  } else {
    transports = lazyTransports();
  }
  const data: InitData = {
    cfg: config,
    files,
    out,
    clock: platform.clock,
    random: platform.random,
    crypto: platform.crypto,
    startTime: platform.clock.now(),
    dryRun,
    kubeconfigDir: inputs.kubeconfigDir ?? KUBERNETES_DIR,
    manifestDir: MANIFESTS_DIR,
    patchesDir: config.init.patches?.directory,
    host: { ...facts, systemdResolvedActive: systemdResolvedActive() },
    sleep: platform.sleep,
    node,
    cluster: lazyClusterAccess({
      files,
      kubeconfigDir: KUBERNETES_DIR,
      kubeconfigPath: inputs.kubeconfig,
      transportFor: transports.transportFor,
      bootstrapClusterAdmins: !dryRun,
      clock: platform.clock,
      sleep: platform.sleep,
      apiCallTimeoutMs: apiCallTimeout(config.init.timeouts.kubernetesAPICall),
      localAPIEndpoint: config.init.localAPIEndpoint,
    }),
    preflightOutput: preflight,
    printManifest: inputs.printManifest ?? false,
    skipTokenPrint: inputs.skipTokenPrint ?? false,
    skipCertificateKeyPrint: inputs.skipCertificateKeyPrint ?? false,
    certificateAutoRenewal,
    reportDryRunFiles: report && (() => report.report()),
  };
  if (!inv.only) out.info(`[init] Using Kubernetes version: ${config.cluster.kubernetesVersion}`);
  return {
    data,
    skipPhases: config.init.skipPhases,
    close: transports.close,
    // A run that stops before wait-control-plane (`init phase certs --dry-run`) reports here.
    finish: async () => await report?.report(),
  };
}

function apiCallTimeout(value: string | undefined): number {
  try {
    return value ? parseDuration(value) : DefaultTimeouts.kubernetesAPICall;
  } catch {
    return DefaultTimeouts.kubernetesAPICall;
  }
}
