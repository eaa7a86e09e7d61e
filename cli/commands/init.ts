/**
 * `kubeadm init` and `kubeadm init phase …`, generated from the core's init workflow.
 *
 * @module
 */
import type { Command } from "commander";
import { collectList, PREFLIGHT_OUTPUT_FLAG } from "../flags.ts";
import { consolePrinter, stdout } from "../output.ts";
import type { Printer } from "../../core/host/ports.ts";
import type { InitData } from "../../core/phases/init/data.ts";
import type { NodeHost } from "../../core/host/node.ts";
import type { Phase } from "../../core/workflow/phase.ts";
import { initWorkflow } from "../../core/phases/init/workflow.ts";

/** Boolean flags of init/join/token that accept pflag's `--flag=false` form. */
export const BOOL_FLAGS: ReadonlySet<string> = new Set([
  "dry-run",
  "upload-certs",
  "skip-token-print",
  "skip-certificate-key-print",
  "force",
  "control-plane",
  "discovery-token-unsafe-skip-ca-verification",
  "print-join-command",
  "cleanup-tmp-dir",
  "allow-missing-template-keys",
  "show-managed-fields",
]);

/** Parsed init flags (only the ones the user set are present). */
export interface InitFlags {
  config?: string;
  apiserverAdvertiseAddress?: string;
  apiserverBindPort?: string;
  apiserverCertExtraSans?: string[];
  certDir?: string;
  certificateKey?: string;
  controlPlaneEndpoint?: string;
  criSocket?: string;
  dryRun?: boolean;
  featureGates?: string;
  ignorePreflightErrors?: string[];
  imageRepository?: string;
  kubernetesVersion?: string;
  nodeName?: string;
  patches?: string;
  podNetworkCidr?: string;
  serviceCidr?: string;
  serviceDnsDomain?: string;
  skipCertificateKeyPrint?: boolean;
  skipPhases?: string[];
  skipTokenPrint?: boolean;
  token?: string;
  tokenTtl?: string;
  uploadCerts?: boolean;
  rootfs?: string;
  /** `init phase preflight -o`. */
  output?: string;
}

/** What a test can hand to {@link registerInit} instead of this machine. */
export interface InitCommandDeps {
  /** Progress and warnings (default: the process's stdout and stderr). */
  out?: Printer;
  /** The node (default: this machine under `--rootfs`). */
  node?: (rootfs: string) => NodeHost;
}

/** Adds upstream's init flags to a command. */
export function addInitFlags(cmd: Command): Command {
  return cmd
    .option(
      "--apiserver-advertise-address <ip>",
      "The IP address the API Server will advertise it's listening on. If not set the default network interface will be used.",
    )
    .option("--apiserver-bind-port <port>", "Port for the API Server to bind to. (default 6443)")
    .option(
      "--apiserver-cert-extra-sans <sans>",
      "Optional extra Subject Alternative Names (SANs) to use for the API Server serving certificate. Can be both IP addresses and DNS names.",
      collectList,
    )
    .option(
      "--cert-dir <dir>",
      `The path where to save and store the certificates. (default "/etc/kubernetes/pki")`,
    )
    .option(
      "--certificate-key <key>",
      "Key used to encrypt the control-plane certificates in the kubeadm-certs Secret. The certificate key is a hex encoded string that is an AES key of size 32 bytes.",
    )
    .option("--config <file>", "Path to a kubeadm configuration file.")
    .option(
      "--control-plane-endpoint <endpoint>",
      "Specify a stable IP address or DNS name for the control plane.",
    )
    .option(
      "--cri-socket <socket>",
      "Path to the CRI socket to connect. If empty kubeadm will try to auto-detect this value; use this option only if you have more than one CRI installed or if you have non-standard CRI socket.",
    )
    .option("--dry-run", "Don't apply any changes; just output what would be done.")
    .option("--no-dry-run", "(pflag compatibility)")
    .option(
      "--feature-gates <gates>",
      "A set of key=value pairs that describe feature gates for various features.",
    )
    .option(
      "--ignore-preflight-errors <checks>",
      "A list of checks whose errors will be shown as warnings. Example: 'IsPrivilegedUser,Swap'. Value 'all' ignores errors from all checks.",
      collectList,
    )
    .option(
      "--image-repository <repo>",
      `Choose a container registry to pull control plane images from (default "registry.k8s.io")`,
    )
    .option(
      "--kubernetes-version <version>",
      `Choose a specific Kubernetes version for the control plane. (default "stable-1")`,
    )
    .option("--node-name <name>", "Specify the node name.")
    .option(
      "--patches <dir>",
      `Path to a directory that contains files named "target[suffix][+patchtype].extension". For example, "kube-apiserver0+merge.yaml" or just "etcd.json". "target" can be one of "kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd", "kubeletconfiguration", "corednsdeployment". "patchtype" can be one of "strategic", "merge" or "json" and they match the patch formats supported by kubectl. The default "patchtype" is "strategic". "extension" must be either "json" or "yaml". "suffix" is an optional string that can be used to determine which patches are applied first alpha-numerically.`,
    )
    .option(
      "--pod-network-cidr <cidr>",
      "Specify range of IP addresses for the pod network. If set, the control plane will automatically allocate CIDRs for every node.",
    )
    .option(
      "--service-cidr <cidr>",
      `Use alternative range of IP address for service VIPs. (default "10.96.0.0/12")`,
    )
    .option(
      "--service-dns-domain <domain>",
      `Use alternative domain for services, e.g. "myorg.internal". (default "cluster.local")`,
    )
    .option(
      "--skip-certificate-key-print",
      "Don't print the key used to encrypt the control-plane certificates.",
    )
    .option("--skip-phases <phases>", "List of phases to be skipped", collectList)
    .option(
      "--skip-token-print",
      "Skip printing of the default bootstrap token generated by 'kubeadm init'.",
    )
    .option(
      "--token <token>",
      "The token to use for establishing bidirectional trust between nodes and control-plane nodes. The format is [a-z0-9]{6}\\.[a-z0-9]{16} - e.g. abcdef.0123456789abcdef",
    )
    .option(
      "--token-ttl <duration>",
      "The duration before the token is automatically deleted (e.g. 1s, 2m, 3h). If set to '0', the token will never expire (default 24h0m0s)",
    )
    .option("--upload-certs", "Upload control-plane certificates to the kubeadm-certs Secret.");
}

