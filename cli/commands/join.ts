/**
 * `kubeadm join [api-server-endpoint]` and `kubeadm join phase …`, generated from the core's
 * join workflow, with upstream's flags (each phase command gets the flags upstream gives it).
 *
 * @module
 */
import type { Command } from "commander";
import { collectList, PREFLIGHT_OUTPUT_FLAG } from "../flags.ts";
import { consolePrinter, stdout } from "../output.ts";
import type { Printer } from "../../core/host/ports.ts";
import type { JoinData, JoinPorts } from "../../core/phases/join/data.ts";
import type { NodeHost } from "../../core/host/node.ts";
import type { Phase } from "../../core/workflow/phase.ts";
import { DISCOVERY_FLAG_NAMES, joinWorkflow } from "../../core/phases/join/workflow.ts";

/** Boolean flags of join that accept pflag's `--flag=false` form. */
export const JOIN_BOOL_FLAGS: ReadonlySet<string> = new Set([
  "dry-run",
  "control-plane",
  "discovery-token-unsafe-skip-ca-verification",
]);

const JOIN_LONG = `When joining a kubeadm initialized cluster, we need to establish
bidirectional trust. This is split into discovery (having the Node
trust the Kubernetes Control Plane) and TLS bootstrap (having the
Kubernetes Control Plane trust the Node).

There are 2 main schemes for discovery. The first is to use a shared
token along with the IP address of the API server. The second is to
provide a file - a subset of the standard kubeconfig file. This file can
be a local file or downloaded via an HTTPS URL. The forms are
kubeadm join --discovery-token abcdef.1234567890abcdef 1.2.3.4:6443,
kubeadm join --discovery-file path/to/file.conf, or kubeadm join
--discovery-file https://url/file.conf. Only one form can be used. If
the discovery information is loaded from a URL, HTTPS must be used.
Also, in that case the host installed CA bundle is used to verify
the connection.

If you use a shared token for discovery, you should also pass the
--discovery-token-ca-cert-hash flag to validate the public key of the
root certificate authority (CA) presented by the Kubernetes Control Plane.
The value of this flag is specified as "<hash-type>:<hex-encoded-value>",
where the supported hash type is "sha256". The hash is calculated over
the bytes of the Subject Public Key Info (SPKI) object (as in RFC7469).
This value is available in the output of "kubeadm init" or can be
calculated using standard tools. The --discovery-token-ca-cert-hash flag
may be repeated multiple times to allow more than one public key.

If you cannot know the CA public key hash ahead of time, you can pass
the --discovery-token-unsafe-skip-ca-verification flag to disable this
verification. This weakens the kubeadm security model since other nodes
can potentially impersonate the Kubernetes Control Plane.

The TLS bootstrap mechanism is also driven via a shared token. This is
used to temporarily authenticate with the Kubernetes Control Plane to submit a
certificate signing request (CSR) for a locally created key pair. By
default, kubeadm will set up the Kubernetes Control Plane to automatically
approve these signing requests. This token is passed in with the
--tls-bootstrap-token abcdef.1234567890abcdef flag.

Often times the same token is used for both parts. In this case, the
--token flag can be used instead of specifying each token individually.`;

/** Parsed join flags (only those the user set). */
export interface JoinFlags {
  config?: string;
  apiserverAdvertiseAddress?: string;
  apiserverBindPort?: string;
  certificateKey?: string;
  controlPlane?: boolean;
  criSocket?: string;
  discoveryFile?: string;
  discoveryToken?: string;
  discoveryTokenCaCertHash?: string[];
  discoveryTokenUnsafeSkipCaVerification?: boolean;
  dryRun?: boolean;
  ignorePreflightErrors?: string[];
  nodeName?: string;
  patches?: string;
  skipPhases?: string[];
  tlsBootstrapToken?: string;
  token?: string;
  rootfs?: string;
  /** `join phase preflight -o`. */
  output?: string;
}

/** What a test can hand to {@link registerJoin} instead of this machine and network. */
export interface JoinCommandDeps {
  /** Progress and warnings (default: the process's stdout and stderr). */
  out?: Printer;
  /** The node (default: this machine under `--rootfs`). */
  node?: (rootfs: string) => NodeHost;
  /** Replaces some of the join phases' network ports (e.g. discovery transports). */
  ports?: Partial<JoinPorts>;
}

type FlagAdder = (cmd: Command) => Command;

