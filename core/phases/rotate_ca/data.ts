/**
 * What every phase of `kubeadm certs rotate-ca` gets (`core/certs/ca_rotation.ts` holds the
 * stages and the files; the phases here do one stage each).
 *
 * @module
 */
import type { ResolvedConfig } from "../../config/types.ts";
import type { RestartContext } from "../../controlplane/restart.ts";
import type { CertAndKey, PkiDirectory } from "../../certs/pki_dir.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { AnonymousConnection } from "../../certs/ca_rotation_cluster.ts";
import type { RotatedCA } from "../../certs/ca_rotation.ts";
import type { Timing } from "../../kube/retry.ts";
import type { FileSystem } from "../../ports/files.ts";
import type { NodeHost } from "../../ports/node.ts";
import type { Printer } from "../../ports/printer.ts";
import type { RandomSource } from "../../ports/random.ts";

/** A connection a phase opens and closes. */
export interface Opened<T> {
  value: T;
  close(): void;
}

/** Input of every rotate-ca phase. */
export interface RotateCaData {
  out: Printer;
  /** The CA rotated (`--ca`). */
  ca: RotatedCA;
  /** Print what would be done; write nothing. */
  dryRun: boolean;
  /** The cluster's configuration (the CA's validity and key type, `certificatesDir`). */
  cfg: ResolvedConfig;
  /** The certificates directory, writable. */
  pki: PkiDirectory<FileSystem>;
  /** `/etc/kubernetes`. */
  kubernetesDir: string;
  /** The node: services (the kubelet), symlinks, the kubelet's files. */
  node: NodeHost;
  /** `--ca-cert`/`--ca-key`, parsed (checked against the cluster in `preflight`). */
  newCA?: CertAndKey;
  random: RandomSource;
  /** The run's start: the new CA's validity counts from it. */
  now: Date;
  /** This node's name (its Node, its mirror Pods). */
  nodeName: string;
  /**
   * The restarts' context on the cluster through admin.conf, opened afresh by each phase (the
   * trust admin.conf holds changes between phases).
   */
  controlPlane(): Promise<Opened<RestartContext>>;
  /**
   * A client with the kubelet's own credentials (kubelet.conf), opened afresh: its Node, its
   * client certificate's CSR.
   */
  kubelet(): Promise<Opened<KubeClient>>;
  /**
   * A client without credentials to `connection.server`, trusting exactly `connection.caPem`,
   * each response size-capped: cluster-info is readable only anonymously.
   */
  anonymous(connection: AnonymousConnection): Promise<Opened<KubeClient>>;
  /** The clock and sleep of waits. */
  timing: Timing;
  /** Set by the workflow when `node` runs alone (a full run does not run it). */
  onlyNode?: boolean;
  /** How long a wait for the cluster (CSR signature, ConfigMap, kubelet) may take. */
  timeoutMs: number;
}
