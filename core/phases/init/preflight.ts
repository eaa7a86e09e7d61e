/**
 * The `init` preflight phase: the root check (alone, fail fast), the control-plane node checks,
 * then the image pull (`[preflight] Would pull ...` in dry-run).
 *
 * In dry-run, failing checks are reported (`[preflight] dry-run: [ERROR ...]`) but do not
 * abort, so `init --dry-run` works for an unprivileged user.
 *
 * @module
 */
import {
  imagePullChecks,
  initNodeChecks,
  KNOWN_CHECK_NAMES,
  rootChecks,
} from "../../preflight/catalog.ts";
import type { Machine } from "../../host/machine.ts";
import { resolveIgnoreSet } from "../../preflight/ignore.ts";
import {
  type PreflightOutput,
  type PreflightReport,
  PreflightRun,
} from "../../preflight/runner.ts";
import type { InitData } from "./data.ts";

/** Options of {@link runInitPreflight}. */
export interface InitPreflightOptions {
  /** `--ignore-preflight-errors` values (merged with `nodeRegistration.ignorePreflightErrors`). */
  ignore: readonly string[];
  /** `text` (default) or `json` (`-o json`: one report on stdout). */
  output?: PreflightOutput;
}

/** Runs kubeadm init's preflight checks; throws a `PreflightError` when one fails. */
export async function runInitPreflight(
  data: InitData,
  host: Machine,
  opts: InitPreflightOptions,
): Promise<PreflightReport> {
  const nodeChecks = initNodeChecks(data.cfg);
  const pullChecks = imagePullChecks(data.cfg);
  const ignore = resolveIgnoreSet(
    opts.ignore,
    data.cfg.init.nodeRegistration.ignorePreflightErrors ?? [],
    [...KNOWN_CHECK_NAMES, ...nodeChecks.map((c) => c.name)],
  );
  const run = new PreflightRun(host, {
    command: "init",
    ignore,
    out: data.out,
    dryRun: data.dryRun,
    output: opts.output,
  });
  run.info("[preflight] Running pre-flight checks");
  await run.run(rootChecks());
  await run.run(nodeChecks);
  if (data.dryRun) {
    run.info("[preflight] Would pull the required images (like 'kubeadm config images pull')");
  } else {
    run.info("[preflight] Pulling images required for setting up a Kubernetes cluster");
    run.info(
      "[preflight] This might take a minute or two, depending on the speed of your internet connection",
    );
    run.info(
      "[preflight] You can also perform this action beforehand using 'kubeadm config images pull'",
    );
    await run.run(pullChecks);
  }
  return run.finish();
}
