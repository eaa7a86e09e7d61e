/**
 * The `join` preflight phase: the root check, the joining-node checks, and for
 * `--control-plane` the readiness of the cluster for another control-plane instance, the
 * control-plane node checks ("secondary" mode) and the image pull.
 *
 * @module
 */
import type { ResolvedConfig } from "../config/types.ts";
import { KubeadmError } from "../errors.ts";
import type { Printer } from "../ports/printer.ts";
import {
  initNodeChecks,
  type JoinCheckConfig,
  joinNodeChecks,
  KNOWN_CHECK_NAMES,
} from "./catalog.ts";
import type { Machine } from "../ports/machine.ts";
import { resolveIgnoreSet } from "./ignore.ts";
import { pullImages, startNodePreflight } from "./init.ts";
import type { PreflightOutput, PreflightReport } from "./runner.ts";

/** What the join preflight needs. */
export interface JoinPreflightConfig extends JoinCheckConfig {
  /** `nodeRegistration.ignorePreflightErrors`. */
  ignorePreflightErrors?: readonly string[];
  /** `controlPlane.certificateKey` / `--certificate-key` (certificates come from the cluster). */
  certificateKey?: string;
  /** `--dry-run`: report failures without aborting, pull nothing. */
  dryRun: boolean;
}

/** Options of {@link runJoinPreflight}. */
export interface JoinPreflightOptions {
  /** `--ignore-preflight-errors` values. */
  ignore: readonly string[];
  /** Progress lines (stdout) and warnings and errors (stderr). */
  out: Printer;
  /** `text` (default) or `json`. */
  output?: PreflightOutput;
  /**
   * The cluster's configuration as an init configuration for this node (after discovery), for
   * `--control-plane` joins. Called only for control-plane joins, after the node checks.
   */
  controlPlaneConfig?: () => Promise<ResolvedConfig>;
}

const NOT_READY_HEADER =
  "One or more conditions for hosting a new control plane instance is not satisfied.";
const NOT_READY_FOOTER = [
  "Please ensure that:",
  "* The cluster has a stable controlPlaneEndpoint address.",
  "* The certificates that must be shared among control plane instances are provided.",
];

/** The certificates every control-plane instance shares (relative to the certificates dir). */
function sharedCertificateFiles(cfg: ResolvedConfig): string[] {
  const files = [
    "ca.crt",
    "ca.key",
    "sa.key",
    "sa.pub",
    "front-proxy-ca.crt",
    "front-proxy-ca.key",
  ];
  if (!cfg.cluster.etcd.external) files.push("etcd/ca.crt", "etcd/ca.key");
  return files.map((f) => `${cfg.cluster.certificatesDir}/${f}`);
}

/**
 * Fails with upstream's "not satisfied" message when the cluster has no
 * `controlPlaneEndpoint`, or (without a certificate key) when the shared certificates are not
 * on this node.
 */
async function checkReadyForAdditionalControlPlane(
  cfg: ResolvedConfig,
  hasCertificateKey: boolean,
  host: Machine,
): Promise<void> {
  let problem: string | undefined;
  if (!cfg.cluster.controlPlaneEndpoint) {
    problem = "unable to add a new control plane instance to a cluster that doesn't have a " +
      "stable controlPlaneEndpoint address";
  } else if (!hasCertificateKey) {
    const missing: string[] = [];
    for (const f of sharedCertificateFiles(cfg)) {
      if (!(await host.files.exists(f))) missing.push(f);
    }
    if (missing.length > 0) {
      problem = `the following shared certificate files are missing: ${missing.join(", ")}`;
    }
  }
  if (problem !== undefined) {
    throw new KubeadmError(
      [NOT_READY_HEADER, "", problem, "", ...NOT_READY_FOOTER, ""].join("\n"),
      {
        hint: "set controlPlaneEndpoint when creating the cluster, and copy the shared " +
          "certificates or pass --certificate-key",
      },
    );
  }
}

/** Runs kubeadm join's preflight; throws a `PreflightError` when a check fails. */
export async function runJoinPreflight(
  cfg: JoinPreflightConfig,
  host: Machine,
  opts: JoinPreflightOptions,
): Promise<PreflightReport> {
  const nodeChecks = joinNodeChecks(cfg);
  // The control-plane checks depend on the cluster's configuration, known only after
  // discovery: accept their configuration-dependent families (`Port-<bindPort>`, the etcd
  // data directory) by pattern.
  const ignore = resolveIgnoreSet(opts.ignore, cfg.ignorePreflightErrors ?? [], [
    ...KNOWN_CHECK_NAMES,
    ...nodeChecks.map((c) => c.name),
    ...(cfg.controlPlane ? [/^port-[0-9]+$/, /^diravailable-/] : []),
  ]);
  opts.out.log?.(1, "join.ts", "[preflight] Running general checks");
  const run = await startNodePreflight(host, {
    command: "join",
    ignore,
    out: opts.out,
    dryRun: cfg.dryRun,
    output: opts.output,
  }, nodeChecks);
  if (cfg.controlPlane) {
    if (!opts.controlPlaneConfig) {
      throw new KubeadmError(
        "the control-plane checks need the cluster configuration, which is not available",
        { hint: "run discovery first (kubeadm join), or provide the ClusterConfiguration" },
      );
    }
    const initCfg = await opts.controlPlaneConfig();
    opts.out.log?.(1, "join.ts", "[preflight] Running configuration dependant checks");
    const hasKey = (cfg.certificateKey ?? "") !== "";
    await checkReadyForAdditionalControlPlane(initCfg, hasKey, host);
    run.info(
      "[preflight] Running pre-flight checks before initializing the new control plane instance",
    );
    await run.run(
      initNodeChecks(initCfg, { isSecondaryControlPlane: true, downloadCerts: hasKey }),
    );
    await pullImages(run, initCfg, cfg.dryRun);
  }
  return run.finish();
}
