/**
 * What every run that plans a node's files works with: the node's configuration in its cluster
 * and the ports to the outside (the node's files, output, clock, randomness). Workflow data
 * (`InitData`) and the domain modules' contexts (the certificate tree, kubeconfig files)
 * extend it.
 *
 * @module
 */
import type { ResolvedConfig } from "../config/types.ts";
import type { Clock } from "../ports/clock.ts";
import type { FileSystem } from "../ports/files.ts";
import type { Printer } from "../ports/printer.ts";
import type { RandomSource } from "../ports/random.ts";
import type { CryptoPort } from "../ports/crypto.ts";

/** The configuration and ports of a run. */
export interface RunContext {
  /** Parsed, defaulted, validated configuration of this node. */
  cfg: ResolvedConfig;
  /** The node's files (real, or a dry-run overlay). */
  files: FileSystem;
  /** Progress and warning output. */
  out: Printer;
  clock: Clock;
  random: RandomSource;
  /**
   * Key generation, import, signing and hashing. The deterministic port makes a seeded run
   * reproducible (`core/ports/crypto.ts`).
   */
  crypto: CryptoPort;
  /** Process start time: certificates are valid from start − 5 min (as upstream). */
  startTime: Date;
}
