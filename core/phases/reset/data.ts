/**
 * Everything a `reset` phase may use (upstream's `resetData`), and how it is assembled from
 * the inputs (`config/inputs.ts`), the ResetConfiguration and what could be read from the
 * cluster.
 *
 * Precedence as upstream: a value given (a flag the user set) wins; then the
 * ResetConfiguration; then (for the CRI socket) the cluster's node registration; then the
 * default. The certificates directory is checked for safety here, before anything is touched.
 *
 * @module
 */
import type { Inputs } from "../../config/inputs.ts";
import type { ResetConfiguration } from "../../config/types.ts";
import { DEFAULT_CRI_SOCKET } from "../../constants.ts";
import { certificatesDirOrDefault } from "../../config/defaults.ts";
import { validateUnmountFlags } from "../../config/reset.ts";
import type { Printer } from "../../ports/printer.ts";
import { KNOWN_CHECK_NAMES } from "../../preflight/catalog.ts";
import type { NodeHost } from "../../ports/node.ts";
import { type IgnoreSet, resolveIgnoreSet } from "../../preflight/ignore.ts";
import { assertSafeCleanupDir } from "./safety.ts";

/**
 * What `reset` could learn from the cluster's `kubeadm-config` (best effort: absent when the
 * cluster is unreachable).
 */
export interface ResetClusterConfig {
  /** `ClusterConfiguration.certificatesDir`. */
  certificatesDir?: string;
  /** `ClusterConfiguration.etcd`. */
  etcd?: { local?: { dataDir?: string }; external?: unknown };
  /** This node's API endpoint (control-plane nodes only). */
  localAPIEndpoint?: { advertiseAddress: string; bindPort?: number };
  /** This node's `nodeRegistration.criSocket`. */
  criSocket?: string;
  /** Client URLs of the cluster's etcd members (from the etcd Pods' annotations). */
  etcdEndpoints?: string[];
}

/** Input of every reset phase. */
export interface ResetData {
  out: Printer;
  /** The node: its files, services, containers, mounts and etcd. */
  node: NodeHost;
  dryRun: boolean;
  /** `--force`: no confirmation prompt. */
  force: boolean;
  /** The certificates directory to empty (already checked for safety). */
  certificatesDir: string;
  /** Also empty `/etc/kubernetes/tmp`. */
  cleanupTmpDir: boolean;
  /** CRI endpoint for removing containers. */
  criSocket: string;
  /** Validated `--ignore-preflight-errors` + `ignorePreflightErrors`. */
  ignore: IgnoreSet;
  /** `ResetConfiguration.unmountFlags`. */
  unmountFlags: readonly string[];
  /**
   * Shows `prompt` and reads one line from the user; `undefined` when there is no input
   * (end of file).
   */
  confirm(prompt: string): Promise<string | undefined>;
  /** From the cluster, when it could be read. */
  cluster?: ResetClusterConfig;
  /** Which phase paths this run executes (absent: all not skipped). */
  willRun?: (phasePath: string) => boolean;
  /**
   * The etcd data directory `remove-etcd-member` emptied (set by it): the etcd container, still
   * running then, may write to it again before `cleanup-node` removes the containers.
   */
  etcdDataDirEmptied?: string;
}

/** What {@link buildResetData} needs. */
export interface ResetDataInput {
  /**
   * The values given besides the file (`config/inputs.ts`): `certificatesDir`,
   * `cleanupTmpDir`, `criSocket`, `dryRun`, `force`, `ignorePreflightErrors`, `skipPhases`.
   */
  inputs: Inputs;
  /** The `--config` ResetConfiguration, if any. */
  config?: ResetConfiguration;
  cluster?: ResetClusterConfig;
  out: Printer;
  node: NodeHost;
  confirm(prompt: string): Promise<string | undefined>;
}

/** Resolves the inputs, ResetConfiguration and cluster values into {@link ResetData}. */
export function buildResetData(input: ResetDataInput): ResetData & { skipPhases: string[] } {
  const { inputs, config = {}, cluster } = input;
  const certificatesDir = inputs.certificatesDir !== undefined
    ? assertSafeCleanupDir(inputs.certificatesDir, "--cert-dir")
    : assertSafeCleanupDir(
      certificatesDirOrDefault(config.certificatesDir || cluster?.certificatesDir),
      "certificatesDir",
    );
  validateUnmountFlags(config.unmountFlags ?? []);
  const ignore = resolveIgnoreSet(
    inputs.ignorePreflightErrors ?? [],
    config.ignorePreflightErrors ?? [],
    KNOWN_CHECK_NAMES,
  );
  const criSocket = inputs.criSocket || config.criSocket || cluster?.criSocket ||
    DEFAULT_CRI_SOCKET;
  if (!inputs.criSocket) {
    input.out.log?.(1, "data.ts", `[reset] Using specified CRI socket: ${criSocket}`);
  }
  return {
    out: input.out,
    node: input.node,
    confirm: input.confirm,
    cluster,
    dryRun: inputs.dryRun ?? config.dryRun ?? false,
    force: inputs.force ?? config.force ?? false,
    cleanupTmpDir: inputs.cleanupTmpDir ?? config.cleanupTmpDir ?? false,
    certificatesDir,
    criSocket,
    ignore,
    unmountFlags: config.unmountFlags ?? [],
    skipPhases: inputs.skipPhases && inputs.skipPhases.length > 0
      ? [...inputs.skipPhases]
      : [...(config.skipPhases ?? [])],
  };
}

/** What upstream prints after a full reset: what reset does not clean up. */
export const RESET_CLEANUP_NOTES = [
  "",
  "The reset process does not perform cleanup of CNI plugin configuration,",
  "network filtering rules and kubeconfig files.",
  "",
  "For information on how to perform this cleanup manually, please see:",
  "    https://k8s.io/docs/reference/setup-tools/kubeadm/kubeadm-reset/",
  "",
];
