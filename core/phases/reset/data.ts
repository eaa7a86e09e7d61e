/**
 * Everything a `reset` phase may use (upstream's `resetData`), and how it is assembled from
 * flags, the ResetConfiguration and what could be read from the cluster.
 *
 * Precedence as upstream: a flag the user set wins; then the ResetConfiguration; then (for the
 * CRI socket) the cluster's node registration; then the default. The certificates directory is
 * checked for safety here, before anything is touched.
 *
 * @module
 */
import type { ResetConfiguration } from "../../config/types.ts";
import { DEFAULT_CERTIFICATES_DIR, DEFAULT_CRI_SOCKET } from "../../constants.ts";
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

/** Command-line values; `undefined` means the flag was not given. */
export interface ResetFlags {
  certDir?: string;
  cleanupTmpDir?: boolean;
  criSocket?: string;
  dryRun?: boolean;
  force?: boolean;
  ignorePreflightErrors?: readonly string[];
  skipPhases?: readonly string[];
}

/** What {@link buildResetData} needs besides flags. */
export interface ResetDataInput {
  flags: ResetFlags;
  /** The `--config` ResetConfiguration, if any. */
  config?: ResetConfiguration;
  cluster?: ResetClusterConfig;
  out: Printer;
  node: NodeHost;
  confirm(prompt: string): Promise<string | undefined>;
}

/** Resolves flags, ResetConfiguration and cluster values into {@link ResetData}. */
export function buildResetData(input: ResetDataInput): ResetData & { skipPhases: string[] } {
  const { flags, config = {}, cluster } = input;
  const certificatesDir = flags.certDir !== undefined
    ? assertSafeCleanupDir(flags.certDir, "--cert-dir")
    : assertSafeCleanupDir(
      config.certificatesDir || cluster?.certificatesDir || DEFAULT_CERTIFICATES_DIR,
      "certificatesDir",
    );
  validateUnmountFlags(config.unmountFlags ?? []);
  const ignore = resolveIgnoreSet(
    flags.ignorePreflightErrors ?? [],
    config.ignorePreflightErrors ?? [],
    KNOWN_CHECK_NAMES,
  );
  const criSocket = flags.criSocket || config.criSocket || cluster?.criSocket ||
    DEFAULT_CRI_SOCKET;
  if (!flags.criSocket) {
    input.out.log?.(1, "data.ts", `[reset] Using specified CRI socket: ${criSocket}`);
  }
  return {
    out: input.out,
    node: input.node,
    confirm: input.confirm,
    cluster,
    dryRun: flags.dryRun ?? config.dryRun ?? false,
    force: flags.force ?? config.force ?? false,
    cleanupTmpDir: flags.cleanupTmpDir ?? config.cleanupTmpDir ?? false,
    certificatesDir,
    criSocket,
    ignore,
    unmountFlags: config.unmountFlags ?? [],
    skipPhases: flags.skipPhases && flags.skipPhases.length > 0
      ? [...flags.skipPhases]
      : [...(config.skipPhases ?? [])],
  };
}
