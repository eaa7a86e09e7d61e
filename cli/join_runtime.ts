/**
 * Assembles a `kubeadm join` run on this host: reads the config file, detects host facts,
 * resolves the JoinConfiguration, and supplies the join phases' ports from the command line's
 * adapters (`./adapters.ts`): the node's files (real, under `--rootfs`, or a dry-run
 * recording), discovery and API client transports (anonymous discovery; insecure for the first
 * token-discovery fetch, otherwise verifying against exactly the given CA), HTTPS discovery URLs
 * verified against the host's CA bundle file, the node (kubelet service, health probes, the
 * etcd gateway client) and the preflight checks.
 *
 * @module
 */
import { loadConfigFile, systemdResolvedActive } from "./config_file.ts";
import {
  KubeconfigFile,
  KUBELET_RUN_DIR,
  KUBERNETES_DIR,
  MANIFESTS_DIR,
} from "../core/constants.ts";
import { KubeadmError } from "../core/errors.ts";
import type { JoinData, JoinPorts } from "../core/phases/join/data.ts";
import { readTextFileCapped } from "../adapters/deno/fs/capped_read.ts";
import { underRoot } from "../adapters/deno/files.ts";
import {
  defaultAdvertiseAddress as advertiseAddressDefault,
  readHostFacts,
} from "../adapters/deno/host/facts.ts";
import { networkAllowed } from "../adapters/deno/process.ts";
import { isRegularFile } from "../adapters/deno/fs/regular_file.ts";
import { joinNetwork, nodeHost, platform, runFiles } from "./adapters.ts";
import { DryRunReport } from "./dry_run_report.ts";
import { autoRenewalRequest, preflightOutput } from "./flags.ts";
import type { CommandDeps, Invocation, WorkflowRun } from "./workflow_command.ts";

/**
 * Resolves the inputs, the config file and host facts into a join run: the {@link JoinData}, its
 * ports, the dry-run report and upstream's closing message.
 */
export async function prepareJoin(
  inv: Invocation,
  deps: CommandDeps & { ports?: Partial<JoinPorts> },
): Promise<WorkflowRun<JoinData>> {
  const { resolveJoinConfig } = await import("../core/config/join.ts");
  const { createJoinData } = await import("../core/phases/join/data.ts");
  const { parseKubeconfig } = await import("../core/kubeconfig/kubeconfig.ts");
  const { out, rootfs } = inv;
  const inputs = { ...inv.inputs, apiServerEndpoint: inv.argument };
  const configFile = inputs.config;
  const preflight = preflightOutput(inputs);
  if (!networkAllowed()) {
    // Discovery and every later step talk to the API server (a dry run only reads).
    throw new KubeadmError(
      "kubeadm join needs network access to reach the API server, but this process may not use the network",
      {
        hint:
          "run Deno with --allow-net (the scripts/kubeadm launcher must grant it to join, also with --dry-run)",
      },
    );
  }
  const text = configFile ? await loadConfigFile(configFile) : undefined;
  const facts = readHostFacts(rootfs);
  const adminConf = underRoot(rootfs, `${KUBERNETES_DIR}/${KubeconfigFile.admin}`);
  let discoveryFallbackFile: string | undefined;
  // `join phase` commands without discovery flags use this node's admin.conf, as upstream.
  if (!inv.accepts.includes("discovery-file")) {
    if (!isRegularFile(adminConf)) {
      throw new KubeadmError(
        `File ${KUBERNETES_DIR}/${KubeconfigFile.admin} does not exists. Please use 'kubeadm join phase control-plane-prepare' subcommands to generate it.`,
      );
    }
    discoveryFallbackFile = adminConf;
  }
  const defaultAdvertiseAddress = advertiseAddressDefault(inputs.advertiseAddress) ?? "";
  const { config, warnings } = resolveJoinConfig({
    text,
    source: configFile,
    inputs,
    host: {
      hostname: facts.hostname,
      defaultAdvertiseAddress,
    },
    fileExists: isRegularFile,
    discoveryFallbackFile,
  });
  for (const w of warnings) out.warn(w);

  const dryRun = config.dryRun ?? false;
  const node = await nodeHost(rootfs, deps);
  const certificateAutoRenewal = await autoRenewalRequest(inv, {
    controlPlane: config.controlPlane !== undefined,
    foreignRoot: node.foreignRoot,
  });
  const { files, recording } = await runFiles(rootfs, dryRun);

  // Upstream: an existing admin.conf on a control-plane node replaces discovery.
  let tlsBootstrapOverride;
  if (config.controlPlane && isRegularFile(adminConf)) {
    tlsBootstrapOverride = parseKubeconfig(await readTextFileCapped(adminConf), adminConf);
  }

  const { runJoinNodePreflight } = await import("../core/phases/join/preflight.ts");
  const ports: JoinPorts = {
    ...await joinNetwork(),
    preflight: (d) => runJoinNodePreflight(d, node.machine),
    ...deps.ports,
  };
  const data = createJoinData({
    cfg: config,
    files,
    out,
    ...platform,
    startTime: platform.clock.now(),
    dryRun,
    kubeconfigDir: KUBERNETES_DIR,
    manifestDir: MANIFESTS_DIR,
    kubeletDir: KUBELET_RUN_DIR,
    patchesDir: config.patches?.directory,
    host: {
      ...facts,
      defaultAdvertiseAddress,
      systemdResolvedActive: systemdResolvedActive(),
    },
    node,
    ports,
    preflightOutput: preflight,
    certificateAutoRenewal,
    tlsBootstrapOverride,
  });
  const report = recording
    ? new DryRunReport(recording, out, { command: "join", announceWrites: false })
    : undefined;
  return {
    data,
    skipPhases: config.skipPhases,
    finish: async () => {
      await report?.report();
      if (inv.only) return;
      const { joinControlPlaneDoneMessage, joinWorkerDoneMessage } = await import(
        "../core/phases/join/messages.ts"
      );
      if (config.controlPlane) {
        const cfg = await data.initCfg();
        out.info(joinControlPlaneDoneMessage(cfg.cluster.etcd.external === undefined));
      } else {
        out.info(joinWorkerDoneMessage());
      }
    },
  };
}