/** Every join flag, by name, in upstream's (alphabetical) help order. */
const FLAGS: Record<string, FlagAdder> = {
  "apiserver-advertise-address": (c) =>
    c.option(
      "--apiserver-advertise-address <ip>",
      "If the node should host a new control plane instance, the IP address the API Server will advertise it's listening on. If not set the default network interface will be used.",
    ),
  "apiserver-bind-port": (c) =>
    c.option(
      "--apiserver-bind-port <port>",
      "If the node should host a new control plane instance, the port for the API Server to bind to. (default 6443)",
    ),
  "certificate-key": (c) =>
    c.option(
      "--certificate-key <key>",
      "Use this key to decrypt the certificate secrets uploaded by init. The certificate key is a hex encoded string that is an AES key of size 32 bytes.",
    ),
  "config": (c) => c.option("--config <file>", "Path to a kubeadm configuration file."),
  "control-plane": (c) =>
    c.option("--control-plane", "Create a new control plane instance on this node")
      .option("--no-control-plane", "(pflag compatibility)"),
  "cri-socket": (c) =>
    c.option(
      "--cri-socket <socket>",
      "Path to the CRI socket to connect. If empty kubeadm will try to auto-detect this value; use this option only if you have more than one CRI installed or if you have non-standard CRI socket.",
    ),
  "discovery-file": (c) =>
    c.option(
      "--discovery-file <file>",
      "For file-based discovery, a file or URL from which to load cluster information.",
    ),
  "discovery-token": (c) =>
    c.option(
      "--discovery-token <token>",
      "For token-based discovery, the token used to validate cluster information fetched from the API server.",
    ),
  "discovery-token-ca-cert-hash": (c) =>
    c.option(
      "--discovery-token-ca-cert-hash <hash>",
      'For token-based discovery, validate that the root CA public key matches this hash (format: "<type>:<value>").',
      collectList,
    ),
  "discovery-token-unsafe-skip-ca-verification": (c) =>
    c.option(
      "--discovery-token-unsafe-skip-ca-verification",
      "For token-based discovery, allow joining without --discovery-token-ca-cert-hash pinning.",
    ),
  "dry-run": (c) =>
    c.option("--dry-run", "Don't apply any changes; just output what would be done.")
      .option("--no-dry-run", "(pflag compatibility)"),
  "ignore-preflight-errors": (c) =>
    c.option(
      "--ignore-preflight-errors <checks>",
      "A list of checks whose errors will be shown as warnings. Example: 'IsPrivilegedUser,Swap'. Value 'all' ignores errors from all checks.",
      collectList,
    ),
  "node-name": (c) => c.option("--node-name <name>", "Specify the node name."),
  "patches": (c) =>
    c.option(
      "--patches <dir>",
      `Path to a directory that contains files named "target[suffix][+patchtype].extension". For example, "kube-apiserver0+merge.yaml" or just "etcd.json". "target" can be one of "kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd", "kubeletconfiguration". "patchtype" can be one of "strategic", "merge" or "json" and they match the patch formats supported by kubectl. The default "patchtype" is "strategic". "extension" must be either "json" or "yaml". "suffix" is an optional string that can be used to determine which patches are applied first alpha-numerically.`,
    ),
  "tls-bootstrap-token": (c) =>
    c.option(
      "--tls-bootstrap-token <token>",
      "Specify the token used to temporarily authenticate with the Kubernetes Control Plane while joining the node.",
    ),
  "token": (c) =>
    c.option(
      "--token <token>",
      "Use this token for both discovery-token and tls-bootstrap-token when those values are not provided.",
    ),
};

/** Adds the named join flags (all when `names` is absent) to a command. */
export function addJoinFlags(cmd: Command, names?: readonly string[]): Command {
  for (const [name, add] of Object.entries(FLAGS)) {
    if (!names || names.includes(name)) add(cmd);
  }
  return cmd;
}

function flagsOf(cmd: Command): JoinFlags {
  const all = cmd.optsWithGlobals() as JoinFlags & Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(all)) {
    let c: Command | null = cmd;
    let src: string | undefined;
    while (c && src === undefined) {
      src = c.getOptionValueSource(k);
      c = c.parent;
    }
    if (src === "cli" || src === "env" || k === "rootfs") out[k] = v;
  }
  return out as JoinFlags;
}

function setFlagNames(cmd: Command): string[] {
  const names: string[] = [];
  for (const opt of cmd.options) {
    if (opt.attributeName() === "output") continue; // not a configuration value
    if (cmd.getOptionValueSource(opt.attributeName()) === "cli") {
      names.push(opt.long!.replace(/^--(no-)?/, ""));
    }
  }
  return names;
}

function hasDiscoveryFlags(cmd: Command): boolean {
  return cmd.options.some((o) => o.long === "--discovery-file");
}

