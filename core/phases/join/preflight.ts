/**
 * `kubeadm join phase preflight [api-server-endpoint]`: the join preflight checks (the
 * {@link JoinData}'s `preflight` port: kubeadm's checks of the machine on the command line, a
 * plan's refusal in the library), then discovery and the cluster's configuration, as upstream's
 * preflight phase fetches them for every join; for a control-plane join, beyond upstream, that
 * every voting etcd member answers (`checkEtcdMembersBeforeWrites`).
 *
 * @module
 */
import type { Machine } from "../../ports/machine.ts";
import type { Phase } from "../../workflow/phase.ts";
import { API_SERVER_ENDPOINT, type JoinData } from "./data.ts";

/**
 * The join preflight checks on a machine: root, the node checks and, for a control-plane join,
 * the init-node checks and image pull on the cluster's configuration for this node.
 */
export async function runJoinNodePreflight(data: JoinData, machine: Machine): Promise<void> {
  const { runJoinPreflight } = await import("../../preflight/join.ts");
  await runJoinPreflight(
    {
      nodeName: data.cfg.nodeRegistration.name,
      criSocket: data.cfg.nodeRegistration.criSocket,
      caCertPath: data.cfg.caCertPath,
      controlPlane: data.cfg.controlPlane !== undefined,
      discoveryEndpoint: data.cfg.discovery.bootstrapToken?.apiServerEndpoint,
      ignorePreflightErrors: [],
      certificateKey: data.cfg.controlPlane?.certificateKey,
      dryRun: data.dryRun,
    },
    machine,
    {
      ignore: data.cfg.nodeRegistration.ignorePreflightErrors,
      out: data.out,
      output: data.preflightOutput,
      controlPlaneConfig: () => data.initCfg(),
    },
  );
}

/** Runs the phase. */
export async function runJoinPreflightPhase(data: JoinData): Promise<void> {
  await data.ports.preflight(data);
  await data.initCfg();
  if (data.cfg.controlPlane) {
    const { checkEtcdMembersBeforeWrites } = await import("./etcd.ts");
    await checkEtcdMembersBeforeWrites(data);
  }
  // A control-plane join ran these checks in its preflight, with the cluster's configuration.
  if (!data.cfg.controlPlane) {
    data.out.log?.(1, "preflight.ts", "[preflight] Running configuration dependant checks");
  }
}

/** `join phase preflight`. */
export const preflightPhase: Phase<JoinData> = {
  name: "preflight",
  short: "Run join pre-flight checks",
  long: "Run pre-flight checks for kubeadm join.",
  argsUsage: API_SERVER_ENDPOINT,
  run: runJoinPreflightPhase,
  // `-o` is a kubeadm-ts addition: the JSON report of every check.
  inputs: [
    "config",
    "ignorePreflightErrors",
    "tlsBootstrapToken",
    "token",
    "controlPlane",
    "advertiseAddress",
    "bindPort",
    "criSocket",
    "nodeName",
    "discoveryFile",
    "discoveryToken",
    "caCertHashes",
    "unsafeSkipCAVerification",
    "certificateKey",
    "dryRun",
    "output",
  ],
};