function flagsOf(cmd: Command): InitFlags {
  const all = cmd.optsWithGlobals() as InitFlags & Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(all)) {
    const src = cmd.getOptionValueSource(k) ?? cmd.parent?.getOptionValueSource(k) ??
      cmd.parent?.parent?.getOptionValueSource(k) ?? "cli";
    if (src === "cli" || src === "env" || k === "rootfs") out[k] = v;
  }
  return out as InitFlags;
}

/** Names (as typed on the command line) of the init flags the user set, for `--config` mixing checks. */
function setFlagNames(cmd: Command): string[] {
  const names: string[] = [];
  for (const opt of cmd.options) {
    const key = opt.attributeName();
    if (key === "output") continue; // not a configuration value
    if (cmd.getOptionValueSource(key) === "cli") names.push(opt.long!.replace(/^--(no-)?/, ""));
  }
  return names;
}

async function runInit(cmd: Command, deps: InitCommandDeps, only?: string): Promise<void> {
  const { prepareInit, finishInit } = await import("../init_runtime.ts");
  const { phaseSelector, runWorkflow, resolveSkipPhases } = await import(
    "../../core/workflow/runner.ts"
  );
  const flags = flagsOf(cmd);
  const workflow = initWorkflow();
  const skip = only ? [] : resolveSkipPhases(workflow, flags.skipPhases ?? []);
  const out = deps.out ?? consolePrinter;
  const ctx = await prepareInit(flags, setFlagNames(cmd), out, deps);
  const effectiveSkip = only
    ? []
    : skip.length > 0
    ? skip
    : resolveSkipPhases(workflow, ctx.data.cfg.init.skipPhases ?? []);
  const runOpts = { skip: effectiveSkip, only };
  ctx.data.willRun = phaseSelector(workflow, runOpts);
  if (!only) {
    out.info(
      `[init] Using Kubernetes version: ${ctx.data.cfg.cluster.kubernetesVersion}`,
    );
  }
  try {
    await runWorkflow(workflow, ctx.data, runOpts);
  } finally {
    ctx.close();
  }
  await finishInit(ctx, out);
}

function addPhaseCommands(
  parent: Command,
  phases: readonly Phase<InitData>[],
  prefix: string,
  deps: InitCommandDeps,
) {
  for (const phase of phases) {
    const path = prefix ? `${prefix}/${phase.name}` : phase.name;
    const cmd = parent.command(phase.name).description(phase.short);
    for (const alias of phase.aliases ?? []) cmd.alias(alias);
    if (phase.long) cmd.summary(phase.short).description(phase.long);
    if (phase.phases && phase.phases.length > 0) {
      addPhaseCommands(cmd, phase.phases, path, deps);
      if (!phase.run) {
        cmd.action(() => {
          stdout(
            "This command is not meant to be run on its own. See list of available subcommands.",
          );
          cmd.outputHelp();
        });
        continue;
      }
    }
    addInitFlags(cmd);
    if (path === "preflight") {
      cmd.option(PREFLIGHT_OUTPUT_FLAG.flags, PREFLIGHT_OUTPUT_FLAG.description);
    }
    cmd.action(async (_opts: unknown, c: Command) => await runInit(c, deps, path));
  }
}

/** Registers `init` and its generated `init phase …` tree. */
export function registerInit(program: Command, deps: InitCommandDeps = {}): void {
  const init = addInitFlags(
    program.command("init").description(
      "Run this command in order to set up the Kubernetes control plane",
    ),
  ).action(async (_opts: unknown, c: Command) => await runInit(c, deps));
  const phase = init.command("phase").description(
    "Use this command to invoke single phase of the init workflow",
  );
  // The workflow module only declares phases; implementations load lazily when a phase runs.
  addPhaseCommands(phase, initWorkflow().phases, "", deps);
}