async function runJoin(
  cmd: Command,
  endpoint: string | undefined,
  deps: JoinCommandDeps,
  only?: string,
): Promise<void> {
  const { prepareJoin, finishJoin } = await import("../join_runtime.ts");
  const { phaseSelector, runWorkflow, resolveSkipPhases } = await import(
    "../../core/workflow/runner.ts"
  );
  const { parsePreflightOutput } = await import("../flags.ts");
  const out = deps.out ?? consolePrinter;
  const f = flagsOf(cmd);
  const workflow = joinWorkflow();
  const skip = only ? [] : resolveSkipPhases(workflow, f.skipPhases ?? []);
  let bindPort: number | undefined;
  if (f.apiserverBindPort !== undefined) {
    bindPort = Number(f.apiserverBindPort);
    if (!Number.isInteger(bindPort)) {
      const { FlagError } = await import("../../core/errors.ts");
      throw new FlagError(
        `invalid argument ${
          JSON.stringify(f.apiserverBindPort)
        } for "--apiserver-bind-port" flag: strconv.ParseInt: parsing ${
          JSON.stringify(f.apiserverBindPort)
        }: invalid syntax`,
        { field: "--apiserver-bind-port", value: f.apiserverBindPort },
      );
    }
  }
  const ctx = await prepareJoin(
    {
      config: f.config,
      rootfs: f.rootfs,
      apiServerEndpoint: endpoint,
      token: f.token,
      discoveryToken: f.discoveryToken,
      tlsBootstrapToken: f.tlsBootstrapToken,
      caCertHashes: f.discoveryTokenCaCertHash,
      unsafeSkipCAVerification: f.discoveryTokenUnsafeSkipCaVerification,
      discoveryFile: f.discoveryFile,
      nodeName: f.nodeName,
      criSocket: f.criSocket,
      controlPlane: f.controlPlane,
      certificateKey: f.certificateKey,
      advertiseAddress: f.apiserverAdvertiseAddress,
      bindPort,
      ignorePreflightErrors: f.ignorePreflightErrors,
      skipPhases: f.skipPhases,
      patchesDir: f.patches,
      dryRun: f.dryRun,
    },
    {
      setFlags: setFlagNames(cmd),
      hasDiscoveryFlags: hasDiscoveryFlags(cmd),
      preflightOutput: await parsePreflightOutput(f.output),
      node: deps.node,
      ports: deps.ports,
    },
    out,
  );
  const effectiveSkip = only
    ? []
    : skip.length > 0
    ? skip
    : resolveSkipPhases(workflow, ctx.data.cfg.skipPhases ?? []);
  const runOpts = { skip: effectiveSkip, only };
  ctx.data.willRun = phaseSelector(workflow, runOpts);
  await runWorkflow(workflow, ctx.data, runOpts);
  await finishJoin(ctx, out);
  if (only) return;
  const { joinControlPlaneDoneMessage, joinWorkerDoneMessage } = await import(
    "../../core/phases/join/messages.ts"
  );
  if (ctx.data.cfg.controlPlane) {
    const cfg = await ctx.data.initCfg();
    out.info(joinControlPlaneDoneMessage(cfg.cluster.etcd.external === undefined));
  } else {
    out.info(joinWorkerDoneMessage());
  }
}

function addPhaseCommands(
  parent: Command,
  phases: readonly Phase<JoinData>[],
  prefix: string,
  deps: JoinCommandDeps,
): void {
  for (const phase of phases) {
    const path = prefix ? `${prefix}/${phase.name}` : phase.name;
    if (parent.commands.some((c) => c.name() === phase.name)) continue;
    const cmd = parent.command(phase.name, { hidden: phase.hidden }).description(phase.short);
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
    const takesEndpoint = phase.argsUsage !== undefined ||
      (phase.flags ?? []).some((f) => DISCOVERY_FLAG_NAMES.includes(f) && f !== "config");
    if (takesEndpoint) cmd.argument("[api-server-endpoint]");
    addJoinFlags(cmd, phase.flags ?? []);
    if (path === "preflight") {
      cmd.option(PREFLIGHT_OUTPUT_FLAG.flags, PREFLIGHT_OUTPUT_FLAG.description);
    }
    cmd.action(async (...args: unknown[]) => {
      const c = args[args.length - 1] as Command;
      const endpoint = takesEndpoint ? args[0] as string | undefined : undefined;
      await runJoin(c, endpoint, deps, path);
    });
  }
}

/** Registers `join [api-server-endpoint]` and its generated `join phase …` tree. */
export function registerJoin(program: Command, deps: JoinCommandDeps = {}): void {
  let join = program.commands.find((c) => c.name() === "join");
  if (!join) join = program.command("join");
  join.summary("Run this on any machine you wish to join an existing cluster")
    .description(JOIN_LONG)
    .argument("[api-server-endpoint]");
  addJoinFlags(join).option("--skip-phases <phases>", "List of phases to be skipped", collectList)
    .action(async (endpoint: string | undefined, _opts: unknown, c: Command) =>
      await runJoin(c, endpoint, deps)
    );
  let phase = join.commands.find((c) => c.name() === "phase");
  if (!phase) {
    phase = join.command("phase").description(
      'Use this command to invoke single phase of the "join" workflow',
    );
  }
  addPhaseCommands(phase, joinWorkflow().phases, "", deps);
}
