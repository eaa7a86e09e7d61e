/**
 * Phases: the small named units every workflow (`init`, `join`, `reset`) is composed of.
 *
 * A phase has a name, help text, optional sub-phases and a `run`. Its `path` is the
 * slash-joined chain of names (`certs/apiserver`) used by `--skip-phases` and by the
 * generated `kubeadm init phase certs apiserver` command. A phase with `runAllSiblings`
 * (upstream's "all") runs every sibling when invoked on its own and never in a full run.
 *
 * Each phase is declared whole in one module of its workflow's folder (name, help, the inputs
 * its command takes, sub-phases, its work), as upstream's `cmd/phases` declare theirs; the
 * workflow lists them in order.
 *
 * @module
 */
import type { InputName } from "../config/inputs.ts";

/** One unit of a workflow, generic over the data its `run` receives. */
export interface Phase<D> {
  /** Command name (`certs`, `apiserver`, `all`). */
  name: string;
  /** One-line help. */
  short: string;
  /** Longer help shown by `phase <name> --help`. */
  long?: string;
  /** Alternative names accepted on the command line (`uploadconfig`). */
  aliases?: readonly string[];
  /** Not listed in help (still runnable). */
  hidden?: boolean;
  /** Sub-phases, run depth-first after this phase's own `run`. */
  phases?: readonly Phase<D>[];
  /** Upstream's "all": when invoked alone, run every sibling instead of itself. */
  runAllSiblings?: boolean;
  /** The work; phases with only sub-phases have none. */
  run?: (data: D) => Promise<void>;
  /** When present and false, the phase (and its sub-phases) is skipped silently. */
  runIf?: (data: D) => boolean;
  /**
   * The inputs its `phase` command takes (`config/inputs.ts`); the command line registers
   * exactly the flags bound to them (`cli/flags.ts`).
   */
  inputs?: readonly InputName[];
  /** Usage of positional arguments, e.g. `[api-server-endpoint]`. */
  argsUsage?: string;
  /**
   * Present on a phase's outline (a copy of its declaration without the work, `run` and
   * `runIf`): loads the declaration itself. The runner loads a phase before running it, so a
   * command line can list, validate and offer phases without loading their modules.
   */
  load?: () => Promise<Phase<D>>;
}

/** A complete workflow: an ordered list of top-level phases. */
export interface Workflow<D> {
  /** Command the workflow belongs to (`init`). */
  name: string;
  phases: readonly Phase<D>[];
}
