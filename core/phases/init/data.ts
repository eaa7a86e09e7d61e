/**
 * Everything an `init` phase may use: the resolved configuration and the host ports.
 *
 * This is the TypeScript counterpart of upstream's `InitData` interface. Phases read the
 * node's files and write their planned files only through {@link InitData.files}; in dry-run
 * the runtime hands in a recording overlay instead of the real file system.
 *
 * @module
 */
import type { ResolvedInitConfig } from "../../config/types.ts";
import type { Clock, FileSystem, Printer, RandomSource } from "../../host/ports.ts";

/** Facts about the host that shape generated files (read by the runtime, passed in). */
export interface HostFacts {
  /** OS hostname, lowercased (node name default; `--hostname-override` decision). */
  hostname: string;
  /** Which of the CA-trust directories upstream mounts conditionally exist on this host. */
  existingDirs: ReadonlySet<string>;
  /** `*_proxy` environment variables (name → value), copied into control-plane Pods. */
  proxyEnv: Readonly<Record<string, string>>;
}

/** Input of every init phase. */
export interface InitData {
  /** Parsed, defaulted, validated configuration. */
  cfg: ResolvedInitConfig;
  /** The node's files (real, or a dry-run overlay). */
  files: FileSystem;
  /** Progress and warning output. */
  out: Printer;
  clock: Clock;
  random: RandomSource;
  /** Process start time: certificates are valid from start − 5 min (as upstream). */
  startTime: Date;
  /** `--dry-run`. */
  dryRun: boolean;
  /** Directory of kubeconfig files, `/etc/kubernetes`. */
  kubeconfigDir: string;
  /** Static Pod manifest directory, `/etc/kubernetes/manifests`. */
  manifestDir: string;
  /** `--patches` directory, if any. */
  patchesDir?: string;
  /** Host facts for manifests and kubelet flags. */
  host: HostFacts;
  /**
   * Which phase paths this run will execute (`certs/apiserver`); phases use it to prepare
   * work ahead of time. Absent means every phase not in `skipPhases`.
   */
  willRun?: (phasePath: string) => boolean;
}
