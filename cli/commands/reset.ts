/**
 * `kubeadm reset` and `kubeadm reset phase <preflight|remove-etcd-member|cleanup-node>`.
 *
 * @module
 */
import type { Command } from "commander";
import { collectList } from "../flags.ts";
import { consolePrinter } from "../output.ts";
import { resetWorkflow } from "../../core/phases/reset/workflow.ts";
import type { ResetClusterConfig, ResetFlags } from "../../core/phases/reset/data.ts";
import type { Printer } from "../../core/host/ports.ts";
import type { ResetConfiguration } from "../../core/config/types.ts";
import type { NodeHost } from "../../core/host/node.ts";

/** What `reset` can be given from outside the CLI (tests, or the cluster client once wired). */
export interface ResetDeps {
  out?: Printer;
  /**
   * Best-effort read of this node's cluster configuration through `--kubeconfig`
   * (upstream reads the `kubeadm-config` ConfigMap); `undefined` when unavailable.
   */
  fetchClusterConfig?: (
    kubeconfigPath: string,
    rootfs: string,
  ) => Promise<ResetClusterConfig | undefined>;
  /** Reads one line of user input after printing `prompt`; default: stdin. */
  confirm?: (prompt: string) => Promise<string | undefined>;
  /** The node (default: this machine under `--rootfs`). */
  node?: (rootfs: string) => NodeHost;
}

/** Boolean flags of reset that accept pflag's `--flag=false` form. */
export const RESET_BOOL_FLAGS: ReadonlySet<string> = new Set([
  "dry-run",
  "force",
  "cleanup-tmp-dir",
]);

interface ResetOpts {
  certDir?: string;
  cleanupTmpDir?: boolean;
  config?: string;
  criSocket?: string;
  dryRun?: boolean;
  force?: boolean;
  ignorePreflightErrors?: string[];
  kubeconfig?: string;
  skipPhases?: string[];
  rootfs?: string;
}

const FLAG_ADDERS: Readonly<Record<string, (c: Command) => Command>> = {
  "cert-dir": (c) =>
    c.option(
      "--cert-dir <dir>",
      `The path to the directory where the certificates are stored. If specified, clean this directory. (default "/etc/kubernetes/pki")`,
    ),
  "cleanup-tmp-dir": (c) =>
    c.option("--cleanup-tmp-dir", `Cleanup the "/etc/kubernetes/tmp" directory`)
      .option("--no-cleanup-tmp-dir", "(pflag compatibility)"),
  config: (c) => c.option("--config <file>", "Path to a kubeadm configuration file."),
  "cri-socket": (c) =>
    c.option(
      "--cri-socket <socket>",
      "Path to the CRI socket to connect. If empty kubeadm will try to auto-detect this value; use this option only if you have more than one CRI installed or if you have non-standard CRI socket.",
    ),
  "dry-run": (c) =>
    c.option("--dry-run", "Don't apply any changes; just output what would be done.")
      .option("--no-dry-run", "(pflag compatibility)"),
  force: (c) =>
    c.option("-f, --force", "Reset the node without prompting for confirmation.")
      .option("--no-force", "(pflag compatibility)"),
  "ignore-preflight-errors": (c) =>
    c.option(
      "--ignore-preflight-errors <checks>",
      "A list of checks whose errors will be shown as warnings. Example: 'IsPrivilegedUser,Swap'. Value 'all' ignores errors from all checks.",
      collectList,
    ),
  kubeconfig: (c) =>
    c.option(
      "--kubeconfig <file>",
      `The kubeconfig file to use when talking to the cluster. If the flag is not set, a set of standard locations can be searched for an existing kubeconfig file. (default "/etc/kubernetes/admin.conf")`,
    ),
  "skip-phases": (c) =>
    c.option("--skip-phases <phases>", "List of phases to be skipped", collectList),
};

const ALL_FLAGS = [
  "cert-dir",
  "cleanup-tmp-dir",
  "config",
  "cri-socket",
  "dry-run",
  "force",
  "ignore-preflight-errors",
  "kubeconfig",
  "skip-phases",
];

function addFlags(cmd: Command, names: readonly string[]): Command {
  for (const n of names) FLAG_ADDERS[n](cmd);
  return cmd;
}

/** The reset options the user actually set (defaults are left to the core). */
function setOpts(cmd: Command): ResetOpts {
  const all = cmd.optsWithGlobals() as ResetOpts & Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(all)) {
    let src: string | undefined;
    for (let c: Command | null = cmd; c && src === undefined; c = c.parent) {
      src = c.getOptionValueSource(k);
    }
    if (src === "cli" || src === "env") out[k] = v;
  }
  return out as ResetOpts;
}

