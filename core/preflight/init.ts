/**
 * `kubeadm init`'s preflight checks: the root check (alone, fail fast), the control-plane node
 * checks, then the image pull (`[preflight] Would pull ...` in dry-run).
 *
 * In dry-run, failing checks are reported (`[preflight] dry-run: [ERROR ...]`) but do not
 * abort, so `init --dry-run` works for an unprivileged user.
 *
 * @module
 */
import type { ResolvedConfig } from "../config/types.ts";
import type { Printer } from "../ports/printer.ts";
import { imagePullChecks, initNodeChecks, KNOWN_CHECK_NAMES, rootChecks } from "./catalog.ts";
import type { Machine } from "../ports/machine.ts";
import { resolveIgnoreSet } from "./ignore.ts";
import type { Check } from "./check.ts";
import {
  type PreflightOutput,
  type PreflightReport,
  PreflightRun,
  type PreflightRunOptions,
} from "./runner.ts";

/** Options of {@link runInitPreflight}. */
export interface InitPreflightOptions {
  /** `--ignore-preflight-errors` values (merged with `nodeRegistration.ignorePreflightErrors`). */
  ignore: readonly string[];
  /** `text` (default) or `json` (`-o json`: one report on stdout). */
  output?: PreflightOutput;
}

/** The run the init checks are about. */
export interface InitPreflightRun {
  cfg: ResolvedConfig;
  out: Printer;
  dryRun: boolean;
}

/**
 * Starts a preflight run the way `init` and `join` both do: the root check alone (fail fast),
 * then the node's checks.
 */
export async function startNodePreflight(
  host: Machine,
  opts: PreflightRunOptions,
  nodeChecks: readonly Check[],
): Promise<PreflightRun> {
  const run = new PreflightRun(host, opts);
  run.info("[preflight] Running pre-flight checks");
  await run.run(rootChecks());
  await run.run(nodeChecks);
  return run;
}

/**
 * Pulls the control-plane images (`[preflight] Would pull ...` in dry-run), with upstream's
 * lines; `init` and a control-plane `join` do this after their node checks.
 */
export async function pullImages(
  run: PreflightRun,
  cfg: ResolvedConfig,
  dryRun: boolean,
): Promise<void> {
  if (dryRun) {
    run.info("[preflight] Would pull the required images (like 'kubeadm config images pull')");
    return;
  }
  run.info("[preflight] Pulling images required for setting up a Kubernetes cluster");
  run.info(
    "[preflight] This might take a minute or two, depending on the speed of your internet connection",
  );
  run.info(
    "[preflight] You can also perform this action beforehand using 'kubeadm config images pull'",
  );
  await run.run(imagePullChecks(cfg, run.log));
}

/** Runs kubeadm init's preflight checks; throws a `PreflightError` when one fails. */
export async function runInitPreflight(
  data: InitPreflightRun,
  host: Machine,
  opts: InitPreflightOptions,
): Promise<PreflightReport> {
  const nodeChecks = initNodeChecks(data.cfg);
  const ignore = resolveIgnoreSet(
    opts.ignore,
    data.cfg.init.nodeRegistration.ignorePreflightErrors ?? [],
    [...KNOWN_CHECK_NAMES, ...nodeChecks.map((c) => c.name)],
  );
  const run = await startNodePreflight(host, {
    command: "init",
    ignore,
    out: data.out,
    dryRun: data.dryRun,
    output: opts.output,
  }, nodeChecks);
  await pullImages(run, data.cfg, data.dryRun);
  return run.finish();
}