/** Reads one line from stdin after printing `prompt` (no newline); `undefined` at end of input. */
export async function readAnswer(prompt: string): Promise<string | undefined> {
  Deno.stdout.writeSync(new TextEncoder().encode(prompt));
  const bytes: number[] = [];
  const buf = new Uint8Array(1);
  for (;;) {
    let n: number | null;
    try {
      n = await Deno.stdin.read(buf);
    } catch {
      n = null;
    }
    if (n === null) {
      return bytes.length > 0 ? new TextDecoder().decode(new Uint8Array(bytes)) : undefined;
    }
    if (n === 0) continue;
    if (buf[0] === 0x0a) return new TextDecoder().decode(new Uint8Array(bytes)).replace(/\r$/, "");
    bytes.push(buf[0]);
  }
}

async function runResetCommand(cmd: Command, deps: ResetDeps, only?: string): Promise<void> {
  const { buildResetData } = await import("../../core/phases/reset/data.ts");
  const { runReset } = await import("../../core/phases/reset/workflow.ts");
  const { resolveSkipPhases } = await import("../../core/workflow/runner.ts");
  const { FlagError, ConfigError } = await import("../../core/errors.ts");
  const opts = setOpts(cmd);
  const rootfs = opts.rootfs ?? "/";
  const out = deps.out ?? consolePrinter;

  let config: ResetConfiguration | undefined;
  if (opts.config) {
    const { loadConfigDocuments } = await import("../../core/config/parse.ts");
    let text: string;
    try {
      text = await Deno.readTextFile(opts.config);
    } catch (e) {
      throw new FlagError(`unable to read config from "${opts.config}"`, {
        field: "--config",
        value: opts.config,
        hint: e instanceof Deno.errors.NotFound ? "the file does not exist" : String(e),
        cause: e,
      });
    }
    const loaded = loadConfigDocuments(text, { source: opts.config });
    for (const w of loaded.warnings) out.warn(w);
    if (!loaded.reset) {
      throw new ConfigError(`${opts.config}: no ResetConfiguration found`, {
        field: "--config",
        hint: "kubeadm reset reads a kubeadm.k8s.io/v1beta4 ResetConfiguration document",
      });
    }
    config = loaded.reset;
  }

  let node;
  if (deps.node) {
    node = deps.node(rootfs);
  } else {
    const { DenoNodeHost } = await import("../../runtime/host/node_host.ts");
    // Upstream's etcd client for reset: 10s requests, transient failures retried for 2m.
    node = new DenoNodeHost({ root: rootfs, etcd: { timeoutMs: 10_000, retryForMs: 120_000 } });
  }
  const cluster = await deps.fetchClusterConfig?.(
    opts.kubeconfig ?? "/etc/kubernetes/admin.conf",
    rootfs,
  ).catch((e) => {
    out.warn(
      `[reset] Unable to fetch the kubeadm-config ConfigMap from cluster: ${
        e instanceof Error ? e.message : e
      }`,
    );
    return undefined;
  });

  const flags: ResetFlags = {
    certDir: opts.certDir,
    cleanupTmpDir: opts.cleanupTmpDir,
    criSocket: opts.criSocket,
    dryRun: opts.dryRun,
    force: opts.force,
    ignorePreflightErrors: opts.ignorePreflightErrors,
    skipPhases: opts.skipPhases,
  };
  const data = buildResetData({
    flags,
    config,
    cluster,
    out,
    node,
    confirm: deps.confirm ?? readAnswer,
  });
  const workflow = resetWorkflow();
  const skip = only ? [] : resolveSkipPhases(workflow, data.skipPhases);
  await runReset(data, { skip, only });
}

/**
 * Registers `reset` and `reset phase …` on the root command. Call it from `buildProgram()`,
 * and add {@link RESET_BOOL_FLAGS} to the boolean flags normalised before parsing.
 */
export function registerReset(program: Command, deps: ResetDeps = {}): void {
  const wf = resetWorkflow();
  const reset = addFlags(
    program.command("reset").description(
      "Performs a best effort revert of changes made to this host by 'kubeadm init' or 'kubeadm join'",
    ),
    ALL_FLAGS,
  ).action(async (_o: unknown, c: Command) => await runResetCommand(c, deps));
  const phase = reset.command("phase").description(
    'Use this command to invoke single phase of the "reset" workflow',
  );
  for (const p of wf.phases) {
    const cmd = phase.command(p.name).description(p.long ?? p.short).summary(p.short);
    for (const alias of p.aliases ?? []) cmd.alias(alias);
    // Every phase also reads the configuration file, as upstream's data initializer does.
    addFlags(cmd, [...new Set([...(p.flags ?? []), "config"])]).action(
      async (_o: unknown, c: Command) => await runResetCommand(c, deps, p.name),
    );
  }
}
